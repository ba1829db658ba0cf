package dev.kiln.ui.projection;

import dev.kiln.core.engine.Engine;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.serve.client.FollowChanged;
import dev.kiln.core.engine.OwnershipChanged;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.watch.WatchChanged;
import dev.kiln.ui.util.Background;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Projection page: the latest tick, why ticks wake, and the recent history, live from tick events. It starts the
 * engine's projection (own / follow / take over, or attached to a daemon): every start runs on the background
 * executor, and the page shows what the {@link OwnershipChanged} events say.
 *
 * <p>Concurrency: FX thread only; the engine's file, lock and network I/O happens in {@link Background} work.
 */
public final class ProjectionViewModel {
    /** Ticks kept in the history table. */
    public static final int HISTORY = 200;

    private final Engine engine;
    private final Background background;
    private final ReadOnlyObjectWrapper<TickResult> last = new ReadOnlyObjectWrapper<>();
    private final ObservableList<TickResult> history = FXCollections.observableArrayList();
    private final Map<WakeReason, Long> byReason = new EnumMap<>(WakeReason.class);
    private final ReadOnlyStringWrapper reasons = new ReadOnlyStringWrapper("no ticks yet");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper manualResult = new ReadOnlyStringWrapper("");
    /** Whether a "Project now" was asked for and its tick has not been seen yet. */
    private boolean manualAsked;
    private final ReadOnlyStringWrapper watch = new ReadOnlyStringWrapper("starting…");
    private final ReadOnlyStringWrapper apiUrl = new ReadOnlyStringWrapper("");
    private final ChartSeries series = new ChartSeries();
    private final javafx.beans.property.ObjectProperty<ChartWindow> chartWindow =
            new javafx.beans.property.SimpleObjectProperty<>(ChartWindow.ONE_MINUTE);
    private final ReadOnlyStringWrapper age = new ReadOnlyStringWrapper("not yet");
    private final ReadOnlyStringWrapper degraded = new ReadOnlyStringWrapper("");
    private dev.kiln.core.watch.WatchStatus degradedWatch; // null while live
    /** Whether this console watches (and so takes a workspace over when its owner stops). */
    private boolean live;
    private final StalenessViewModel staleness;

    public ProjectionViewModel(Engine engine, Background background) {
        this.engine = engine;
        this.background = background;
        this.staleness = new StalenessViewModel(engine, background);
        this.health = new dev.kiln.ui.health.HealthViewModel(engine, background, dev.kiln.core.alert.AlertRules.defaults());
        series.observeFrom(engine.clock().instant()); // before the page was open nothing was seen: a gap, not 0
    }

    private final dev.kiln.ui.health.HealthViewModel health;

    /** The verdict and the alert rules behind the cards' state and the Alerts panel. */
    public dev.kiln.ui.health.HealthViewModel health() {
        return health;
    }

    /** "Why is this stale?": the staleness doctor on this workspace. */
    public StalenessViewModel staleness() {
        return staleness;
    }

    /**
     * Starts projecting, off the FX thread: live (watcher + pacer, the daemon's engine) when this console may own
     * the workspace, following the {@code kiln serve} that owns it otherwise; {@code live} false ticks only on
     * demand. Unless it owns the workspace now, one startup tick shows the current state.
     */
    public void start(boolean live) {
        this.live = live;
        background.run(() -> engine.projection().start(live), why -> {
            if (why.isPresent() && "starting…".equals(watch.get())) {
                watch.set(why.get()); // an engine that publishes no ownership change (attached) still says how it projects
            }
            engine.projection().apiUrl().ifPresent(apiUrl::set);
            health.refresh();
        }, e -> error.set("Projection failed: " + e.getMessage()));
    }

    /** Takes one frame's events: finished ticks, and who writes the workspace and how it is watched. */
    public void accept(List<? extends KilnEvent> batch) {
        health.accept(batch);
        for (KilnEvent e : batch) {
            if (e instanceof TickFinished t) {
                record(t.result());
            } else if (e instanceof OwnershipChanged o) {
                watch.set(o.text());
                apiUrl.set(o.apiUrl());
                if (o.mode() == OwnershipChanged.Mode.VACANT && live) {
                    start(true); // the owner stopped: this console takes the workspace over
                }
            } else if (e instanceof WatchChanged w) {
                watch.set(w.status().toString());
                degradedWatch = w.status().live() ? null : w.status();
                refreshClock();
            } else if (e instanceof dev.kiln.core.engine.EngineEvent.ConnectionChanged c) {
                watch.set(c.text()); // attached to a daemon: connected, lost (retrying), resynchronized
            } else if (e instanceof FollowChanged f && !f.ended()) {
                watch.set(f.text()); // connected / reconnecting; its end arrives as the VACANT ownership change
            }
        }
    }

    private void record(TickResult r) {
        if (manualAsked && r.reason() == WakeReason.MANUAL) {
            manualAsked = false; // the tick it caused (the daemon's, when it is a daemon's workspace)
            manualResult.set(manualText(r));
        }
        last.set(r);
        series.add(r);
        history.add(0, r);
        if (history.size() > HISTORY) {
            history.remove(HISTORY, history.size());
        }
        byReason.merge(r.reason(), 1L, Long::sum);
        long total = byReason.values().stream().mapToLong(Long::longValue).sum();
        reasons.set(total + " ticks: " + byReason.entrySet().stream()
                .map(e -> e.getValue() + " " + e.getKey().jsonName()).collect(Collectors.joining(", ")));
        // every tick says it while the file trails the projection; the first tick after a successful write clears it
        error.set(r.writeError() == null ? "" : "state.json is not up to date: " + r.writeError()
                + ". Retried until it can be written; the pages show the projection itself.");
        refreshClock();
    }

    /**
     * Re-reads the clock for what ages: the last projection's age and the degraded banner's "since". The page
     * calls it once a second while it shows; ticks and watch changes call it too.
     */
    public void refreshClock() {
        health.refreshClock();
        java.time.Instant now = engine.clock().instant();
        TickResult r = last.get();
        age.set(r == null ? "not yet" : ageText(java.time.Duration.between(r.at(), now)));
        dev.kiln.core.watch.WatchStatus w = degradedWatch;
        degraded.set(w == null ? "" : "Watch degraded " + ageText(java.time.Duration.between(w.since(), now)) + " (since "
                + SINCE.format(w.since()) + "): " + w.reason()
                + ". Projecting on the fixed interval until the watch is back; edits may show up to an interval late.");
    }

    private static final java.time.format.DateTimeFormatter SINCE =
            java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss").withZone(java.time.ZoneId.systemDefault());

    /** {@code just now}, {@code 12 s ago}, {@code 3 min 4 s ago}, {@code 2 h 5 min ago}; a future instant is "just now". */
    public static String ageText(java.time.Duration d) {
        long s = Math.max(0, d.getSeconds());
        if (s < 1) {
            return "just now";
        }
        if (s < 60) {
            return s + " s ago";
        }
        if (s < 3600) {
            return (s / 60) + " min " + (s % 60) + " s ago";
        }
        return (s / 3600) + " h " + (s % 3600 / 60) + " min ago";
    }

    /** How old the last projection is, for a person ({@link #refreshClock()} keeps it current). */
    public ReadOnlyStringProperty ageProperty() {
        return age.getReadOnlyProperty();
    }

    /** Why and since when the watch is degraded; empty while it is live. */
    public ReadOnlyStringProperty degradedProperty() {
        return degraded.getReadOnlyProperty();
    }

    /** The ticks behind the charts. */
    public ChartSeries series() {
        return series;
    }

    /** How far back the charts look. */
    public javafx.beans.property.ObjectProperty<ChartWindow> chartWindowProperty() {
        return chartWindow;
    }

    /** Where the charts end: the engine's clock (a replay's position). */
    public java.time.Instant now() {
        return engine.clock().instant();
    }

    /** The charts' buckets now, over the chosen window. */
    public List<ChartSeries.Bucket> buckets() {
        return series.buckets(chartWindow.get(), engine.clock().instant());
    }

    /**
     * Runs a manual tick in the background (or asks the followed daemon for one); its result arrives as an event
     * like any other, and {@link #manualResultProperty()} then says what it did.
     */
    public void projectNow() {
        manualAsked = true;
        manualResult.set("Project now: asked…");
        background.run(() -> {
            engine.projection().projectNow();
            return null;
        }, r -> error.set(""), e -> {
            manualAsked = false;
            manualResult.set("");
            error.set("Projection failed: " + e.getMessage());
        });
    }

    /** {@code Project now: nothing changed, projected at 10:42:07 (revision 7)}, or the revision it made. */
    private static String manualText(TickResult r) {
        String at = SINCE.format(r.at());
        return r.changed() ? "Project now: revision " + r.revision() + ", projected at " + at
                : "Project now: nothing changed, projected at " + at + " (revision " + r.revision() + ")";
    }

    /** What the last "Project now" did, once its tick arrived; empty before the first. */
    public ReadOnlyStringProperty manualResultProperty() {
        return manualResult.getReadOnlyProperty();
    }

    /** Where the owning daemon's API listens (token in observer/api-token), or empty. */
    public ReadOnlyStringProperty apiUrlProperty() {
        return apiUrl.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<TickResult> lastProperty() {
        return last.getReadOnlyProperty();
    }

    /** Newest first. */
    public ObservableList<TickResult> history() {
        return history;
    }

    public ReadOnlyStringProperty reasonsProperty() {
        return reasons.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty watchProperty() {
        return watch.getReadOnlyProperty();
    }

    public String stateFile() {
        return engine.layout().stateFile().toString();
    }
}
