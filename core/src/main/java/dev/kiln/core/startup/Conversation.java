package dev.kiln.core.startup;

import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * What one server said during its start, as the MCP Inspector shows it: each JSON-RPC message of the handshake in
 * the order it crossed (either way), and the server's stderr. Both are bounded: at most {@link #MAX_MESSAGES}
 * messages of at most {@link #MAX_MESSAGE_CHARS} characters each, and the last {@link #STDERR_LIMIT_BYTES} bytes of
 * stderr; what was cut is counted, never silently lost.
 *
 * @param messages the messages, in the order they crossed
 * @param messagesDropped messages past {@link #MAX_MESSAGES}, not kept
 * @param stderr the end of the server's stderr (UTF-8, from a line start when cut)
 * @param stderrBytes how many bytes it wrote to stderr in all
 * @param stderrTruncated true when {@code stderr} holds only the end of it
 */
public record Conversation(List<Message> messages, int messagesDropped, String stderr, long stderrBytes,
        boolean stderrTruncated) {
    /** How many messages are kept: a handshake has a handful; a server flooding notifications gets no more. */
    public static final int MAX_MESSAGES = 64;
    /** The longest raw JSON kept per message; a long {@code tools/list} answer is clipped with a note. */
    public static final int MAX_MESSAGE_CHARS = 16 * 1024;
    /** How much of the end of stderr is kept. */
    public static final int STDERR_LIMIT_BYTES = 64 * 1024;
    /** What nothing was captured looks like (an HTTP server has no stderr; a spawn that failed said nothing). */
    public static final Conversation NONE = new Conversation(List.of(), 0, "", 0, false);

    public Conversation {
        messages = List.copyOf(messages);
        stderr = stderr == null ? "" : stderr;
    }

    /** Which way a message crossed. */
    public enum Direction {
        /** Kiln to the server. */
        SENT,
        /** The server to Kiln. */
        RECEIVED;

        /** {@code sent}, {@code received}: the wire's and the file's name. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The direction named by {@link #label()}. */
        public static Direction of(String label) {
            return valueOf(label.toUpperCase(Locale.ROOT));
        }
    }

    /**
     * One message.
     *
     * @param direction which way it crossed
     * @param method its method (a request or notification), or null for an answer
     * @param id its JSON-RPC id as written (a number or a string), or null for a notification
     * @param atMs when it crossed, in ms after the server's spawn (HTTP: after the first request); a received message
     *     at its last byte
     * @param json the message as it crossed, clipped to {@link #MAX_MESSAGE_CHARS} (a line that is not JSON as it was)
     * @param clipped true when {@code json} is only its beginning
     */
    public record Message(Direction direction, @Nullable String method, @Nullable String id, double atMs, String json,
            boolean clipped) {
        /** For people: {@code → initialize #1}, {@code ← #1 (answer)}, {@code ← notifications/message}. */
        public String summary() {
            String arrow = direction == Direction.SENT ? "→ " : "← ";
            if (method != null) {
                return arrow + method + (id == null ? "" : " #" + id);
            }
            return arrow + (id == null ? "(not JSON-RPC)" : "#" + id + " answer");
        }
    }
}
