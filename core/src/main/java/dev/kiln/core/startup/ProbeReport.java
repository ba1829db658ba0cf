package dev.kiln.core.startup;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.telemetry.Figures;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a probe saw: every server's result in every run, with per-server medians, the slowest server, and a
 * recommended startup timeout per server.
 *
 * @param startedAt when the probe started
 * @param cpus the CPU list servers were pinned to ({@code ""}: not pinned)
 * @param repeat how many runs
 * @param bytecode the bytecode mode servers ran with
 * @param results every server's result in every run, run by run
 * @param cpuLimit the CPU-quota group the servers shared, or null when none was asked for
 * @param handshake which revision was asked first
 */
public record ProbeReport(Instant startedAt, String cpus, int repeat, BytecodeMode bytecode, List<ServerResult> results,
        @Nullable CpuLimit cpuLimit, HandshakeOrder handshake) {
    /** Head-room over the slowest observed start: ×1.5 plus one second, rounded up to whole seconds. */
    static final double HEADROOM_FACTOR = 1.5;
    static final double HEADROOM_SECONDS = 1.0;
    private static final ObjectMapper JSON = new ObjectMapper();

    public ProbeReport {
        results = List.copyOf(results);
        handshake = handshake == null ? HandshakeOrder.INITIALIZE_FIRST : handshake;
    }

    /** A report without a CPU share, of the {@code initialize}-first order. */
    public ProbeReport(Instant startedAt, String cpus, int repeat, BytecodeMode bytecode, List<ServerResult> results) {
        this(startedAt, cpus, repeat, bytecode, results, null, HandshakeOrder.INITIALIZE_FIRST);
    }

    /**
     * The fractional CPU share a probe ran under.
     *
     * @param share CPUs
     * @param mechanism how it was enforced ({@link CpuQuota.Mechanism#label()})
     * @param group the group's name
     * @param cpuMs CPU time the group used over the probe, or null when it cannot be read
     * @param cpuPerWall that CPU time per wall second the servers ran (at most the share when the quota holds), or null
     * @param description one line for people
     */
    public record CpuLimit(double share, String mechanism, String group, @Nullable Double cpuMs, @Nullable Double cpuPerWall,
            String description) {
    }

    /**
     * One server over all runs.
     *
     * @param name the server
     * @param representative the run to show: the first failed run if any failed, else the median run
     * @param runs how many runs
     * @param okRuns how many ended ok
     * @param initializeMsMedian median spawn → initialize over ok runs, or null
     * @param initializeMsMax slowest spawn → initialize over ok runs, or null
     * @param recommendedTimeoutSec the startup timeout to configure, or null when a run failed (nothing to base it on)
     */
    public record ServerSummary(String name, ServerResult representative, int runs, int okRuns, @Nullable Double initializeMsMedian,
            @Nullable Double initializeMsMax, @Nullable Integer recommendedTimeoutSec) {
    }

    /** Per-server summaries, in config order. */
    public List<ServerSummary> servers() {
        Map<String, List<ServerResult>> byName = new LinkedHashMap<>();
        for (ServerResult r : results) {
            byName.computeIfAbsent(r.name(), k -> new ArrayList<>()).add(r);
        }
        List<ServerSummary> out = new ArrayList<>();
        byName.forEach((name, rs) -> out.add(summarize(name, rs)));
        return out;
    }

    private static ServerSummary summarize(String name, List<ServerResult> rs) {
        List<ServerResult> ok = rs.stream().filter(r -> r.outcome() == Outcome.OK && r.initializeMs() != null)
                .sorted(Comparator.comparingDouble(ServerResult::initializeMs)).toList();
        ServerResult failed = rs.stream().filter(r -> r.outcome() != Outcome.OK).findFirst().orElse(null);
        ServerResult median = ok.isEmpty() ? null : ok.get((ok.size() - 1) / 2);
        Double medianMs = ok.isEmpty() ? null : Figures.median(ok.stream().map(ServerResult::initializeMs).toList());
        Double maxMs = ok.isEmpty() ? null : ok.get(ok.size() - 1).initializeMs();
        Integer recommended = failed != null || maxMs == null ? null : recommend(maxMs);
        // no failed run and none ok with a time: an ok run whose answer time is unknown stands for them
        ServerResult representative = failed != null ? failed : median != null ? median : rs.get(0);
        return new ServerSummary(name, representative, rs.size(), ok.size(), medianMs, maxMs, recommended);
    }

    /** The startup timeout, in whole seconds, to configure for a server whose slowest observed start took {@code ms}. */
    public static int recommend(double ms) {
        return (int) Math.ceil(ms / 1000.0 * HEADROOM_FACTOR + HEADROOM_SECONDS);
    }

    /** The slowest ok server by its slowest start, or null when none was ok. */
    public @Nullable ServerSummary slowest() {
        return servers().stream().filter(s -> s.initializeMsMax() != null)
                .max(Comparator.comparingDouble(ServerSummary::initializeMsMax)).orElse(null);
    }

    /** Servers that missed their startup timeout in at least one run. */
    public long overTimeout() {
        return servers().stream().filter(s -> results.stream()
                .anyMatch(r -> r.name().equals(s.name()) && r.outcome() == Outcome.TIMEOUT)).count();
    }

    /** Servers that did not start in at least one run, for any reason. */
    public long failed() {
        return servers().stream().filter(s -> s.okRuns() < s.runs()).count();
    }

    /**
     * Lines to paste into a client config: Codex {@code config.toml} tables with {@code startup_timeout_sec}, and
     * Claude Code's {@code MCP_TIMEOUT} (milliseconds, one value for all servers).
     */
    public String clientConfigLines() {
        StringBuilder b = new StringBuilder();
        String condition = squeeze();
        if (condition == null) {
            // One unloaded run says little about a session start of many servers on a share of a CPU.
            return "# no recommended timeout from this run: it was not squeezed (no --cpu-share, no pinned CPUs), and a\n"
                    + "# server that answers in a second alone takes far longer when many start at once on half a CPU.\n"
                    + "# For one: kiln probe --recommend (probes again at --cpu-share " + RECOMMEND_SHARE + "), kiln probe"
                    + " --cpu-share 0.5, or kiln probe --sweep 4,2,1,0.5 (its smallest share).\n";
        }
        b.append("# Codex ~/.codex/config.toml (from the slowest of ").append(repeat).append(" run(s) ").append(condition)
                .append(", ×1.5 + 1 s head-room)\n");
        int max = 0;
        for (ServerSummary s : servers()) {
            if (s.recommendedTimeoutSec() == null) {
                boolean timedOut = s.representative().outcome() == Outcome.TIMEOUT;
                b.append("# ").append(s.name()).append(": no recommendation, it did not start (")
                        .append(s.representative().outcomeText()).append(timedOut
                                ? "); probe again with a longer --timeout to see how long it needs\n"
                                : "); fix it and probe again\n");
                continue;
            }
            max = Math.max(max, s.recommendedTimeoutSec());
            b.append("[mcp_servers.").append(tomlKey(s.name())).append("]\n")
                    .append("startup_timeout_sec = ").append(s.recommendedTimeoutSec());
            long configured = s.representative().timeoutMs();
            if (configured < s.recommendedTimeoutSec() * 1000L) {
                b.append("  # was ").append(Handshake.seconds(java.time.Duration.ofMillis(configured)))
                        .append(": too tight for what was observed");
            }
            b.append('\n');
        }
        if (max > 0) {
            b.append("# Claude Code: one timeout for all servers\nMCP_TIMEOUT=").append(max * 1000).append('\n');
        }
        return b.toString();
    }

    /** The share {@code kiln probe --recommend} squeezes a probe to when none was given. */
    public static final double RECOMMEND_SHARE = 0.5;

    /** The measured condition a recommendation comes from ({@code at a 0.5-CPU share}), or null when unsqueezed. */
    public @Nullable String squeeze() {
        if (cpuLimit != null) {
            return String.format(Locale.ROOT, "at a %s-CPU share (%s)", Figures.round(cpuLimit.share(), 2), cpuLimit.mechanism());
        }
        return cpus.isEmpty() ? null : "pinned to CPU " + cpus;
    }

    private static String tomlKey(String name) {
        return name.matches("[A-Za-z0-9_-]+") ? name : "\"" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** The report as JSON: {@code {"servers": [...], "summary": {...}, "runs": [...]}}. */
    public ObjectNode toJson() {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode servers = root.putArray("servers");
        for (ServerSummary s : servers()) {
            ObjectNode n = result(servers.addObject(), s.representative());
            // The representative run's conversation only: one per server keeps a saved run small (64 KiB of stderr each).
            n.set("conversation", conversationJson(s.representative().conversation()));
            n.put("runs", s.runs());
            n.put("ok_runs", s.okRuns());
            putMs(n, "initialize_ms_median", s.initializeMsMedian());
            putMs(n, "initialize_ms_max", s.initializeMsMax());
            if (s.recommendedTimeoutSec() == null) {
                n.putNull("recommended_timeout_sec");
            } else {
                n.put("recommended_timeout_sec", s.recommendedTimeoutSec());
            }
        }
        ObjectNode summary = root.putObject("summary");
        summary.put("started_at", startedAt.toString());
        summary.put("servers", servers().size());
        summary.put("repeat", repeat);
        summary.put("cpus", cpus);
        summary.put("bytecode", bytecode.label());
        ServerSummary slowest = slowest();
        Double slowestMs = slowest == null ? null : slowest.initializeMsMax(); // slowest() picks one that has it
        if (slowest == null || slowestMs == null) {
            summary.putNull("slowest");
            summary.putNull("margin");
        } else {
            summary.putObject("slowest").put("name", slowest.name()).put("initialize_ms", round(slowestMs));
            summary.put("margin", round(slowest.representative().timeoutMs() / slowestMs));
        }
        summary.put("over_timeout", overTimeout());
        summary.put("failed", failed());
        summary.put("handshake", handshake.label());
        summary.put("recommendation_condition", squeeze());
        if (cpuLimit == null) {
            summary.putNull("cpu_share");
        } else {
            ObjectNode c = summary.putObject("cpu_share");
            c.put("share", cpuLimit.share());
            c.put("mechanism", cpuLimit.mechanism());
            c.put("group", cpuLimit.group());
            putMs(c, "cpu_ms", cpuLimit.cpuMs());
            if (cpuLimit.cpuPerWall() == null) {
                c.putNull("cpu_per_wall");
            } else {
                c.put("cpu_per_wall", Math.round(cpuLimit.cpuPerWall() * 1000) / 1000.0);
            }
            c.put("description", cpuLimit.description());
        }
        ArrayNode runs = root.putArray("runs");
        for (ServerResult r : results) {
            result(runs.addObject(), r).put("run", r.run());
        }
        return root;
    }

    private static ObjectNode result(ObjectNode n, ServerResult r) {
        n.put("name", r.name());
        n.put("transport", r.transport().label());
        n.put("outcome", r.outcomeText());
        n.put("reason", r.reason());
        n.put("protocol_version", r.protocolVersion());
        putMs(n, "initialize_ms", r.initializeMs());
        putMs(n, "tools_ms", r.toolsMs());
        if (r.tools() < 0) {
            n.putNull("tools");
        } else {
            n.put("tools", r.tools());
        }
        n.put("timeout_ms", r.timeoutMs());
        if (r.exitCode() != null) {
            n.put("exit_code", r.exitCode());
        }
        ObjectNode t = n.putObject("timeline");
        Timeline tl = r.timeline();
        putMs(t, "spawn", tl.spawnMs());
        putMs(t, "first_stdout", tl.firstStdoutMs());
        putMs(t, "first_stderr", tl.firstStderrMs());
        putMs(t, "initialized", tl.initializedMs());
        putMs(t, "tools_listed", tl.toolsListedMs());
        putMs(t, "exit", tl.exitMs());
        putMs(t, "fetch_end", tl.fetchEndMs());
        n.put("revision", r.protocolVersion() == null ? null
                : Handshake.MODERN.equals(r.protocolVersion()) ? "server/discover" : "initialize");
        Phase.Attribution a = attribution(r);
        ObjectNode ph = n.putObject("phases");
        putMs(ph, "fetch_ms", a.fetchMs());
        putMs(ph, "before_first_output_ms", a.startMs());
        putMs(ph, "first_output_to_answer_ms", a.workMs());
        ph.put("bound", a.bound().label());
        ph.put("explanation", a.explain());
        FetchPhase f = r.fetch();
        if (f == null) {
            n.putNull("fetch");
        } else {
            ObjectNode fj = n.putObject("fetch");
            fj.put("launcher", f.launcher().name().toLowerCase(Locale.ROOT));
            fj.put("runtime", f.launcher().runtime().label());
            fj.put("fetches", f.launcher().fetches());
            putMs(fj, "fetch_ms", f.fetchMs());
            fj.put("downloaded", f.downloaded().label());
            fj.put("evidence", f.evidence());
        }
        ArrayNode tail = n.putArray("stderr_tail");
        r.stderrTail().forEach(tail::add);
        return n;
    }

    /** A conversation as a saved run (and the wire) holds it: see {@link Conversation}. */
    public static ObjectNode conversationJson(Conversation c) {
        ObjectNode n = JSON.createObjectNode();
        ArrayNode messages = n.putArray("messages");
        for (Conversation.Message m : c.messages()) {
            ObjectNode j = messages.addObject();
            j.put("direction", m.direction().label());
            j.put("method", m.method());
            j.put("id", m.id());
            j.put("at_ms", Figures.round(m.atMs(), 3));
            j.put("json", m.json());
            j.put("clipped", m.clipped());
        }
        n.put("messages_dropped", c.messagesDropped());
        n.put("stderr", c.stderr());
        n.put("stderr_bytes", c.stderrBytes());
        n.put("stderr_truncated", c.stderrTruncated());
        return n;
    }

    /** A conversation read back from {@link #conversationJson}; {@link Conversation#NONE} when absent (an older file). */
    public static Conversation conversation(com.fasterxml.jackson.databind.JsonNode n) {
        if (n == null || !n.isObject()) {
            return Conversation.NONE;
        }
        List<Conversation.Message> messages = new java.util.ArrayList<>();
        for (com.fasterxml.jackson.databind.JsonNode m : n.path("messages")) {
            Conversation.Direction d;
            try {
                d = Conversation.Direction.of(m.path("direction").asText("received"));
            } catch (IllegalArgumentException e) {
                continue; // a direction a newer Kiln knows: left out rather than misread
            }
            messages.add(new Conversation.Message(d, m.path("method").isTextual() ? m.path("method").asText() : null,
                    m.path("id").isTextual() ? m.path("id").asText() : null, m.path("at_ms").asDouble(),
                    m.path("json").asText(""), m.path("clipped").asBoolean(false)));
        }
        return new Conversation(messages, n.path("messages_dropped").asInt(0), n.path("stderr").asText(""),
                n.path("stderr_bytes").asLong(0), n.path("stderr_truncated").asBoolean(false));
    }

    /** Where {@code r}'s time went, with the advice of its launcher's runtime. */
    static Phase.Attribution attribution(ServerResult r) {
        return r.fetch() == null ? Phase.attribute(r.timeline(), Launcher.OTHER)
                : Phase.attribute(r.timeline(), r.fetch().launcher(), r.fetch().downloaded());
    }

    private static void putMs(ObjectNode n, String field, @Nullable Double ms) {
        if (ms == null) {
            n.putNull(field);
        } else {
            n.put(field, round(ms));
        }
    }

    private static double round(double v) {
        return Figures.round(v, 1);
    }

    /** A fixed-width table for terminals: one line per server. */
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-22s %-6s %-15s %10s %10s %6s %8s %8s  %s%n", "SERVER", "VIA", "OUTCOME",
                "INIT ms", "TOOLS ms", "TOOLS", "PROTOCOL", "TIMEOUT", "REASON"));
        for (ServerSummary s : servers()) {
            ServerResult r = s.representative();
            b.append(String.format(Locale.ROOT, "%-22s %-6s %-15s %10s %10s %6s %8s %8s  %s%n", clip(s.name(), 22),
                    r.transport().label(), r.outcomeText() + (s.runs() > 1 ? " " + s.okRuns() + "/" + s.runs() : ""),
                    ms(s.initializeMsMedian() != null ? s.initializeMsMedian() : r.initializeMs()), ms(r.toolsMs()),
                    r.tools() < 0 ? "-" : Integer.toString(r.tools()),
                    r.protocolVersion() == null ? "-" : r.protocolVersion().substring(2),
                    Handshake.seconds(java.time.Duration.ofMillis(r.timeoutMs())).replace(" ", ""), r.reason()));
            if (r.outcome() != Outcome.OK && !r.stderrTail().isEmpty()) {
                int from = Math.max(0, r.stderrTail().size() - 5);
                for (String line : r.stderrTail().subList(from, r.stderrTail().size())) {
                    b.append("    stderr| ").append(line).append('\n');
                }
            }
        }
        return b.toString();
    }

    /**
     * Where each server's time to its answer went (its representative run): before its first output (imports) or
     * after it (work before answering), saying plainly where precompiling cannot help.
     */
    public String whereTheTimeGoes() {
        StringBuilder b = new StringBuilder("where the time goes (fetch: spawn → the launcher's hand-off | start: → first"
                + " output | work: first output → answer):\n");
        b.append(String.format(Locale.ROOT, "  %-22s %9s | %9s | %-9s%n", "SERVER", "FETCH", "START", "WORK"));
        for (ServerSummary s : servers()) {
            ServerResult r = s.representative();
            Phase.Attribution a = attribution(r);
            String fetch = a.fetchMs() != null ? ms(a.fetchMs())
                    : r.fetch() != null && r.fetch().launcher().fetches() ? "unknown" : "-";
            b.append(String.format(Locale.ROOT, "  %-22s %9s | %9s | %-9s %s%n", clip(s.name(), 22), fetch, ms(a.startMs()),
                    ms(a.workMs()), a.explain()));
            if (r.fetch() != null && r.fetch().launcher().fetches()) {
                b.append("  ").append(" ".repeat(22)).append(" fetch: ").append(r.fetch().explain()).append('\n');
            }
        }
        return b.toString();
    }

    private static String ms(@Nullable Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String clip(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n - 1) + "…";
    }
}
