package dev.kiln.core.startup;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How one agent client judges an MCP server's start: what counts against its startup timeout, the timeout it uses
 * when none is configured (empty where Kiln has no source for one: then it judges against the probe's own timeout
 * and says so), a cap above which a configured value does not help, and where that client keeps its servers. The
 * sources of each rule are in {@code docs/CLIENTS.md}.
 */
public enum ClientProfile {
    CODEX("codex", true, Duration.ofSeconds(30), null, "startup_timeout_sec (per server, seconds)",
            List.of("~/.codex/config.toml")),
    CLAUDE_CODE("claude-code", false, null, Duration.ofSeconds(60), "MCP_TIMEOUT (milliseconds, all servers; its SDK"
            + " caps a request at 60 s)", List.of(".mcp.json", "~/.claude.json")),
    CLAUDE_DESKTOP("claude-desktop", false, null, null, "none documented", List.of(
            "~/.config/Claude/claude_desktop_config.json", "~/Library/Application Support/Claude/claude_desktop_config.json")),
    CURSOR("cursor", false, null, null, "none documented", List.of(".cursor/mcp.json", "~/.cursor/mcp.json")),
    VSCODE("vscode", false, null, null, "none documented", List.of(".vscode/mcp.json")),
    GEMINI("gemini", false, null, null, "timeout (per server, milliseconds)", List.of(".gemini/settings.json",
            "~/.gemini/settings.json")),
    CLINE("cline", false, Duration.ofMillis(1_500), Duration.ofMillis(1_500), "none: 1.5 s for initialize is hard-coded",
            List.of()),
    OPENAI_AGENTS("openai-agents", false, Duration.ofSeconds(5), null, "client_session_timeout_seconds (in code)",
            List.of());

    private final String label;
    private final boolean countsTools;
    private final @Nullable Duration defaultTimeout;
    private final @Nullable Duration cap;
    private final String setting;
    private final List<String> configs;

    ClientProfile(String label, boolean countsTools, @Nullable Duration defaultTimeout, @Nullable Duration cap,
            String setting, List<String> configs) {
        this.label = label;
        this.countsTools = countsTools;
        this.defaultTimeout = defaultTimeout;
        this.cap = cap;
        this.setting = setting;
        this.configs = configs;
    }

    public String label() {
        return label;
    }

    /** The profile named {@code name} ({@code codex}, {@code claude-code}, …). */
    public static ClientProfile parse(String name) {
        for (ClientProfile p : values()) {
            if (p.label.equals(name.toLowerCase(Locale.ROOT))) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown client '" + name + "': one of " + String.join(", ",
                java.util.Arrays.stream(values()).map(ClientProfile::label).toList()));
    }

    /** Whether {@code tools/list} counts against the timeout too (Codex), not only the handshake's answer. */
    public boolean countsTools() {
        return countsTools;
    }

    /** The timeout it uses when none is configured; empty when Kiln has no source for one. */
    public Optional<Duration> defaultTimeout() {
        return Optional.ofNullable(defaultTimeout);
    }

    /** What the user sets, for people. */
    public String setting() {
        return setting;
    }

    /** The first of this client's config files that exists ({@code ~} is {@code home}, others relative to {@code cwd}). */
    public Optional<Path> findConfig(Path home, Path cwd) {
        for (String c : configs) {
            Path p = c.startsWith("~/") ? home.resolve(c.substring(2)) : cwd.resolve(c);
            if (Files.isRegularFile(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Where this client keeps its servers, for messages. */
    public List<String> configs() {
        return configs;
    }

    /**
     * The verdict for every server of {@code report} as this client judges it: the time that counts, the timeout
     * (the server's configured one, else the client's default, within its cap), in time or late, the margin, and a
     * recommendation only when the run was squeezed ({@link ProbeReport#squeeze()}).
     */
    public String verdicts(ProbeReport report) {
        StringBuilder b = new StringBuilder();
        String condition = report.squeeze();
        b.append("as ").append(label).append(" judges it (counts ").append(countsTools ? "initialize + tools/list" : "initialize")
                .append("; setting: ").append(setting).append("):\n");
        for (ProbeReport.ServerSummary s : report.servers()) {
            ServerResult r = s.representative();
            Double counted = countsTools ? r.toolsMs() : r.initializeMs();
            long timeoutMs = timeoutFor(r);
            String verdict;
            if (counted == null) {
                verdict = "fails (" + r.outcomeText() + ")";
            } else {
                boolean late = counted > timeoutMs;
                verdict = String.format(Locale.ROOT, "%s: %.0f ms of %s, margin ×%.1f", late ? "LATE" : "in time", counted,
                        Handshake.seconds(Duration.ofMillis(timeoutMs)), timeoutMs / Math.max(1, counted));
            }
            b.append(String.format(Locale.ROOT, "  %-22s %s%s%n", s.name(), verdict, defaultTimeout == null
                    ? " (no documented default: judged against the probe's timeout)" : ""));
            if (counted != null) {
                if (condition == null) {
                    continue;
                }
                int rec = ProbeReport.recommend(counted);
                if (cap != null && rec * 1000L > cap.toMillis()) {
                    b.append("    recommend: ").append(rec).append(" s is past what ").append(label).append(" allows (")
                            .append(Handshake.seconds(cap)).append("): make the start shorter (a seed, bytecode)\n");
                } else {
                    b.append("    recommend: ").append(recommendation(s.name(), rec)).append(" (").append(condition)
                            .append(")\n");
                }
            }
        }
        if (condition == null) {
            b.append("  no recommendation from an unsqueezed run: kiln probe --recommend --client ").append(label).append('\n');
        }
        return b.toString();
    }

    private long timeoutFor(ServerResult r) {
        // The probe already held each server to its configured timeout, else this client's default (kiln probe --client).
        return cap == null ? r.timeoutMs() : Math.min(r.timeoutMs(), cap.toMillis());
    }

    private String recommendation(String server, int seconds) {
        return switch (this) {
            case CODEX -> "[mcp_servers." + server + "] startup_timeout_sec = " + seconds;
            case CLAUDE_CODE -> "MCP_TIMEOUT=" + seconds * 1000;
            case GEMINI -> "\"" + server + "\": { \"timeout\": " + seconds * 1000 + " }";
            case OPENAI_AGENTS -> "client_session_timeout_seconds=" + seconds;
            case CLINE -> "nothing to set (1.5 s is fixed): the start itself must fit";
            default -> seconds + " s (this client documents no setting)";
        };
    }
}
