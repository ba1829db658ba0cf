package dev.kiln.ui.startup;

import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.engine.ProbeRequest;
import dev.kiln.core.engine.SavedRun;
import dev.kiln.core.startup.BytecodeMode;
import dev.kiln.core.startup.BytecodeReport;
import dev.kiln.core.startup.Conversation;
import dev.kiln.core.startup.ProbeEvent;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.SavedProbeRun;
import dev.kiln.core.startup.SavedSweep;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.util.Background;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Startup page: the workspace's MCP servers started all at once, as an agent client does at session start,
 * drawn live as timelines against their startup timeout; the probe's verdict and the config lines to paste; and the
 * bytecode audit and precompile of a Python server.
 */
public final class StartupViewModel {
    private final Engine engine;
    private final Background background;
    private final ObservableList<ServerConfig> servers = FXCollections.observableArrayList();
    private final ObservableList<Lane> lanes = FXCollections.observableArrayList();
    private final StringProperty timeoutSeconds = new SimpleStringProperty("");
    private final StringProperty cpus = new SimpleStringProperty("");
    private final BooleanProperty coldBytecode = new SimpleBooleanProperty(false);
    private final ReadOnlyBooleanWrapper probing = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyObjectWrapper<ProbeReport> report = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper verdict = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper configLines = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper bytecode = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private volatile Action<ProbeReport> running;
    private final ObservableList<SavedRun> savedRuns = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper shownRun = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper empty = new ReadOnlyBooleanWrapper(true);
    private final ObservableList<Row> rows = FXCollections.observableArrayList();
    private final ObservableList<Delta> comparison = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper comparisonTitle = new ReadOnlyStringWrapper("");
    private final ReadOnlyObjectWrapper<SavedSweep> sweep = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper phases = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper sinceLastRun = new ReadOnlyStringWrapper("");
    /** People's names of the saved runs by id ({@code Tue 1 Dec 20:45 · 24 servers · 3 over}); set before the list. */
    private final java.util.Map<String, String> runNames = new java.util.concurrent.ConcurrentHashMap<>();
    /** Each server's conversation in the shown run, by name. */
    private final java.util.Map<String, Conversation> conversations = new java.util.HashMap<>();
    private final StringProperty selectedServer = new SimpleStringProperty("");
    private final ReadOnlyObjectWrapper<Conversation> selectedConversation = new ReadOnlyObjectWrapper<>(Conversation.NONE);
    /** How many saved runs get a name with their counts (each is a document to read; older ones show their time only). */
    static final int NAMED_RUNS = 20;
    private static final java.time.format.DateTimeFormatter RUN_TIME = java.time.format.DateTimeFormatter
            .ofPattern("EEE d MMM HH:mm", java.util.Locale.ENGLISH);
    private final java.time.ZoneId zone;

    /**
     * One server of the shown run, as the results table lists it (from a fresh report or a saved run's JSON alike).
     *
     * @param server the server
     * @param outcome ok, timeout, exited(1), …
     * @param initializeMs median spawn → answer, or null
     * @param tools how many tools, or -1
     * @param protocol the revision that answered, or "–"
     * @param recommendSec the startup timeout to configure, or null
     * @param why the reason, or where its time went
     */
    public record Row(String server, String outcome, Double initializeMs, int tools, String protocol, Integer recommendSec,
            String why) {
        /** A row of a run; its recommendation only when that run was squeezed (a CPU share or pinned CPUs). */
        static Row of(SavedProbeRun.Server s, boolean squeezed) {
            SavedProbeRun.Result r = s.representative();
            return new Row(s.name(), r.outcome(), s.initializeMs(), r.tools(),
                    r.protocolVersion() == null ? "–" : r.protocolVersion(), squeezed ? s.recommendedTimeoutSec() : null,
                    r.reason().isEmpty() ? r.phases().explanation() : r.reason());
        }
    }

    /**
     * One server in two saved runs.
     *
     * @param server the server
     * @param aMs its median time to the answer in run A, or null (absent or not started)
     * @param bMs the same in run B
     */
    public record Delta(String server, Double aMs, Double bMs) {
        /** B − A in ms, or null. */
        public Double deltaMs() {
            return aMs == null || bMs == null ? null : bMs - aMs;
        }

        /** The delta for people: {@code +58 % much slower (+412 ms)}, or why there is none. */
        public String text() {
            if (deltaMs() == null) {
                return aMs == null && bMs == null ? "did not start in either" : aMs == null ? "only in B" : "only in A";
            }
            return String.format(java.util.Locale.ROOT, "%+.0f %% %s (%+.0f ms)", percent(), severity().word(), deltaMs());
        }

        /** B − A as a share of A, in percent (0 when A is 0). */
        public double percent() {
            Double d = deltaMs();
            return d == null || aMs == 0 ? 0 : d / aMs * 100;
        }

        /** How bad the change is: the colour and the word of the Δ column. */
        public Severity severity() {
            if (deltaMs() == null) {
                return aMs == null ? Severity.SAME : Severity.MUCH_SLOWER; // a server that stopped starting is the worst
            }
            double p = percent();
            return p >= 50 ? Severity.MUCH_SLOWER : p >= 10 ? Severity.SLOWER : p <= -10 ? Severity.FASTER : Severity.SAME;
        }
    }

    /** A change between two runs, by how much it matters; never shown as colour alone (its word goes with it). */
    public enum Severity {
        FASTER("faster", "delta-faster"), SAME("about the same", "delta-same"), SLOWER("slower", "delta-slower"),
        MUCH_SLOWER("much slower", "delta-much-slower");

        private final String word;
        private final String style;

        Severity(String word, String style) {
            this.word = word;
            this.style = style;
        }

        public String word() {
            return word;
        }

        /** The CSS class of the Δ cell. */
        public String style() {
            return style;
        }
    }

    public StartupViewModel(Engine engine, Background background) {
        this(engine, background, java.time.ZoneId.systemDefault());
    }

    /** With the time zone saved runs are named in (tests fix it). */
    StartupViewModel(Engine engine, Background background, java.time.ZoneId zone) {
        this.engine = engine;
        this.background = background;
        this.zone = zone;
        selectedServer.addListener((o, a, b) -> selectedConversation.set(conversations.getOrDefault(b, Conversation.NONE)));
    }

    /** Re-reads {@code servers.json}; a malformed file is an error naming the file, server and field. */
    public void load() {
        background.run(engine.probes()::servers, list -> {
            servers.setAll(list);
            error.set("");
            if (lanes.isEmpty()) {
                lanes.setAll(list.stream().filter(ServerConfig::enabled).map(s -> Lane.waiting(s.name(), timeoutMs(s))).toList());
            }
            updateEmpty();
            refreshSaved(true);
        }, e -> error.set(e.getMessage()));
    }

    /** The saved runs (newest first) with their names, and the latest sweep, read together. */
    private record Saved(List<SavedRun> runs, java.util.Map<String, String> names, Optional<SavedSweep> sweep) {
    }

    /** A saved run's name for people: {@code Tue 1 Dec 20:45 · 24 servers · 3 over} (its time alone when unread). */
    public String runName(SavedRun run) {
        if (run == null) {
            return "";
        }
        return runNames.getOrDefault(run.id(), RUN_TIME.format(run.startedAt().atZone(zone)));
    }

    /** The name of a run from its document. */
    String runName(SavedRun run, SavedProbeRun saved) {
        SavedProbeRun.Summary sum = saved.summary();
        int servers = sum.servers();
        long over = sum.overTimeout();
        long failed = Math.max(0, sum.failed() - over); // "failed" counts the timeouts too
        return RUN_TIME.format(run.startedAt().atZone(zone)) + " · " + servers + (servers == 1 ? " server" : " servers")
                + (over == 0 && failed == 0 ? " · all in time" : (over > 0 ? " · " + over + " over" : "")
                        + (failed > 0 ? " · " + failed + " failed" : ""));
    }

    private java.util.Map<String, String> names(List<SavedRun> runs) {
        java.util.Map<String, String> out = new java.util.HashMap<>();
        for (SavedRun r : runs.subList(0, Math.min(NAMED_RUNS, runs.size()))) {
            try {
                out.put(r.id(), runName(r, engine.probes().run(r.id())));
            } catch (RuntimeException e) {
                out.put(r.id(), RUN_TIME.format(r.startedAt().atZone(zone)) + " · unreadable");
            }
        }
        return out;
    }

    /** Re-lists the workspace's saved runs and loads its latest sweep, in the background. */
    public void refreshSaved() {
        refreshSaved(false);
    }

    private void refreshSaved(boolean openLatest) {
        background.run(() -> {
            List<SavedRun> runs = engine.probes().runs();
            return new Saved(runs, names(runs), engine.probes().latestSweep());
        }, saved -> {
            runNames.putAll(saved.names());
            savedRuns.setAll(saved.runs());
            sweep.set(saved.sweep().orElse(null));
            if (openLatest && report.get() == null && !savedRuns.isEmpty() && shownRun.get().isEmpty() && !probing.get()) {
                showSaved(savedRuns.get(0)); // the page opens on the latest run, the CLI's included
            }
        }, e -> error.set(e.getMessage())); // a damaged run is named; the others stay usable
    }

    /** Shows a saved run (the CLI's or the console's) as lanes, results and verdict. */
    public void showSaved(SavedRun run) {
        if (run == null) {
            return;
        }
        background.run(() -> engine.probes().run(run.id()), saved -> {
            runNames.put(run.id(), runName(run, saved));
            showSaved(saved, "Saved run of " + RUN_TIME.format(run.startedAt().atZone(zone)));
            shownRun.set(run.id());
        }, e -> error.set(e.getMessage()));
    }

    private void showSaved(SavedProbeRun run, String source) {
        List<Lane> fromRun = new java.util.ArrayList<>();
        List<Row> rs = new java.util.ArrayList<>();
        StringBuilder where = new StringBuilder();
        // Only a squeezed run recommends a timeout (an unloaded run says little).
        boolean squeezed = run.summary().squeezed();
        for (SavedProbeRun.Server s : run.servers()) {
            fromRun.add(Lane.fromSaved(s));
            rs.add(Row.of(s, squeezed));
            String explanation = s.representative().phases().explanation();
            if (!explanation.isEmpty()) {
                where.append(s.name()).append(": ").append(explanation).append('\n');
            }
        }
        fromRun.sort(BAD_FIRST);
        lanes.setAll(fromRun);
        rows.setAll(rs);
        phases.set(where.toString().strip());
        sinceLastRun.set("");
        conversations.clear();
        for (SavedProbeRun.Server s : run.servers()) {
            conversations.put(s.name(), s.conversation());
        }
        selectFirstIfNone();
        SavedProbeRun.Summary sum = run.summary();
        SavedProbeRun.Slowest slowest = sum.slowest();
        SavedProbeRun.CpuShare share = sum.cpuShare();
        verdict.set(source + " · " + sum.servers() + " servers · " + sum.failed() + " failed · " + sum.overTimeout() + " over timeout"
                + (slowest != null ? String.format(java.util.Locale.ROOT, " · slowest %s %.0f ms", slowest.name(),
                        slowest.initializeMs()) : "")
                + (share != null ? " · " + share.text() : ""));
        updateEmpty();
    }

    private void updateEmpty() {
        empty.set(lanes.stream().allMatch(l -> l.spawnMs() == null));
    }

    /** Compares two saved runs server by server (the servers of either, A's first). */
    public void compare(SavedRun a, SavedRun b) {
        if (a == null || b == null) {
            error.set("Pick two saved runs to compare.");
            return;
        }
        background.run(() -> List.of(engine.probes().run(a.id()), engine.probes().run(b.id())), both -> {
            java.util.Map<String, Double> am = medians(both.get(0));
            java.util.Map<String, Double> bm = medians(both.get(1));
            java.util.LinkedHashSet<String> names = new java.util.LinkedHashSet<>(am.keySet());
            names.addAll(bm.keySet());
            comparison.setAll(names.stream().map(n -> new Delta(n, am.get(n), bm.get(n))).toList());
            comparisonTitle.set("A: " + runName(a) + "   →   B: " + runName(b));
        }, e -> error.set(e.getMessage()));
    }

    private static java.util.Map<String, Double> medians(SavedProbeRun run) {
        java.util.Map<String, Double> out = new java.util.LinkedHashMap<>();
        for (SavedProbeRun.Server s : run.servers()) {
            out.put(s.name(), s.okRuns() > 0 ? s.initializeMsMedian() : null);
        }
        return out;
    }

    private double timeoutMs(ServerConfig s) {
        Optional<Duration> forced = parseTimeout();
        return forced.or(s::startupTimeout).orElse(engine.probes().defaultStartupTimeout()).toMillis();
    }

    private Optional<Duration> parseTimeout() {
        String t = timeoutSeconds.get() == null ? "" : timeoutSeconds.get().strip();
        if (t.isEmpty()) {
            return Optional.empty();
        }
        double s = Double.parseDouble(t);
        if (s <= 0) {
            throw new IllegalArgumentException("the timeout must be positive, got " + t);
        }
        return Optional.of(Duration.ofMillis(Math.round(s * 1000)));
    }

    /** What a finished probe hands back: its report, and the run saved before it (for "since the last run"). */
    private record Probed(ProbeReport report, Optional<SavedProbeRun> previous) {
    }

    /** Starts every enabled server at once and times each to its {@code initialize} answer. */
    public void probe() {
        if (probing.get()) {
            return;
        }
        List<ServerConfig> enabled = servers.stream().filter(ServerConfig::enabled).toList();
        if (enabled.isEmpty()) {
            error.set("No enabled servers in " + engine.layout().serversFile());
            return;
        }
        Optional<Duration> timeout;
        try {
            timeout = parseTimeout();
        } catch (IllegalArgumentException e) {
            error.set("Timeout: " + (e instanceof NumberFormatException ? "'" + timeoutSeconds.get() + "' is not a number of seconds" : e.getMessage()));
            return;
        }
        ProbeRequest request = new ProbeRequest(enabled.stream().map(ServerConfig::name).toList(),
                cpus.get() == null ? "" : cpus.get().strip(), coldBytecode.get() ? BytecodeMode.COLD : BytecodeMode.AS_IS, timeout);
        String key = java.util.UUID.randomUUID().toString(); // one per click: a retried request probes once
        lanes.setAll(enabled.stream().map(s -> Lane.waiting(s.name(), timeoutMs(s))).toList());
        conversations.clear();
        selectedConversation.set(Conversation.NONE);
        sinceLastRun.set("");
        error.set("");
        verdict.set("Starting " + enabled.size() + " servers at once…");
        probing.set(true);
        shownRun.set("");
        rows.clear();
        phases.set("");
        updateEmpty();
        background.run(() -> {
            Optional<SavedProbeRun> previous = previousRun();
            Action<ProbeReport> action = engine.probes().probe(request, key);
            running = action;
            return new Probed(await(action), previous);
        }, p -> {
            running = null;
            probing.set(false);
            show(p.report(), p.previous());
            background.run(engine.probes()::runs, runs -> {
                savedRuns.setAll(runs);
                if (!runs.isEmpty()) {
                    shownRun.set(runs.get(0).id());
                }
            }, e -> error.set(e.getMessage()));
        }, e -> {
            running = null;
            probing.set(false);
            verdict.set("");
            error.set(e instanceof java.util.concurrent.CancellationException || e instanceof InterruptedException
                    ? "Probe cancelled; every server it started was ended." : "Probe failed: " + e.getMessage());
        });
    }

    /** Waits for a long action's outcome, unwrapped: its own exception, or the cancellation. */
    static <T> T await(Action<T> action) throws Exception {
        try {
            return action.result().get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof Exception x ? x : e;
        } catch (InterruptedException e) {
            action.cancel(); // the page went away: end what it started
            throw e;
        }
    }

    private Optional<SavedProbeRun> previousRun() {
        try {
            List<SavedRun> runs = engine.probes().runs();
            // Newest first: the run before this one, which is what "since the last run" means.
            return runs.isEmpty() ? Optional.empty() : Optional.of(engine.probes().run(runs.get(0).id()));
        } catch (RuntimeException e) {
            return Optional.empty(); // a damaged earlier run only loses the comparison
        }
    }

    private void show(ProbeReport r, Optional<SavedProbeRun> previous) {
        ProbeReport.ServerSummary slowest = r.slowest();
        String head = r.servers().size() + " servers · " + (r.servers().size() - r.failed()) + " ok · " + r.overTimeout() + " over timeout"
                + (slowest != null && slowest.initializeMsMedian() != null
                        ? String.format(" · slowest %s %.0f ms", slowest.name(), slowest.initializeMsMedian()) : "");
        SavedProbeRun fresh = SavedProbeRun.of(r); // read as it will be once saved: the rows of a saved run and a fresh one agree
        String compare = previous.map(p -> {
            java.util.Map<String, Double> before = medians(p);
            return medians(fresh).entrySet().stream().filter(e -> e.getValue() != null && before.get(e.getKey()) != null)
                    .map(e -> String.format("%s %.0f → %.0f ms", e.getKey(), before.get(e.getKey()), e.getValue()))
                    .collect(Collectors.joining(", "));
        }).filter(s -> !s.isEmpty()).map(s -> "\nSince the last run: " + s).orElse("");
        verdict.set(head);
        sinceLastRun.set(compare.strip());
        configLines.set(r.clientConfigLines());
        List<Row> rs = new java.util.ArrayList<>();
        StringBuilder where = new StringBuilder();
        for (SavedProbeRun.Server s : fresh.servers()) {
            rs.add(Row.of(s, fresh.summary().squeezed()));
            where.append(s.name()).append(": ").append(s.representative().phases().explanation()).append('\n');
        }
        rows.setAll(rs);
        phases.set(where.toString().strip());
        conversations.clear();
        for (ProbeReport.ServerSummary s : r.servers()) {
            conversations.put(s.name(), s.representative().conversation());
        }
        java.util.List<Lane> sorted = new java.util.ArrayList<>(lanes);
        sorted.sort(BAD_FIRST);
        lanes.setAll(sorted);
        selectFirstIfNone();
        selectedConversation.set(conversations.getOrDefault(selectedServer.get(), Conversation.NONE));
        report.set(r); // last: it is what views and tests wait on

    }

    /** Failed or late servers first (in their own order), then the rest: the red one is never below the fold. */
    static final java.util.Comparator<Lane> BAD_FIRST = java.util.Comparator.comparing(
            (Lane l) -> !l.outcome().isEmpty() && !l.outcome().equals("ok") || l.initializedMs() != null && !l.inTime() ? 0 : 1);

    private void selectFirstIfNone() {
        if (!conversations.containsKey(selectedServer.get()) && !lanes.isEmpty()) {
            selectedServer.set(lanes.get(0).server());
        }
        selectedConversation.set(conversations.getOrDefault(selectedServer.get(), Conversation.NONE));
    }

    /** The server whose conversation is shown (a lane or a row picked it). */
    public StringProperty selectedServerProperty() {
        return selectedServer;
    }

    /** The selected server's conversation in the shown run ({@link Conversation#NONE} when none was captured). */
    public ReadOnlyObjectProperty<Conversation> selectedConversationProperty() {
        return selectedConversation.getReadOnlyProperty();
    }

    /** The slowest servers' change since the run before, one line (empty for a saved run or the first probe). */
    public ReadOnlyStringProperty sinceLastRunProperty() {
        return sinceLastRun.getReadOnlyProperty();
    }

    /** A message's JSON indented for reading; as it was when it is not JSON (or was clipped). */
    public static String pretty(Conversation.Message m) {
        if (m.clipped()) {
            return m.json() + "\n… (clipped at " + Conversation.MAX_MESSAGE_CHARS / 1024 + " KiB)";
        }
        try {
            return PRETTY.writerWithDefaultPrettyPrinter().writeValueAsString(PRETTY.readTree(m.json()));
        } catch (java.io.IOException | RuntimeException e) {
            return m.json();
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper PRETTY = new com.fasterxml.jackson.databind.ObjectMapper();

    /** The conversation's stderr for reading, the cut said first. */
    public static String stderrText(Conversation c) {
        if (c.stderrBytes() == 0) {
            return "(nothing on stderr)";
        }
        String head = c.stderrTruncated() ? String.format(java.util.Locale.ROOT,
                "… truncated: the first %,d of %,d bytes are not kept (the last %d KiB are)%n", c.stderrBytes()
                        - c.stderr().getBytes(java.nio.charset.StandardCharsets.UTF_8).length, c.stderrBytes(),
                Conversation.STDERR_LIMIT_BYTES / 1024) : "";
        return head + c.stderr();
    }

    /** Ends the running probe and every process it started. */
    public void cancel() {
        Action<ProbeReport> a = running;
        if (a != null && probing.get()) {
            a.cancel();
        }
    }

    /** Takes one frame's probe events and moves the lanes. */
    public void accept(List<? extends KilnEvent> batch) {
        for (KilnEvent e : batch) {
            if (!(e instanceof ProbeEvent p)) {
                continue;
            }
            if (p instanceof ProbeEvent.Spawned s) {
                update(s.server(), l -> l.spawned(s.offsetMs()));
            } else if (p instanceof ProbeEvent.FirstOutput f) {
                update(f.server(), l -> l.firstOutput(f.offsetMs()));
            } else if (p instanceof ProbeEvent.Initialized i) {
                update(i.server(), l -> l.initialized(i.offsetMs()));
            } else if (p instanceof ProbeEvent.ToolsListed t) {
                update(t.server(), l -> l.toolsListed(t.offsetMs(), t.tools()));
            } else if (p instanceof ProbeEvent.Exited x) {
                update(x.server(), l -> l.exited(x.offsetMs()));
            } else if (p instanceof ProbeEvent.Finished f) {
                update(f.server(), l -> l.finished(f.result().outcome().label(), f.result().reason()).fetched(f.result())
                        .timeout(f.result().timeoutMs()));
                conversations.put(f.server(), f.result().conversation()); // live: a server's talk shows as it ends
                if (f.server().equals(selectedServer.get())) {
                    selectedConversation.set(f.result().conversation());
                }
            } else if (p instanceof ProbeEvent.RunStarted r && r.run() > 1) {
                lanes.replaceAll(l -> Lane.waiting(l.server(), l.timeoutMs()));
            }
        }
    }

    private void update(String server, java.util.function.UnaryOperator<Lane> step) {
        for (int i = 0; i < lanes.size(); i++) {
            if (lanes.get(i).server().equals(server)) {
                lanes.set(i, step.apply(lanes.get(i)));
                updateEmpty();
                return;
            }
        }
        // a probe this console did not start (a recording's, or another client's of the daemon): its servers get
        // lanes as their events arrive, with the engine's default timeout until their result says their own
        lanes.add(step.apply(Lane.waiting(server, engine.probes().defaultStartupTimeout().toMillis())));
        updateEmpty();
    }

    /** Counts the Python server's {@code .py} files against up-to-date bytecode for its interpreter. */
    public void audit(ServerConfig server) {
        if (server == null) {
            return;
        }
        bytecode.set("Auditing " + server.name() + "…");
        background.run(() -> engine.probes().audit(server.name()), r -> bytecode.set(describe(server.name(), r)), e -> bytecode.set(server.name() + ": " + e.getMessage()));
    }

    /** Precompiles the Python server's environment ({@code compileall}), then re-audits. */
    public void precompile(ServerConfig server) {
        if (server == null) {
            return;
        }
        bytecode.set("Precompiling " + server.name() + "…");
        String key = java.util.UUID.randomUUID().toString();
        background.run(() -> await(engine.probes().precompile(server.name(), key)), r -> bytecode.set(describe(server.name(), r.before()) + "\nafter precompile (" + String.format("%.0f ms", r.elapsedMs()) + "): "
                + counts(r.after()) + (r.exitCode() == 0 ? "" : " · compileall exited " + r.exitCode())),
                e -> bytecode.set(server.name() + ": " + e.getMessage()));
    }

    static String describe(String name, BytecodeReport r) {
        return name + " · " + r.environment().interpreter() + " (" + r.environment().cacheTag() + "): " + counts(r);
    }

    static String counts(BytecodeReport r) {
        return r.sources() + " .py · " + r.fresh() + " fresh · " + r.stale() + " stale · " + r.missing() + " missing";
    }

    public ObservableList<ServerConfig> servers() {
        return servers;
    }

    /** The workspace's saved runs, newest first (the CLI's and the console's). */
    public ObservableList<SavedRun> savedRuns() {
        return savedRuns;
    }

    /** The file name of the saved run shown, or empty (a live probe, or none). */
    public ReadOnlyStringProperty shownRunProperty() {
        return shownRun.getReadOnlyProperty();
    }

    /** True while no lane has anything to draw: the page says what to do instead of drawing placeholder bars. */
    public ReadOnlyBooleanProperty emptyProperty() {
        return empty.getReadOnlyProperty();
    }

    /** The results table of the shown run. */
    public ObservableList<Row> rows() {
        return rows;
    }

    /** The last comparison of two saved runs. */
    public ObservableList<Delta> comparison() {
        return comparison;
    }

    public ReadOnlyStringProperty comparisonTitleProperty() {
        return comparisonTitle.getReadOnlyProperty();
    }

    /** The latest saved sweep's JSON ({@code matrix}, {@code verdicts}), or null when the workspace has none. */
    public ReadOnlyObjectProperty<SavedSweep> sweepProperty() {
        return sweep.getReadOnlyProperty();
    }

    /** Where each server's time went, one line per server. */
    public ReadOnlyStringProperty phasesProperty() {
        return phases.getReadOnlyProperty();
    }

    public ObservableList<Lane> lanes() {
        return lanes;
    }

    /** Seconds; empty: each server's configured timeout (default from kiln.json, 30 s). */
    public StringProperty timeoutSecondsProperty() {
        return timeoutSeconds;
    }

    /** CPU list for {@code taskset} (e.g. {@code 0}); empty: no pinning. */
    public StringProperty cpusProperty() {
        return cpus;
    }

    /** Start Python servers with no usable bytecode, every run. */
    public BooleanProperty coldBytecodeProperty() {
        return coldBytecode;
    }

    public ReadOnlyBooleanProperty probingProperty() {
        return probing.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<ProbeReport> reportProperty() {
        return report.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty verdictProperty() {
        return verdict.getReadOnlyProperty();
    }

    /** Client config lines with the recommended startup timeouts, to paste. */
    public ReadOnlyStringProperty configLinesProperty() {
        return configLines.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty bytecodeProperty() {
        return bytecode.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    public String serversFile() {
        return engine.layout().serversFile().toString();
    }
}
