package dev.kiln.ui.fleet;

import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.fleet.FleetActions;
import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.ui.util.Background;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;


/**
 * The Fleet page's state: every daemon of the operator's list ({@link DaemonList}), live, and the fleet-wide actions
 * run from it ({@link FleetActions}: a probe, a warm of stale seeds or the doctor on the selected daemons at once).
 *
 * <p>Polling runs in cycles: each cycle asks every daemon that is due (or due within {@link #GATHER} after it), at
 * most {@link #ASKERS} at once, each within
 * {@link #ASK_TIMEOUT} (so a dead host costs one bounded question, never the cycle), and brings all the answers to
 * the FX thread in one hop: the asking thread works out a snapshot of the whole page (each asked daemon's next row,
 * the rows shown, filtered and ordered, and the counts by verdict), and the FX thread only sets it, in one change of
 * the table's list. A daemon that answers is due again after {@link #POLL}; one that does not backs off
 * ({@link #BACKOFF_FIRST}, doubling, at most {@link #BACKOFF_MAX}, short enough that a restarted daemon is seen
 * within 5 s), shows since when and when it asks again, and comes back by itself. Rows sort by the daemon's verdict
 * (failing first) and filter by name or state. Adding, editing and removing daemons writes the list (never over a
 * file that does not read: the page says why).
 *
 * <p>Concurrency: a cycle's questions run on the shared asking pool, started from the {@link Scheduler}'s thread
 * through {@link Background} (one hop back per cycle); an action's progress arrives from its run's threads and is
 * brought to the FX thread in one hop per burst of changes. All other state is touched on the FX thread (the
 * caller's thread in tests); the timer and asking threads read only the volatile view (pollers, filter, order), rows and due times; an answer for a poller
 * that was removed or replaced meanwhile is dropped.
 */
public final class FleetViewModel implements AutoCloseable {
    /** How often a daemon that answers is asked again. */
    public static final Duration POLL = Duration.ofSeconds(2);
    /** The first retry after a failed poll; it doubles per failure. */
    public static final Duration BACKOFF_FIRST = Duration.ofSeconds(1);
    /** The longest wait between retries of a daemon that is down: a restarted one is seen within 5 s. */
    public static final Duration BACKOFF_MAX = Duration.ofSeconds(3);
    /** How long one daemon's health question may take (version and health together). */
    public static final Duration ASK_TIMEOUT = Duration.ofSeconds(2);
    /** How many daemons are asked at once. */
    public static final int ASKERS = 16;
    /**
     * A cycle also asks the daemons due within this much after it, a little early: fleet-wide, the daemons' due times
     * then fall into a few groups, so the page gets a few updates a second instead of one per daemon (50 daemons at
     * {@link #POLL} were 13–20 cycles a second, each an FX hop, a layout and a frame).
     */
    public static final Duration GATHER = Duration.ofMillis(500);

    /** When the next poll is due; the task runs on any thread and only starts a poll. */
    @FunctionalInterface
    public interface Scheduler {
        Background.Cancellable schedule(Duration delay, Runnable task);

        /** The one daemon thread of the application that does nothing but start polls (shared by every fleet). */
        static Scheduler daemonThread() {
            return (delay, task) -> {
                ScheduledFuture<?> f = SharedTimer.TIMER.schedule(task, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
                return () -> f.cancel(false);
            };
        }
    }

    /** Made on first use: a console that never shows the Fleet page starts no thread for it. */
    private static final class SharedTimer {
        static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kiln-fleet-timer");
            t.setDaemon(true);
            return t;
        });
        /** The threads that ask daemons for their health, shared by every fleet of the process; bounded. */
        static final ExecutorService ASK = new ThreadPoolExecutor(ASKERS, ASKERS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "kiln-fleet-ask");
                    t.setDaemon(true);
                    return t;
                });

        static {
            ((ThreadPoolExecutor) ASK).allowCoreThreadTimeOut(true);
        }
    }

    /** How a daemon is asked for its health: one asker per daemon, made once (it may hold a connection pool). */
    @FunctionalInterface
    public interface HealthSource {
        Asker open(DaemonEntry daemon);

        /** Asks once; blocks (off the FX thread). */
        @FunctionalInterface
        interface Asker {
            DaemonHealth health() throws Exception;
        }

        /**
         * Over the daemon's API ({@code GET /api/v1/health}, {@link ServeClient}), within {@link #ASK_TIMEOUT}: its
         * verdict is {@link DaemonHealth#verdict()}, the one {@code kiln status} and the cards show.
         */
        static HealthSource api() {
            return d -> {
                ServeClient c = d.client().withTimeout(ASK_TIMEOUT);
                return c::health;
            };
        }
    }

    private final Path listFile;
    private final Background background;
    private final Scheduler scheduler;
    private final HealthSource source;
    private final Clock clock;
    private final Consumer<DaemonEntry> opener;
    private final FleetActions actions;
    private final Map<String, Poller> pollers = new LinkedHashMap<>();
    /**
     * The rows the filter lets through, in the chosen order, changed once per cycle's snapshot: a daemon's row that
     * shows something new is updated in place (or, when its verdict moves it, removed and added alone), so the table
     * fills that row's cells anew, not every visible row's.
     */
    private final dev.kiln.ui.util.InPlaceList<FleetRow> rows = new dev.kiln.ui.util.InPlaceList<>();
    private final ReadOnlyObjectWrapper<FleetCounts> counts = new ReadOnlyObjectWrapper<>(FleetCounts.of(List.of()));
    private final ReadOnlyStringWrapper filter = new ReadOnlyStringWrapper("");
    private final ReadOnlyObjectWrapper<Sort> sort = new ReadOnlyObjectWrapper<>(Sort.HEALTH);
    /**
     * What a cycle's snapshot is made against, replaced whole on the FX thread whenever the pollers, the filter or the
     * order change; the timer's and the askers' threads read it.
     */
    private volatile View view = new View(List.of(), "", ORDER, 0);
    /** {@link #IDLE}, {@link #SCHEDULED} or {@link #ASKING}: at most one cycle at a time. */
    private final java.util.concurrent.atomic.AtomicInteger phase = new java.util.concurrent.atomic.AtomicInteger();
    private static final int IDLE = 0;
    private static final int SCHEDULED = 1;
    private static final int ASKING = 2;
    private volatile Background.Cancellable nextCycle;
    private final ReadOnlyObjectWrapper<Duration> lastCycle = new ReadOnlyObjectWrapper<>(Duration.ZERO);
    private final ObservableList<FleetActions.Progress> progress = FXCollections.observableArrayList();
    private final ReadOnlyObjectWrapper<FleetActions.Kind> actionKind = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyBooleanWrapper actionRunning = new ReadOnlyBooleanWrapper();
    private final ReadOnlyStringWrapper actionSummary = new ReadOnlyStringWrapper("");
    private volatile FleetActions.Run run;
    private final AtomicBoolean progressHop = new AtomicBoolean();
    private final javafx.collections.ObservableSet<String> chosen = FXCollections.observableSet(new java.util.LinkedHashSet<>());
    private final ReadOnlyObjectWrapper<Instant> now;
    private final ReadOnlyStringWrapper listError = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
    private final ReadOnlyObjectWrapper<String> focused = new ReadOnlyObjectWrapper<>();
    private volatile boolean closed;

    /** Failing first, then degraded, unknown, healthy; within each, down before degraded, connecting and up; by name. */
    static final Comparator<FleetRow> ORDER = Comparator.comparingInt(FleetRow::verdictRank)
            .thenComparing(FleetRow::state).thenComparing(r -> r.name().toLowerCase(Locale.ROOT));
    static final Comparator<FleetRow> BY_NAME = Comparator.comparing((FleetRow r) -> r.name().toLowerCase(Locale.ROOT));

    /** How the rows are ordered. */
    public enum Sort {
        /** The ones that need a look first (the verdict). */
        HEALTH("health"),
        /** By name. */
        NAME("name");

        private final String label;

        Sort(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /**
     * @param listFile the daemon list ({@code daemons.json}), or null for none (nothing is saved; the page says so)
     * @param opener what selecting a daemon does: open its pages
     */
    public FleetViewModel(Path listFile, Background background, Scheduler scheduler, HealthSource source,
            Clock clock, Consumer<DaemonEntry> opener) {
        this(listFile, background, scheduler, source, clock, opener, FleetActions.builder().clock(clock).build());
    }

    /** @param actions what runs the fleet-wide actions (each daemon's remote engine, by default) */
    public FleetViewModel(Path listFile, Background background, Scheduler scheduler, HealthSource source,
            Clock clock, Consumer<DaemonEntry> opener, FleetActions actions) {
        this.actions = Objects.requireNonNull(actions);
        this.listFile = listFile;
        this.background = Objects.requireNonNull(background);
        this.scheduler = Objects.requireNonNull(scheduler);
        this.source = Objects.requireNonNull(source);
        this.clock = Objects.requireNonNull(clock);
        this.opener = Objects.requireNonNull(opener);
        this.now = new ReadOnlyObjectWrapper<>(clock.instant());
    }

    /** Reads the list and starts a poller per daemon; a list that does not read is named in {@link #listErrorProperty()}. */
    public void load() {
        if (listFile == null) {
            listError.set("No daemon list: this console was started without a config directory; daemons added here"
                    + " are kept until it closes.");
            return;
        }
        try {
            sync(DaemonList.read(listFile));
            listError.set("");
        } catch (IOException e) {
            listError.set(e.getMessage());
        }
    }

    /** The daemons the filter lets through, in the chosen order (by default the ones that need a look first). */
    public ObservableList<FleetRow> rows() {
        return rows;
    }

    /** Every daemon listed, whatever the filter. */
    public List<FleetRow> allRows() {
        return pollers.values().stream().map(p -> p.row).toList();
    }

    /** The whole fleet by verdict (whatever the filter), for the page's cards; replaced once per cycle. */
    public ReadOnlyObjectProperty<FleetCounts> countsProperty() {
        return counts.getReadOnlyProperty();
    }

    /** Shows only the daemons whose name, URL or state ({@code failing}, {@code down} …) contains {@code text}. */
    public void filter(String text) {
        String f = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        filter.set(f);
        View v = view;
        view = new View(v.roster(), f, v.order(), v.version() + 1);
        reshow();
    }

    public ReadOnlyStringProperty filterProperty() {
        return filter.getReadOnlyProperty();
    }

    /** Orders the rows by {@code s}. */
    public void sort(Sort s) {
        sort.set(Objects.requireNonNull(s));
        View v = view;
        view = new View(v.roster(), v.filter(), s == Sort.NAME ? BY_NAME : ORDER, v.version() + 1);
        reshow();
    }

    public ReadOnlyObjectProperty<Sort> sortProperty() {
        return sort.getReadOnlyProperty();
    }

    /** How long the last poll cycle took, from its start to its answers on the FX thread. */
    public ReadOnlyObjectProperty<Duration> lastCycleProperty() {
        return lastCycle.getReadOnlyProperty();
    }

    // ---- fleet-wide actions ---------------------------------------------------------------------------------------

    /** The daemons chosen for the next action, by name (kept while their rows are replaced or filtered away). */
    public javafx.collections.ObservableSet<String> chosen() {
        return chosen;
    }

    /** Chooses the daemon called {@code name} for the next action, or not. */
    public void choose(String name, boolean yes) {
        if (yes) {
            chosen.add(key(name));
        } else {
            chosen.remove(key(name));
        }
    }

    /** Whether the daemon called {@code name} is chosen. */
    public boolean isChosen(String name) {
        return chosen.contains(key(name));
    }

    /** Chooses every daemon the filter shows now. */
    public void chooseShown() {
        rows.forEach(r -> chosen.add(key(r.name())));
    }

    /** Chooses none. */
    public void chooseNone() {
        chosen.clear();
    }

    /** The chosen daemons, in the order of the rows (failing first by default); ones filtered away too. */
    public List<DaemonEntry> chosenEntries() {
        List<DaemonEntry> out = new java.util.ArrayList<>();
        rows.forEach(r -> {
            if (chosen.contains(key(r.name()))) {
                out.add(r.entry());
            }
        });
        java.util.Set<String> shown = new java.util.HashSet<>();
        rows.forEach(r -> shown.add(key(r.name())));
        allRows().stream().filter(r -> chosen.contains(key(r.name())) && !shown.contains(key(r.name()))).forEach(r -> out.add(r.entry()));
        return out;
    }

    /** {@link #runAction(FleetActions.Kind, List)} on the chosen daemons. */
    public Optional<String> runAction(FleetActions.Kind kind) {
        return runAction(kind, chosenEntries());
    }

    /**
     * A probe's heat: a server's slowest answer against its timeout, in four bins (a glyph and a word beside the
     * colour, so it reads without colour too).
     */
    public enum Heat {
        COOL("✓", "< 50 %"),
        WARM("●", "50–80 %"),
        NEAR("▲", "≥ 80 %"),
        OVER("✕", "over / failed");

        private final String glyph;
        private final String legend;

        Heat(String glyph, String legend) {
            this.glyph = glyph;
            this.legend = legend;
        }

        public String glyph() {
            return glyph;
        }

        public String legend() {
            return legend;
        }

        /** The style class of its cell and legend swatch. */
        public String styleClass() {
            return "heat-" + name().toLowerCase(Locale.ROOT);
        }

        /** The bin of one server's answer. */
        public static Heat of(FleetActions.Heat h) {
            if (!h.ok() || h.share() >= 1.0) {
                return OVER;
            }
            return h.share() >= 0.8 ? NEAR : h.share() >= 0.5 ? WARM : COOL;
        }
    }

    /** A heat map cell's text: {@code "✓ 412 ms"}, {@code "▲ 8.6 s"}, {@code "✕ timeout"}. */
    public static String heatText(FleetActions.Heat h) {
        Heat bin = Heat.of(h);
        if (!h.ok()) {
            return bin.glyph() + " " + h.outcome();
        }
        double ms = h.slowestMs();
        return bin.glyph() + " " + (ms < 1000 ? Math.round(ms) + " ms" : String.format(Locale.ROOT, "%.1f s", ms / 1000));
    }

    /** The servers of the last probe's heat map, in the order first seen. */
    public List<String> heatServers() {
        java.util.LinkedHashSet<String> names = new java.util.LinkedHashSet<>();
        progress.forEach(p -> p.heat().forEach(h -> names.add(h.server())));
        return List.copyOf(names);
    }

    /** Each daemon's part in the last fleet-wide action, in the order they were given. */
    public ObservableList<FleetActions.Progress> progress() {
        return progress;
    }

    /** The last action's kind, null before the first. */
    public ReadOnlyObjectProperty<FleetActions.Kind> actionKindProperty() {
        return actionKind.getReadOnlyProperty();
    }

    /** Whether an action runs now. */
    public ReadOnlyBooleanProperty actionRunningProperty() {
        return actionRunning.getReadOnlyProperty();
    }

    /** {@code "probe on 3 daemons: 2 done, 1 failed"}. */
    public ReadOnlyStringProperty actionSummaryProperty() {
        return actionSummary.getReadOnlyProperty();
    }

    /**
     * Runs {@code kind} on {@code daemons} at once, each on its own host; progress arrives in {@link #progress()}.
     *
     * @return why not (none selected, one running already), empty when it started
     */
    public Optional<String> runAction(FleetActions.Kind kind, List<DaemonEntry> daemons) {
        if (daemons.isEmpty()) {
            return Optional.of("select the daemons to " + kind.word() + " first (Ctrl+A selects all)");
        }
        if (actionRunning.get()) {
            return Optional.of("a " + actionKind.get().word() + " runs on the fleet already; cancel it or let it finish");
        }
        actionKind.set(kind);
        actionRunning.set(true);
        FleetActions.Run r;
        try {
            r = actions.start(kind, daemons, this::progressed);
        } catch (IllegalArgumentException e) {
            actionRunning.set(false);
            return Optional.of(e.getMessage());
        }
        run = r;
        showProgress(r, r.progress());
        return Optional.empty();
    }

    /** Cancels the running action on every daemon (off the FX thread: it asks each daemon's API). */
    public void cancelAll() {
        FleetActions.Run r = run;
        if (r != null && !r.done()) {
            background.run(() -> {
                r.cancelAll();
                return r.progress();
            }, list -> showProgress(r, list), e -> message.set("cancel failed: " + e.getMessage()));
        }
    }

    /**
     * A run's change, on its thread: one hop for a burst of them. The progress is read again where it is shown: two
     * hops may arrive out of order, and the later one must not show the earlier one's reading (an ended run then
     * looked running until its next change, which never came).
     */
    private void progressed(FleetActions.Run r) {
        if (progressHop.compareAndSet(false, true)) {
            background.run(() -> {
                progressHop.set(false);
                return r;
            }, run -> showProgress(run, run.progress()), e -> { });
        }
    }

    private void showProgress(FleetActions.Run r, List<FleetActions.Progress> list) {
        if (r != run) {
            return;
        }
        progress.setAll(list);
        boolean ended = list.stream().allMatch(p -> p.state().ended());
        Map<FleetActions.State, Long> by = new java.util.EnumMap<>(FleetActions.State.class);
        list.forEach(p -> by.merge(p.state(), 1L, Long::sum));
        actionSummary.set(r.kind().word() + " on " + list.size() + (list.size() == 1 ? " daemon: " : " daemons: ")
                + String.join(", ", by.entrySet().stream().map(e -> e.getValue() + " " + e.getKey().word()).toList()));
        actionRunning.set(!ended); // last: whoever sees it end reads the summary of the end
    }

    /** The time the texts are derived against; {@link #tick()} advances it. */
    public ReadOnlyObjectProperty<Instant> nowProperty() {
        return now.getReadOnlyProperty();
    }

    /** Advances {@link #nowProperty()}: the page calls it every second, so ages and countdowns tick. */
    public void tick() {
        now.set(clock.instant());
    }

    /** Why the daemon list could not be read (it is not overwritten); empty when it was. */
    public ReadOnlyStringProperty listErrorProperty() {
        return listError.getReadOnlyProperty();
    }

    /** The outcome of the last edit, for the page. */
    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    /** The daemon the page should select (after an edit or an attach), by name. */
    public ReadOnlyObjectProperty<String> focusedProperty() {
        return focused.getReadOnlyProperty();
    }

    /** The row of {@code name}, if listed. */
    public Optional<FleetRow> row(String name) {
        Poller p = pollers.get(key(name));
        return p == null ? Optional.empty() : Optional.of(p.row);
    }

    /**
     * Adds {@code d} (when {@code oldName} is null) or puts it in place of the daemon called {@code oldName}, in the
     * list file, and polls it.
     *
     * @return why not, empty when it was saved
     */
    public Optional<String> save(String oldName, DaemonEntry d) {
        if (oldName == null && pollers.containsKey(key(d.name())) && pollers.get(key(d.name())).saved) {
            return Optional.of("a daemon is already called " + d.name() + "; pick another name, or edit that one");
        }
        try {
            if (listFile == null) {
                DaemonList l = DaemonList.of(savedEntries());
                sync(oldName == null ? l.with(d) : l.replace(oldName, d));
            } else {
                sync(DaemonList.update(listFile, l -> oldName == null ? l.with(d) : l.replace(oldName, d)));
            }
        } catch (IOException | IllegalArgumentException e) {
            return Optional.of(e.getMessage());
        }
        message.set((oldName == null ? "Added " : "Saved ") + d.name() + (listFile == null ? "" : " in " + listFile));
        focused.set(d.name());
        return Optional.empty();
    }

    /** Removes the daemon called {@code name} from the list and stops polling it; why not, empty when done. */
    public Optional<String> remove(String name) {
        Poller p = pollers.get(key(name));
        if (p != null && !p.saved) {
            stop(p);
            pollers.remove(key(name));
            rosterChanged();
            return Optional.empty();
        }
        try {
            if (listFile == null) {
                sync(DaemonList.of(savedEntries()).without(name));
            } else {
                sync(DaemonList.update(listFile, l -> l.without(name)));
            }
        } catch (IOException e) {
            return Optional.of(e.getMessage());
        }
        message.set("Removed " + name);
        return Optional.empty();
    }

    /**
     * Shows {@code d} and selects it: the listed daemon with the same URL if there is one, else {@code d} for this
     * session only (not written to the list).
     */
    public void attach(DaemonEntry d) {
        Optional<Poller> same = pollers.values().stream().filter(p -> p.entry.url().equals(d.url())).findFirst();
        if (same.isPresent()) {
            focused.set(same.get().entry.name());
            return;
        }
        if (!pollers.containsKey(key(d.name()))) {
            start(d, false);
        }
        focused.set(d.name());
    }

    /** Opens the pages of the daemon in {@code row} (the injected opener). */
    public void open(FleetRow row) {
        opener.accept(row.entry());
    }

    /**
     * On first contact with a TLS daemon without a pin: reads the fingerprint of the certificate it presents, for
     * the operator to compare with what {@code kiln serve} printed, off the FX thread; {@code then} gets it (empty
     * when there is nothing to ask: plain HTTP, a pin already set, or no certificate seen).
     */
    public void firstContact(DaemonEntry d, Consumer<Optional<String>> then) {
        if (!d.tls() || d.pin().isPresent()) {
            then.accept(Optional.empty());
            return;
        }
        background.run(() -> ServeClient.presentedFingerprint(d.url()), then, e -> then.accept(Optional.empty()));
    }

    /** Stops every poller, and the running action's threads here (its actions on the hosts go on). */
    @Override
    public void close() {
        closed = true;
        pollers.values().forEach(this::stop);
        Background.Cancellable c = nextCycle;
        if (c != null) {
            c.cancel();
        }
    }

    private java.util.List<DaemonEntry> savedEntries() {
        return pollers.values().stream().filter(p -> p.saved).map(p -> p.entry).toList();
    }

    /** Makes the pollers match {@code list}: new ones start, changed ones restart, gone ones stop. */
    private void sync(DaemonList list) {
        Map<String, DaemonEntry> want = new LinkedHashMap<>();
        list.daemons().forEach(d -> want.put(key(d.name()), d));
        for (var it = pollers.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            Poller p = e.getValue();
            DaemonEntry d = want.get(e.getKey());
            if (p.saved && (d == null || !d.equals(p.entry)) || !p.saved && d != null) {
                stop(p);
                it.remove();
            }
        }
        want.forEach((k, d) -> {
            if (!pollers.containsKey(k)) {
                pollers.put(k, new Poller(d, true, source.open(d), this::rules));
            }
        });
        rosterChanged();
    }

    private void start(DaemonEntry d, boolean saved) {
        Poller p = new Poller(d, saved, source.open(d), this::rules);
        pollers.put(key(d.name()), p);
        rosterChanged();
    }

    private void stop(Poller p) {
        p.stopped = true;
    }

    /** A poller came or went: the timer's roster follows, and a new one is asked now (not at the next cycle). */
    private void rosterChanged() {
        View v = view;
        view = new View(List.copyOf(pollers.values()), v.filter(), v.order(), v.version() + 1);
        reshow();
        if (phase.compareAndSet(SCHEDULED, IDLE)) {
            Background.Cancellable c = nextCycle;
            if (c != null) {
                c.cancel();
            }
        }
        kick();
    }

    /** Schedules the next cycle at the earliest due time, unless one is scheduled or asking; any thread. */
    private void kick() {
        kick(false);
    }

    /**
     * {@link #kick()} from where a cycle's answers arrive (the FX thread): a cycle due now is started from the timer's
     * thread too, so the FX thread only hands it over (starting it there was the page's largest share of FX time in
     * {@code kiln bench fleet --hotspots}, after the answers themselves).
     */
    private void kickLater() {
        kick(true);
    }

    private void kick(boolean viaTimer) {
        if (closed || !phase.compareAndSet(IDLE, SCHEDULED)) {
            return;
        }
        Instant now = clock.instant();
        Instant due = view.roster().stream().filter(p -> !p.stopped).map(p -> p.dueAt).min(Comparator.naturalOrder()).orElse(null);
        if (due == null) {
            phase.set(IDLE);
            return;
        }
        Duration wait = Duration.between(now, due);
        if (wait.isNegative() || wait.isZero()) {
            if (viaTimer) {
                nextCycle = scheduler.schedule(Duration.ZERO, this::cycle);
            } else {
                cycle();
            }
        } else {
            nextCycle = scheduler.schedule(wait, this::cycle);
        }
    }

    /** One cycle: every due daemon asked at once (bounded), the answers brought to the FX thread in one hop. */
    private void cycle() {
        if (!phase.compareAndSet(SCHEDULED, ASKING)) {
            return; // cancelled meanwhile: a newer schedule runs instead
        }
        if (closed) {
            phase.set(IDLE);
            return;
        }
        Instant at = clock.instant();
        long started = System.nanoTime();
        View seen = view;
        Instant until = at.plus(GATHER);
        List<Poller> due = seen.roster().stream().filter(p -> !p.stopped && !p.dueAt.isAfter(until)).toList();
        if (due.isEmpty()) {
            phase.set(IDLE);
            kick();
            return;
        }
        // A daemon that is down is expected, not a fault of the console: it comes back as a value (not logged as a
        // failed background task), once per poll.
        background.run(() -> {
            try {
                return Optional.of(snapshot(seen, due, askAll(due, clock)));
            } catch (InterruptedException e) {
                if (closed) {
                    return Optional.<Snapshot>empty(); // the console closed while it asked: nothing to show
                }
                throw e;
            }
        }, made -> {
            if (made.isEmpty()) {
                phase.set(IDLE);
                return;
            }
            Snapshot snap = made.get();
            apply(snap);
            now.set(snap.at());
            lastCycle.set(Duration.ofNanos(System.nanoTime() - started));
            phase.set(IDLE);
            kickLater(); // on the FX thread: the next cycle starts from the timer's, even when it is due now
        }, e -> {
            Exception why = e instanceof Exception x ? x : new RuntimeException(e);
            due.forEach(p -> {
                if (!p.stopped) {
                    Update u = failed(p, why, clock.instant());
                    p.row = u.row();
                    p.shown = u.row();
                    p.failures = u.failures();
                    p.dueAt = u.dueAt();
                }
            });
            reshow();
            phase.set(IDLE);
            kickLater();
        });
    }

    /**
     * What a cycle's answers make of the page, worked out on the asking thread so that the FX thread only applies it:
     * each asked daemon's next row and due time, the rows shown (filtered, ordered) and the counts by verdict.
     */
    private Snapshot snapshot(View seen, List<Poller> due, List<Answer> answers) {
        Instant at = clock.instant();
        Map<Poller, Update> next = new java.util.IdentityHashMap<>();
        List<Fired> fired = new java.util.ArrayList<>();
        for (int i = 0; i < due.size() && i < answers.size(); i++) {
            Poller p = due.get(i);
            Answer a = answers.get(i);
            // seen when its answer came, not when the cycle's last did: its projection's age then ticks from there
            Update u = a.health() != null ? answered(p, a.health(), a.at() == null ? at : a.at()) : failed(p, a.error(), at);
            // the rules over its answer's samples, here on the asking thread (one cycle at a time): they tint its row;
            // one that does not answer is judged as the console's own engine lost (failing), as the Alerts panel does
            List<dev.kiln.core.alert.Alert> active = p.alerts.evaluate(a.health() != null ? a.health().evidence().samples()
                    : UNREACHABLE);
            List<dev.kiln.core.alert.AlertRule> firing = active.stream().filter(dev.kiln.core.alert.Alert::firing)
                    .map(dev.kiln.core.alert.Alert::rule).toList();
            p.active = active;
            p.drainFired().forEach(f -> fired.add(new Fired(p.entry.name(), f)));
            FleetRow row = u.row().firing(firing); // none firing now clears the row's tint
            // what goes on screen: the row shown now when the answer changes nothing there (no cell is touched)
            next.put(p, new Update(row, u.failures(), u.dueAt(), row.looksLike(p.shown, at) ? p.shown : row));
        }
        List<FleetRow> all = seen.roster().stream().filter(p -> !p.stopped)
                .map(p -> {
                    Update u = next.get(p);
                    return u == null ? p.shown : u.shown();
                }).toList();
        return new Snapshot(seen.version(), at, next, shown(all, seen), FleetCounts.of(all), active(seen.roster()), fired);
    }

    /** The samples a daemon that does not answer is judged by: failing, as {@code kiln_health} says of it. */
    private static final Map<String, List<Double>> UNREACHABLE = Map.of("kiln_health{state=\"failing\"}", List.of(1.0));

    /** Each listed daemon's active rules (firing first), by name in list order; none for a daemon with none. */
    private static Map<String, List<dev.kiln.core.alert.Alert>> active(List<Poller> roster) {
        Map<String, List<dev.kiln.core.alert.Alert>> m = new LinkedHashMap<>();
        roster.stream().filter(p -> !p.stopped && !p.active.isEmpty()).forEach(p -> m.put(p.entry.name(), p.active));
        return java.util.Collections.unmodifiableMap(m);
    }

    /** On the FX thread: the snapshot's rows, due times and counts, in one change of the table's list. */
    private void apply(Snapshot snap) {
        snap.next().forEach((p, u) -> {
            if (!p.stopped) {
                p.row = u.row();
                p.shown = u.shown();
                p.failures = u.failures();
                p.dueAt = u.dueAt();
            }
        });
        if (snap.version() == view.version()) {
            show(snap.shown(), snap.counts());
            showAlerts(snap.active());
        } else {
            reshow(); // the list, the filter or the order changed while it asked: made again from the rows as they are
        }
        if (!snap.fired().isEmpty()) {
            onFired.accept(snap.fired()); // once per firing: the rules' own evaluation publishes each firing once
        }
    }

    private void showAlerts(Map<String, List<dev.kiln.core.alert.Alert>> m) {
        if (!m.equals(alerts.get())) {
            alerts.set(m);
        }
    }

    /** A rule that started firing on a daemon (its {@link dev.kiln.core.alert.AlertFired}, once per firing). */
    public record Fired(String daemon, dev.kiln.core.alert.AlertFired fired) {
    }

    private final ReadOnlyObjectWrapper<Map<String, List<dev.kiln.core.alert.Alert>>> alerts = new ReadOnlyObjectWrapper<>(Map.of());
    private Consumer<List<Fired>> onFired = f -> { };

    /**
     * The console's alert rules active on each daemon (firing first, then pending), by daemon name in list order; a
     * daemon without one is absent. Replaced (once per cycle at most) only when it changes; a rule that stops holding,
     * or a daemon removed, leaves it.
     */
    public ReadOnlyObjectProperty<Map<String, List<dev.kiln.core.alert.Alert>>> alertsProperty() {
        return alerts.getReadOnlyProperty();
    }

    /**
     * Who hears of rules that start firing on daemons: once per firing (not per poll), all of a cycle's together, on
     * the FX thread. One listener (the window that shows this fleet now); a later one replaces it.
     */
    public void setFiredListener(Consumer<List<Fired>> listener) {
        onFired = Objects.requireNonNull(listener);
    }

    /** Makes the shown rows and counts again from every poller's row, on the FX thread (an edit, a filter, an order). */
    private void reshow() {
        pollers.values().forEach(p -> p.shown = p.row);
        List<FleetRow> all = allRows();
        show(shown(all, view), FleetCounts.of(all));
        showAlerts(active(List.copyOf(pollers.values())));
    }

    private void show(List<FleetRow> shown, FleetCounts c) {
        rows.apply(shown, r -> key(r.name())); // by daemon: an unchanged row keeps its object and its cells
        if (!c.equals(counts.get())) {
            counts.set(c);
        }
    }

    private static List<FleetRow> shown(List<FleetRow> all, View v) {
        return all.stream().filter(r -> r.matches(v.filter())).sorted(v.order()).toList();
    }

    /** The pollers, filter and order a snapshot is made against; {@code version} counts their changes. */
    private record View(List<Poller> roster, String filter, Comparator<FleetRow> order, long version) {
    }

    /** One poller's next state; {@code shown} is the row the page shows for it (its last one when nothing shows different). */
    private record Update(FleetRow row, int failures, Instant dueAt, FleetRow shown) {
        Update(FleetRow row, int failures, Instant dueAt) {
            this(row, failures, dueAt, row);
        }
    }

    /** A cycle's outcome, ready for the FX thread. */
    private record Snapshot(long version, Instant at, Map<Poller, Update> next, List<FleetRow> shown, FleetCounts counts,
            Map<String, List<dev.kiln.core.alert.Alert>> active, List<Fired> fired) {
    }

    /** Asks every poller of {@code due} at once on the shared pool, each within its bound; in their order. */
    private static List<Answer> askAll(List<Poller> due, Clock clock) throws InterruptedException {
        List<java.util.concurrent.Callable<Answer>> asks = due.stream().<java.util.concurrent.Callable<Answer>>map(p -> () -> {
            try {
                DaemonHealth h = p.asker.health();
                return new Answer(h, null, clock.instant());
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                return new Answer(null, e, null);
            }
        }).toList();
        // The askers bound themselves (ASK_TIMEOUT); this bound is for an asker that does not.
        List<java.util.concurrent.Future<Answer>> done = SharedTimer.ASK.invokeAll(asks,
                ASK_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
        List<Answer> out = new java.util.ArrayList<>(done.size());
        for (java.util.concurrent.Future<Answer> f : done) {
            try {
                out.add(f.get());
            } catch (java.util.concurrent.CancellationException | java.util.concurrent.ExecutionException e) {
                out.add(new Answer(null, new java.io.IOException("no answer within " + ASK_TIMEOUT.multipliedBy(2).toSeconds()
                        + " s; asked again later"), null));
            }
        }
        return out;
    }

    /** One poll's outcome: a health and when it came, or why there is none. */
    private record Answer(DaemonHealth health, Exception error, Instant at) {
    }

    /** Read on the asking thread: the poller's row and failures are the FX thread's, unchanged while it asks. */
    private static Update answered(Poller p, DaemonHealth h, Instant at) {
        return new Update(p.row.answered(h, at), 0, at.plus(POLL));
    }

    private static Update failed(Poller p, Throwable e, Instant at) {
        Duration wait = backoff(p.failures);
        String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return new Update(p.row.failed(why, at, at.plus(wait)), p.failures + 1, at.plus(wait));
    }

    /** {@link #BACKOFF_FIRST} doubled per earlier failure, at most {@link #BACKOFF_MAX}. */
    static Duration backoff(int earlierFailures) {
        Duration d = BACKOFF_FIRST;
        for (int i = 0; i < earlierFailures && d.compareTo(BACKOFF_MAX) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(BACKOFF_MAX) > 0 ? BACKOFF_MAX : d;
    }

    /** The alert rules each daemon's answers are judged by: the defaults until the console reads alerts.json. */
    private List<dev.kiln.core.alert.AlertRule> alertRules = dev.kiln.core.alert.AlertRules.defaults();

    /**
     * A daemon's own evaluation of the console's alert rules (each daemon's rules pend and fire on their own); its
     * firings are kept in {@code firedInto} for the cycle that evaluated them.
     */
    private dev.kiln.core.alert.Alerts rules(java.util.Queue<dev.kiln.core.alert.AlertFired> firedInto) {
        return new dev.kiln.core.alert.Alerts(alertRules, clock, e -> {
            if (e instanceof dev.kiln.core.alert.AlertFired f) {
                firedInto.add(f);
            }
        });
    }

    /**
     * The rules of the console's {@code alerts.json} (the same the Projection page's cards use): each daemon evaluates
     * them afresh from its next answer. FX thread.
     */
    public void setRules(List<dev.kiln.core.alert.AlertRule> rules) {
        alertRules = List.copyOf(rules);
        for (Poller p : pollers.values()) {
            p.alerts = rules(p.fired);
        }
    }

    private static String key(String name) {
        return name.strip().toLowerCase(Locale.ROOT);
    }

    /** One daemon's polling; touched on the FX thread only (stopped is read by the timer's thread too). */
    private static final class Poller {
        final DaemonEntry entry;
        final boolean saved;
        final HealthSource.Asker asker;
        /** The alert rules over its answers; evaluated on the asking thread only (one cycle at a time). */
        volatile dev.kiln.core.alert.Alerts alerts;
        /** Written on the FX thread between cycles, read by the asking thread during one (one cycle at a time). */
        volatile FleetRow row;
        /** The row in {@link #rows()} for it: {@link #row}, or an older one that shows the same (same threads as row). */
        volatile FleetRow shown;
        volatile int failures;
        volatile boolean stopped;
        /** When it is asked next; written on the FX thread, read by the timer's. */
        volatile Instant dueAt = Instant.MIN;

        /** The rules active on its last answer, firing first (same threads as {@link #row}). */
        volatile List<dev.kiln.core.alert.Alert> active = List.of();
        /** Firings of its rules not yet reported: filled by an evaluation, drained by the same cycle. */
        final java.util.Queue<dev.kiln.core.alert.AlertFired> fired = new java.util.concurrent.ConcurrentLinkedQueue<>();

        Poller(DaemonEntry entry, boolean saved, HealthSource.Asker asker,
                java.util.function.Function<java.util.Queue<dev.kiln.core.alert.AlertFired>, dev.kiln.core.alert.Alerts> alerts) {
            this.entry = entry;
            this.saved = saved;
            this.asker = asker;
            this.row = FleetRow.connecting(entry, saved);
            this.shown = row;
            this.alerts = alerts.apply(fired);
        }

        List<dev.kiln.core.alert.AlertFired> drainFired() {
            List<dev.kiln.core.alert.AlertFired> out = new java.util.ArrayList<>();
            for (dev.kiln.core.alert.AlertFired f; (f = fired.poll()) != null; ) {
                out.add(f);
            }
            return out;
        }
    }
}
