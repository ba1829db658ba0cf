package dev.kiln.ui.seeds;

import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmPlan;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.store.StoreEvent;
import dev.kiln.core.store.StoreStatus;
import dev.kiln.core.store.Transfer;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.util.Background;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Seeds page: every target's state (fresh / stale / never warmed / failed, with the reason), the warm history
 * and its chart, and the actions: plan (a dry run that writes nothing), warm one target, "warm all stale" (each stale
 * or never-warmed target in turn), all with uv's output streaming live and cancellable; and whether uv can run at all.
 *
 * <p>Beside each seed, its place against the workspace's object store (local only, in the store, both, differing, no
 * store, unreachable) and push / pull of the selected target, through the engine: an attached console has the daemon
 * do them on its own host.
 *
 * <p>Concurrency: FX thread only; the engine is asked in {@link Background} work, and a warm's output arrives as
 * events. The running action is read by {@link #cancel()} on the FX thread and set by the background work, hence
 * volatile.
 */
public final class SeedsViewModel {
    /** uv output lines kept for the running warm. */
    public static final int OUTPUT_LINES = 500;
    /** Warms the history chart shows, the latest ones. */
    public static final int CHART_WARMS = 30;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("MM-dd HH:mm").withZone(ZoneId.systemDefault());
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    /**
     * One bar of the warm-history chart.
     *
     * @param label its place on the axis (the finish time, made unique)
     * @param seconds how long the warm took
     * @param outcome how it ended (the bar's colour)
     * @param target the target
     * @param message what happened
     */
    public record WarmBar(String label, double seconds, WarmOutcome outcome, String target, String message) {
    }

    private final Engine engine;
    private final Background background;
    private final ObservableList<TargetRow> rows = FXCollections.observableArrayList();
    private final ObservableList<WarmResult> history = FXCollections.observableArrayList();
    private final ObservableList<WarmBar> bars = FXCollections.observableArrayList();
    private final ObservableList<String> output = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper uvProblem = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper seedsDir = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper runProgress = new ReadOnlyStringWrapper("");
    private final ReadOnlyDoubleWrapper runFraction = new ReadOnlyDoubleWrapper(0);
    private final ReadOnlyBooleanWrapper warming = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyBooleanWrapper anyWantsWarm = new ReadOnlyBooleanWrapper(false);
    private List<SeedInfo> seeds = List.of();
    private List<WarmResult> journal = List.of();
    /** Per target, where the running warm (or warm-all) stands for it. */
    private final Map<String, String> progress = new HashMap<>();
    private final Map<String, Integer> lines = new HashMap<>();
    private final ArrayDeque<String> queue = new ArrayDeque<>();
    private String active; // the target warming now, or null
    private int runTotal;
    private int runDone;
    private volatile Action<WarmResult> running;
    private volatile boolean cancelled;
    // --- the object store: its state per target (read after the seeds, it asks the store) and push / pull
    private Optional<StoreStatus> store = Optional.empty();
    private String storeReadError = "";
    private boolean storeRead;
    private final ReadOnlyBooleanWrapper storeConfigured = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyBooleanWrapper transferring = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyStringWrapper storeSummary = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper storeTrouble = new ReadOnlyBooleanWrapper(false);
    private String transferTarget; // the target this page pushes or pulls now, or null
    private ServerSeedsViewModel servers; // the server seeds' pane, once made: told when a store event arrives

    public SeedsViewModel(Engine engine, Background background) {
        this.engine = engine;
        this.background = background;
    }

    /** What one refresh reads: the seeds, the journal, and why uv cannot run (empty when it can). */
    private record Read(List<SeedInfo> seeds, List<WarmResult> history, String uvProblem) {
    }

    /** Re-reads the seeds, the warm journal and uv's availability in the background. */
    public void refresh() {
        background.run(() -> {
            List<SeedInfo> s = engine.seeds().list();
            return new Read(s, engine.seeds().history(), uvProblem(s));
        }, r -> {
            seeds = r.seeds();
            journal = r.history();
            uvProblem.set(r.uvProblem());
            r.seeds().stream().findFirst().map(x -> x.seedDir().getParent()).ifPresent(d -> seedsDir.set(d.toString()));
            List<WarmResult> newestFirst = new ArrayList<>(journal);
            Collections.reverse(newestFirst);
            history.setAll(newestFirst);
            bars.setAll(bars(journal, CHART_WARMS));
            rebuildRows();
            refreshStore();
        }, e -> error.set("Could not read the seeds: " + e.getMessage()));
    }

    /** Asks the engine where each seed is against the store (the engine asks the store: one request per target). */
    public void refreshStore() {
        background.run(engine.store()::status, s -> {
            store = s;
            storeReadError = "";
            storeRead = true;
            storeChanged();
        }, e -> {
            storeReadError = "the store's state could not be read: " + e.getMessage();
            storeRead = true;
            storeChanged();
        });
    }

    private void storeChanged() {
        storeConfigured.set(store.isPresent());
        if (!storeReadError.isEmpty()) {
            storeSummary.set("✕ " + storeReadError);
            storeTrouble.set(true);
        } else if (store.isEmpty()) {
            storeSummary.set("○ No object store: kiln.json names none, so seeds stay on this host (see README, \"Caches that travel\")");
            storeTrouble.set(false);
        } else {
            StoreStatus s = store.get();
            storeSummary.set(s.problem().map(p -> "✕ Store " + s.store() + " unreachable: " + p)
                    .orElse("Store " + s.store() + " · " + s.stats().pushes() + " pushed, " + s.stats().pulls() + " pulled, "
                            + s.stats().failures() + " failed since the engine started"));
            storeTrouble.set(s.problem().isPresent());
        }
        rebuildRows();
    }

    /** The plan of the first readable target says whether uv can run here (or on the daemon's host). */
    private String uvProblem(List<SeedInfo> seeds) {
        for (SeedInfo s : seeds) {
            if (s.currentHash().isPresent()) {
                return engine.seeds().plan(s.target()).uvProblem().orElse("");
            }
        }
        return "";
    }

    private void rebuildRows() {
        Map<String, WarmResult> last = new HashMap<>();
        for (WarmResult r : journal) {
            last.put(r.target(), r); // oldest first: the last one wins
        }
        List<TargetRow> out = new ArrayList<>(seeds.size());
        for (SeedInfo s : seeds) {
            TargetRow r = row(s, Optional.ofNullable(last.get(s.target())), progress.getOrDefault(s.target(), ""));
            if (storeRead) {
                StoreState.Status st = StoreState.of(s.target(), store, storeReadError);
                r = new TargetRow(r.target(), r.state(), r.reason(), r.lockfile(), r.seeded(), r.size(), r.lastWarm(),
                        r.progress(), st.state(), st.reason());
            }
            out.add(r);
        }
        rows.setAll(out);
        anyWantsWarm.set(out.stream().anyMatch(r -> r.state().wantsWarm()));
    }

    static TargetRow row(SeedInfo s, Optional<WarmResult> last, String progress) {
        SeedState.Status st = SeedState.of(s, last);
        String lastWarm = last.map(r -> TIME.format(r.at()) + " · " + r.outcome().label() + " · " + seconds(r.duration()))
                .or(() -> s.warmedAt().map(TIME::format)).orElse("–");
        return new TargetRow(s.target(), st.state(), st.reason(), s.currentHash().map(SeedsViewModel::shortHash).orElse("–"),
                s.hash().map(SeedsViewModel::shortHash).orElse("–"),
                s.seeded() ? SeedsView.mib(s.bytes()) + " · " + s.wheels() + " wheels" : "–", lastWarm, progress);
    }

    /** The last {@code max} warms of {@code journal} (oldest first) as chart bars, labelled by finish time. */
    static List<WarmBar> bars(List<WarmResult> journal, int max) {
        List<WarmResult> tail = journal.subList(Math.max(0, journal.size() - max), journal.size());
        Map<String, Integer> seen = new LinkedHashMap<>();
        List<WarmBar> out = new ArrayList<>(tail.size());
        for (WarmResult r : tail) {
            String label = CLOCK.format(r.at());
            int n = seen.merge(label, 1, Integer::sum);
            out.add(new WarmBar(n == 1 ? label : label + " (" + n + ")", r.duration().toMillis() / 1000.0, r.outcome(), r.target(), r.message()));
        }
        return out;
    }

    private static String seconds(java.time.Duration d) {
        return String.format("%.1f s", d.toMillis() / 1000.0);
    }

    /** Takes one frame's events: uv's output of the running warm, and progress per target. */
    public void accept(List<? extends KilnEvent> batch) {
        boolean moved = false;
        boolean external = false;
        boolean stored = false;
        for (KilnEvent e : batch) {
            if (e instanceof StoreEvent s && s.phase() != StoreEvent.Phase.STARTED && transferTarget == null) {
                stored = true; // a push or pull this page did not start (the CLI's, another console's): re-read
            }
            if (e instanceof SeedEvent.WarmStarted s) {
                output.setAll("$ " + String.join(" ", s.command()));
                lines.put(s.target(), 0);
                moved |= step(s.target(), "warming…");
            } else if (e instanceof SeedEvent.WarmOutput o) {
                output.add(o.line());
                int n = lines.merge(o.target(), 1, Integer::sum);
                moved |= step(o.target(), "warming · " + n + (n == 1 ? " line" : " lines"));
            } else if (e instanceof SeedEvent.WarmFinished && !warming.get()) {
                external = true; // a warm this page did not start (the CLI's, another console's): show its outcome
            }
        }
        if (output.size() > OUTPUT_LINES) {
            output.remove(0, output.size() - OUTPUT_LINES);
        }
        if (moved) {
            rebuildRows();
        }
        if (external) {
            refresh();
        } else if (stored) {
            refreshStore();
        }
        ServerSeedsViewModel sv = servers;
        if (stored && sv != null && !sv.transferringProperty().get()) {
            sv.refreshStore(); // a server seed may have moved too (the CLI's push, another console's pull)
        }
    }

    // --- push / pull

    /** Pushes {@code target}'s seed from the engine's host to the store; progress and the result show on its row. */
    public void push(String target) {
        transfer(target, true);
    }

    /** Pulls the store's seed of {@code target} for its current lockfile onto the engine's host (atomic swap). */
    public void pull(String target) {
        transfer(target, false);
    }

    private void transfer(String target, boolean push) {
        if (target == null || warming.get() || transferring.get()) {
            return;
        }
        String verb = push ? "push" : "pull";
        transferTarget = target;
        transferring.set(true);
        error.set("");
        progress.put(target, push ? "pushing…" : "pulling…");
        message.set((push ? "Pushing " : "Pulling ") + target + (push ? " to " : " from ") + "the store…");
        rebuildRows();
        String key = UUID.randomUUID().toString(); // one per press: a retried request moves the seed once
        background.run(() -> {
            Action<Transfer> a = push ? engine.store().push(target, key) : engine.store().pull(target, key);
            try {
                return a.result().get();
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception x ? x : e;
            }
        }, t -> {
            transferTarget = null;
            transferring.set(false);
            progress.put(target, describeProgress(t));
            message.set(describe(target, t));
            refresh();
        }, e -> {
            transferTarget = null;
            transferring.set(false);
            progress.put(target, verb + " failed");
            error.set(Character.toUpperCase(verb.charAt(0)) + verb.substring(1) + " of " + target + " failed: " + e.getMessage());
            message.set("");
            refresh();
        });
    }

    /** The row's progress after a transfer: what happened and how many bytes moved. */
    static String describeProgress(Transfer t) {
        return switch (t.outcome()) {
            case PUSHED -> "pushed · " + SeedsView.mib(t.bytes());
            case PULLED -> "pulled · " + SeedsView.mib(t.bytes());
            case ALREADY_STORED -> "already stored";
            case UNCHANGED -> "unchanged";
        };
    }

    /** One line on the page for a finished transfer. */
    static String describe(String target, Transfer t) {
        String what = switch (t.outcome()) {
            case PUSHED -> "pushed " + SeedsView.mib(t.bytes()) + " to the store";
            case PULLED -> "pulled " + SeedsView.mib(t.bytes()) + " from the store and swapped it in";
            case ALREADY_STORED -> "the store already has it; nothing sent";
            case UNCHANGED -> "this host's seed is the store's copy; nothing downloaded";
        };
        return target + ": " + what + " · " + seconds(t.duration()) + " — " + t.message();
    }

    /** Whether a push or pull this page started is running. */
    public ReadOnlyBooleanProperty transferringProperty() {
        return transferring.getReadOnlyProperty();
    }

    /** Whether kiln.json names a store (push and pull have somewhere to go). */
    public ReadOnlyBooleanProperty storeConfiguredProperty() {
        return storeConfigured.getReadOnlyProperty();
    }

    /** One line about the store: where it is and its counters, that none is configured, or why it is unreachable. */
    public ReadOnlyStringProperty storeSummaryProperty() {
        return storeSummary.getReadOnlyProperty();
    }

    /** Whether the store (or the engine asked about it) could not be reached: the summary is an error. */
    public ReadOnlyBooleanProperty storeTroubleProperty() {
        return storeTrouble.getReadOnlyProperty();
    }

    /** Moves {@code target}'s progress, if it is the one warming now (a late event must not undo its outcome). */
    private boolean step(String target, String text) {
        if (!target.equals(active)) {
            return false;
        }
        progress.put(target, text);
        return true;
    }

    /** Reports what a warm of {@code target} would do; writes nothing. */
    public void plan(String target) {
        if (target == null) {
            return;
        }
        error.set("");
        background.run(() -> engine.seeds().plan(target), p -> message.set(describe(p)), e -> error.set(e.getMessage()));
    }

    static String describe(WarmPlan p) {
        String head = p.warmNeeded()
                ? p.target() + ": a warm is needed (lockfile " + shortHash(p.hash()) + ", seed "
                        + p.seededHash().map(SeedsViewModel::shortHash).orElse("none") + ")"
                : p.target() + ": the seed is current (lockfile " + shortHash(p.hash()) + "); a warm would run nothing";
        return head + (p.uvProblem().isPresent() ? " — " + p.uvProblem().get() : "") + "\n$ " + String.join(" ", p.command());
    }

    /** Warms {@code target}; uv's output arrives as events. */
    public void warm(String target) {
        if (target == null || warming.get() || transferring.get()) {
            return;
        }
        startRun(List.of(target));
    }

    /** The targets "Warm all stale" would warm now, in table order: stale and never warmed. */
    public List<String> staleTargets() {
        return rows.stream().filter(r -> r.state().wantsWarm()).map(TargetRow::target).toList();
    }

    /** Warms each stale or never-warmed target in turn; {@link #cancel()} ends the running one and skips the rest. */
    public void warmAllStale() {
        if (warming.get() || transferring.get()) {
            return;
        }
        List<String> targets = staleTargets();
        if (targets.isEmpty()) {
            message.set("Every seed is fresh or failed; nothing to warm (warm a failed one by itself once its cause is fixed).");
            return;
        }
        startRun(targets);
    }

    private void startRun(List<String> targets) {
        queue.clear();
        queue.addAll(targets);
        progress.clear();
        lines.clear();
        targets.forEach(t -> progress.put(t, "queued"));
        runTotal = targets.size();
        runDone = 0;
        cancelled = false;
        warming.set(true);
        error.set("");
        output.clear();
        rebuildRows();
        next();
    }

    private void next() {
        String target = cancelled ? null : queue.poll(); // cancelled: the queued ones stay to be marked skipped
        if (target == null) {
            finishRun();
            return;
        }
        runProgress.set(runTotal == 1 ? "Warming " + target + "…" : "Warming " + (runDone + 1) + " of " + runTotal + ": " + target + "…");
        runFraction.set(runTotal == 0 ? 0 : runDone / (double) runTotal);
        message.set(runProgress.get());
        active = target;
        progress.put(target, "starting…");
        rebuildRows();
        String key = UUID.randomUUID().toString(); // one per warm asked for: a retried request warms once
        background.run(() -> {
            Action<WarmResult> a = engine.seeds().warm(target, key);
            running = a;
            if (cancelled) {
                a.cancel(); // cancel was pressed while the request was on its way
            }
            try {
                return a.result().get();
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception x ? x : e;
            } catch (InterruptedException e) {
                a.cancel();
                throw e;
            }
        }, r -> {
            running = null;
            active = null;
            runDone++;
            progress.put(target, r.outcome().label());
            message.set(r.target() + ": " + r.outcome().label() + " in " + seconds(r.duration()) + " — " + r.message());
            if (r.outcome() == WarmOutcome.CANCELLED) {
                cancelled = true;
            }
            refresh();
            next();
        }, e -> {
            running = null;
            active = null;
            runDone++;
            boolean wasCancel = e instanceof CancellationException;
            progress.put(target, wasCancel ? "cancelled" : "failed");
            if (wasCancel) {
                cancelled = true;
            } else {
                error.set("Warm of " + target + " failed: " + e.getMessage());
            }
            refresh();
            next();
        });
    }

    private void finishRun() {
        boolean stopped = cancelled && !queue.isEmpty();
        for (String skipped : queue) {
            progress.put(skipped, "skipped (cancelled)");
        }
        queue.clear();
        warming.set(false);
        runFraction.set(1);
        runProgress.set(runTotal <= 1 ? "" : (cancelled ? "Cancelled after " : "Warmed ") + runDone + " of " + runTotal
                + (stopped ? "; the rest were skipped" : ""));
        if (runTotal > 1) {
            message.set(runProgress.get());
        }
        rebuildRows();
    }

    /** Cancels the running warm (uv's process tree is killed, the old seed stays) and skips the queued ones. */
    public void cancel() {
        if (!warming.get()) {
            return;
        }
        cancelled = true;
        Action<WarmResult> a = running;
        if (a != null) {
            a.cancel();
        }
    }

    static String shortHash(String hash) {
        return hash == null || hash.length() < 12 ? String.valueOf(hash) : hash.substring(0, 12);
    }

    /** Every target, in the engine's order. */
    public ObservableList<TargetRow> rows() {
        return rows;
    }

    /** Newest first. */
    public ObservableList<WarmResult> history() {
        return history;
    }

    /** The latest warms, oldest first, for the chart. */
    public ObservableList<WarmBar> bars() {
        return bars;
    }

    /** The running (or last) warm's command and output. */
    public ObservableList<String> output() {
        return output;
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    /** Why uv cannot run, with what to do (install it, or fix kiln.json's "uv"); empty when it can. */
    public ReadOnlyStringProperty uvProblemProperty() {
        return uvProblem.getReadOnlyProperty();
    }

    /** "Warming 2 of 3: api…" while a run goes on; how it ended afterwards. */
    public ReadOnlyStringProperty runProgressProperty() {
        return runProgress.getReadOnlyProperty();
    }

    /** Warms of the run done, as a fraction. */
    public ReadOnlyDoubleProperty runFractionProperty() {
        return runFraction.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty warmingProperty() {
        return warming.getReadOnlyProperty();
    }

    /** Whether "Warm all stale" has anything to do. */
    public ReadOnlyBooleanProperty anyWantsWarmProperty() {
        return anyWantsWarm.getReadOnlyProperty();
    }

    /** Where the seeds live, on the engine's host (known once a target is listed). */
    public ReadOnlyStringProperty seedsDirProperty() {
        return seedsDir.getReadOnlyProperty();
    }

    /** The server seeds' view model on this page's engine (ServerSeedsPane); {@code clipboard} receives copied snippets. */
    ServerSeedsViewModel serverSeeds(java.util.function.Consumer<String> clipboard) {
        ServerSeedsViewModel vm = new ServerSeedsViewModel(engine, background, clipboard);
        servers = vm;
        return vm;
    }
}
