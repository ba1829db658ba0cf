package dev.kiln.core.startup;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One server's startup in one probe run.
 *
 * @param name the server
 * @param transport how it was reached
 * @param run which run of the probe (1-based)
 * @param outcome how it ended
 * @param exitCode the process's exit code when it ended by itself before the handshake finished, else null
 * @param reason what happened, for people (empty when ok)
 * @param protocolVersion the protocol version the server chose, or null
 * @param initializeMs spawn → {@code initialize} answered, or null
 * @param toolsMs spawn → tools listed, or null
 * @param tools how many tools it listed (all pages), or -1
 * @param timeoutMs the startup timeout it was held to
 * @param timeline the steps, relative to the probe's start
 * @param stderrTail the last lines it wrote to stderr
 * @param fetch the fetching launcher's phase, or null when the server was not started through one
 * @param conversation the handshake's messages and the server's stderr, bounded ({@link Conversation#NONE} when
 *     not captured, e.g. a result read from an older file)
 */
public record ServerResult(String name, ServerConfig.Transport transport, int run, Outcome outcome, @Nullable Integer exitCode,
        String reason, @Nullable String protocolVersion, @Nullable Double initializeMs, @Nullable Double toolsMs, int tools, long timeoutMs,
        Timeline timeline, List<String> stderrTail, @Nullable FetchPhase fetch, Conversation conversation) {

    /** A result without a captured conversation. */
    public ServerResult(String name, ServerConfig.Transport transport, int run, Outcome outcome, @Nullable Integer exitCode,
            String reason, @Nullable String protocolVersion, @Nullable Double initializeMs, @Nullable Double toolsMs, int tools,
            long timeoutMs, Timeline timeline, List<String> stderrTail, @Nullable FetchPhase fetch) {
        this(name, transport, run, outcome, exitCode, reason, protocolVersion, initializeMs, toolsMs, tools, timeoutMs,
                timeline, stderrTail, fetch, Conversation.NONE);
    }

    /** A result without a fetch phase. */
    public ServerResult(String name, ServerConfig.Transport transport, int run, Outcome outcome, @Nullable Integer exitCode,
            String reason, @Nullable String protocolVersion, @Nullable Double initializeMs, @Nullable Double toolsMs, int tools,
            long timeoutMs, Timeline timeline, List<String> stderrTail) {
        this(name, transport, run, outcome, exitCode, reason, protocolVersion, initializeMs, toolsMs, tools, timeoutMs,
                timeline, stderrTail, null);
    }

    public ServerResult {
        stderrTail = List.copyOf(stderrTail);
        reason = reason == null ? "" : reason;
        conversation = conversation == null ? Conversation.NONE : conversation;
    }

    /** The outcome as the console shows it: {@code exited(1)} rather than {@code exited}. */
    public String outcomeText() {
        return outcome == Outcome.EXITED && exitCode != null ? "exited(" + exitCode + ")" : outcome.label();
    }
}
