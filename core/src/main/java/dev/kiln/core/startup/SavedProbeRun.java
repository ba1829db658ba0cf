package dev.kiln.core.startup;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A saved probe run read back: the file {@code observer/probes/probe-*.json} ({@link ProbeRuns}) and the API's
 * {@code GET probe/runs/{id}}, which serves that file as stored. {@link ProbeReport#toJson()} writes the format and
 * {@link #fromJson} is its one reader, so the console, the health verdict and the remote engine read fields, not JSON
 * paths. Immutable. A field a file of an older Kiln lacks reads as null, empty or {@link Conversation#NONE}, never as a
 * guess; a file that is not a probe run at all is an {@link IllegalArgumentException} naming where it came from.
 *
 * @param summary the run's summary
 * @param servers one entry per server (its representative run and its figures over all runs), in config order
 * @param runs every server's result in every run, run by run
 */
public record SavedProbeRun(Summary summary, List<Server> servers, List<Result> runs) {

    public SavedProbeRun {
        servers = List.copyOf(servers);
        runs = List.copyOf(runs);
    }

    /**
     * A run's {@code summary}.
     *
     * @param startedAt when the probe started, or null when the file does not say
     * @param servers how many servers it probed
     * @param repeat how many runs
     * @param cpus the CPU list servers were pinned to ({@code ""}: not pinned)
     * @param bytecode the bytecode mode's label
     * @param slowest the slowest ok server, or null when none was ok
     * @param margin the slowest server's timeout over its time, or null
     * @param overTimeout servers that missed their timeout in some run
     * @param failed servers that did not start in some run, for any reason (the timeouts included)
     * @param handshake which revision was asked first ({@link HandshakeOrder#label()})
     * @param recommendationCondition the squeeze a recommendation comes from, or null when the run was not squeezed
     * @param cpuShare the CPU share the servers ran under, or null
     */
    public record Summary(@Nullable Instant startedAt, int servers, int repeat, String cpus, String bytecode,
            @Nullable Slowest slowest, @Nullable Double margin, long overTimeout, long failed, String handshake,
            @Nullable String recommendationCondition, @Nullable CpuShare cpuShare) {
        /** Whether the run was squeezed (a CPU share or pinned CPUs): only then does it recommend a timeout. */
        public boolean squeezed() {
            return recommendationCondition != null || cpuShare != null || !cpus.isEmpty();
        }
    }

    /** The slowest ok server and its slowest spawn → answer. */
    public record Slowest(String name, double initializeMs) {
    }

    /**
     * The CPU share a run was held to ({@link ProbeReport.CpuLimit} as saved).
     *
     * @param share CPUs
     * @param mechanism how it was enforced
     * @param group the group's name
     * @param cpuMs CPU time the group used, or null
     * @param cpuPerWall CPU time per wall second, or null
     * @param description one line for people
     */
    public record CpuShare(double share, String mechanism, String group, @Nullable Double cpuMs, @Nullable Double cpuPerWall,
            String description) {
        /** {@code 0.5 CPU via cgroup v2}: the share as few digits as it needs, and how it was held. */
        public String text() {
            return (share == Math.rint(share) ? Long.toString((long) share) : Double.toString(share)) + " CPU via " + mechanism;
        }
    }

    /**
     * Where a run's time went ({@link Phase.Attribution} as saved).
     *
     * @param fetchMs a fetching launcher's phase, or null
     * @param beforeFirstOutputMs spawn → first output, or null
     * @param firstOutputToAnswerMs first output → answer, or null
     * @param bound what bound it ({@link Phase.Bound#label()}), or empty
     * @param explanation one line for people, or empty
     */
    public record Phases(@Nullable Double fetchMs, @Nullable Double beforeFirstOutputMs, @Nullable Double firstOutputToAnswerMs,
            String bound, String explanation) {
        static final Phases NONE = new Phases(null, null, null, "", "");
    }

    /**
     * A fetching launcher's phase ({@link FetchPhase} as saved).
     *
     * @param launcher the launcher; {@link Launcher#OTHER} when this Kiln does not know the one saved
     * @param runtime its runtime's label
     * @param fetches whether it fetches before the server runs
     * @param fetchMs how long the fetch took, or null when unknown
     * @param downloaded whether it downloaded ({@code yes}, {@code no}, {@code unknown})
     * @param evidence what that is judged from
     */
    public record Fetch(Launcher launcher, String runtime, boolean fetches, @Nullable Double fetchMs, String downloaded,
            String evidence) {
        /** {@code fetch: 840 ms, downloaded yes (…)} for a fetching launcher; empty otherwise. */
        public String note() {
            return fetches ? "fetch: " + (fetchMs == null ? "unknown" : String.format(Locale.ROOT, "%.0f ms", fetchMs))
                    + ", downloaded " + downloaded + " (" + evidence + ")" : "";
        }
    }

    /**
     * One server's result in one run.
     *
     * @param name the server
     * @param transport its transport's label
     * @param outcome {@code ok}, {@code timeout}, {@code exited(1)}, …
     * @param reason why it did not start, or empty
     * @param protocolVersion the revision that answered, or null
     * @param initializeMs spawn → answer, or null
     * @param toolsMs spawn → last tools page, or null
     * @param tools how many tools, or -1
     * @param timeoutMs the startup timeout it was held to
     * @param exitCode its exit code, or null
     * @param timeline when each step happened
     * @param phases where its time went
     * @param fetch its launcher's fetch phase, or null
     * @param stderrTail the last lines of its stderr
     * @param run which run (from 1); 0 for a server's representative entry
     */
    public record Result(String name, String transport, String outcome, String reason, @Nullable String protocolVersion,
            @Nullable Double initializeMs, @Nullable Double toolsMs, int tools, long timeoutMs, @Nullable Integer exitCode,
            Timeline timeline, Phases phases, @Nullable Fetch fetch, List<String> stderrTail, int run) {
        public Result {
            stderrTail = List.copyOf(stderrTail);
        }
    }

    /**
     * One server over all runs.
     *
     * @param representative the run shown: the first failed one if any failed, else the median one
     * @param conversation the representative run's own messages and stderr ({@link Conversation#NONE} in an older file)
     * @param runs how many runs
     * @param okRuns how many ended ok
     * @param initializeMsMedian median spawn → answer over ok runs, or null
     * @param initializeMsMax slowest spawn → answer over ok runs, or null
     * @param recommendedTimeoutSec the startup timeout to configure, or null
     */
    public record Server(Result representative, Conversation conversation, int runs, int okRuns,
            @Nullable Double initializeMsMedian, @Nullable Double initializeMsMax, @Nullable Integer recommendedTimeoutSec) {
        public String name() {
            return representative.name();
        }

        /** The median over ok runs, else the representative run's own time; null when it never answered. */
        public @Nullable Double initializeMs() {
            return initializeMsMedian != null ? initializeMsMedian : representative.initializeMs();
        }
    }

    /** The server named {@code name}, if the run probed it. */
    public Optional<Server> server(String name) {
        return servers.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** A fresh report as it will read back once saved (the same reader as a saved run's). */
    public static SavedProbeRun of(ProbeReport report) {
        return fromJson(report.toJson(), "the probe's report");
    }

    /**
     * Reads a probe run's JSON, as {@link ProbeReport#toJson()} writes it.
     *
     * @param source where it came from, for the error (a file, a route)
     * @throws IllegalArgumentException when {@code json} is not a probe run (no {@code summary} or {@code servers})
     */
    public static SavedProbeRun fromJson(JsonNode json, String source) {
        if (json == null || !json.isObject() || !json.path("summary").isObject() || !json.path("servers").isArray()) {
            throw new IllegalArgumentException(source + " is not a saved probe run (it has no summary object and servers"
                    + " array); was it written by kiln probe?");
        }
        JsonNode s = json.path("summary");
        JsonNode slow = s.path("slowest");
        JsonNode share = s.path("cpu_share");
        Summary summary = new Summary(instant(s.path("started_at")), s.path("servers").asInt(json.path("servers").size()),
                s.path("repeat").asInt(1), s.path("cpus").asText(""), s.path("bytecode").asText(""),
                slow.isObject() ? new Slowest(slow.path("name").asText(), slow.path("initialize_ms").asDouble()) : null,
                number(s.path("margin")), s.path("over_timeout").asLong(), s.path("failed").asLong(),
                s.path("handshake").asText(HandshakeOrder.INITIALIZE_FIRST.label()),
                s.path("recommendation_condition").isTextual() ? s.path("recommendation_condition").asText() : null,
                share.isObject() ? new CpuShare(share.path("share").asDouble(), share.path("mechanism").asText(""),
                        share.path("group").asText(""), number(share.path("cpu_ms")), number(share.path("cpu_per_wall")),
                        share.path("description").asText("")) : null);
        List<Server> servers = new ArrayList<>();
        for (JsonNode n : json.path("servers")) {
            servers.add(new Server(result(n), ProbeReport.conversation(n.path("conversation")), n.path("runs").asInt(1),
                    n.path("ok_runs").asInt(0), number(n.path("initialize_ms_median")), number(n.path("initialize_ms_max")),
                    n.path("recommended_timeout_sec").isNumber() ? n.path("recommended_timeout_sec").asInt() : null));
        }
        List<Result> runs = new ArrayList<>();
        for (JsonNode n : json.path("runs")) {
            runs.add(result(n));
        }
        return new SavedProbeRun(summary, servers, runs);
    }

    private static Result result(JsonNode n) {
        JsonNode t = n.path("timeline");
        JsonNode p = n.path("phases");
        JsonNode f = n.path("fetch");
        Fetch fetch = null;
        if (f.isObject()) {
            Launcher launcher = Launcher.OTHER;
            try {
                launcher = Launcher.valueOf(f.path("launcher").asText("other").toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                // a launcher a newer Kiln knows: no advice rather than wrong advice
            }
            fetch = new Fetch(launcher, f.path("runtime").asText(""), f.path("fetches").asBoolean(false),
                    number(f.path("fetch_ms")), f.path("downloaded").asText("unknown"), f.path("evidence").asText(""));
        }
        List<String> tail = new ArrayList<>();
        n.path("stderr_tail").forEach(l -> tail.add(l.asText()));
        return new Result(n.path("name").asText(), n.path("transport").asText(""), n.path("outcome").asText(""),
                n.path("reason").asText(""), n.path("protocol_version").isTextual() ? n.path("protocol_version").asText() : null,
                number(n.path("initialize_ms")), number(n.path("tools_ms")), n.path("tools").isNumber() ? n.path("tools").asInt() : -1,
                n.path("timeout_ms").asLong(), n.path("exit_code").isNumber() ? n.path("exit_code").asInt() : null,
                new Timeline(number(t.path("spawn")), number(t.path("first_stdout")), number(t.path("first_stderr")),
                        number(t.path("initialized")), number(t.path("tools_listed")), number(t.path("exit")),
                        number(t.path("fetch_end"))),
                p.isObject() ? new Phases(number(p.path("fetch_ms")), number(p.path("before_first_output_ms")),
                        number(p.path("first_output_to_answer_ms")), p.path("bound").asText(""), p.path("explanation").asText(""))
                        : Phases.NONE,
                fetch, tail, n.path("run").asInt(0));
    }

    static @Nullable Double number(JsonNode n) {
        return n.isNumber() ? n.asDouble() : null;
    }

    static @Nullable Instant instant(JsonNode n) {
        if (!n.isTextual()) {
            return null;
        }
        try {
            return Instant.parse(n.asText());
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
