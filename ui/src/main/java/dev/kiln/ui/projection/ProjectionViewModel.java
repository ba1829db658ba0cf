package dev.kiln.ui.projection;

import dev.kiln.core.Kiln;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.telemetry.KilnEvent;
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

/** The Projection page: the latest tick, why ticks wake, and the recent history, live from tick events. */
public final class ProjectionViewModel {
    /** Ticks kept in the history table. */
    public static final int HISTORY = 200;

    private final Kiln kiln;
    private final Background background;
    private final ReadOnlyObjectWrapper<TickResult> last = new ReadOnlyObjectWrapper<>();
    private final ObservableList<TickResult> history = FXCollections.observableArrayList();
    private final Map<WakeReason, Long> byReason = new EnumMap<>(WakeReason.class);
    private final ReadOnlyStringWrapper reasons = new ReadOnlyStringWrapper("no ticks yet");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper watch = new ReadOnlyStringWrapper("starting…");
    private final ReadOnlyStringWrapper apiUrl = new ReadOnlyStringWrapper("");
    private final StalenessViewModel staleness;

    public ProjectionViewModel(Kiln kiln, Background background) {
        this.kiln = kiln;
        this.background = background;
        this.staleness = new StalenessViewModel(kiln.layout(), apiUrl::get, background);
    }

    /** "Why is this stale?": the staleness doctor on this workspace. */
    public StalenessViewModel staleness() {
        return staleness;
    }

    /** Takes one frame's events; only finished ticks matter here. */
    public void accept(List<? extends KilnEvent> batch) {
        for (KilnEvent e : batch) {
            if (e instanceof TickFinished t) {
                record(t.result());
            }
        }
    }

    private void record(TickResult r) {
        last.set(r);
        history.add(0, r);
        if (history.size() > HISTORY) {
            history.remove(HISTORY, history.size());
        }
        byReason.merge(r.reason(), 1L, Long::sum);
        long total = byReason.values().stream().mapToLong(Long::longValue).sum();
        reasons.set(total + " ticks: " + byReason.entrySet().stream()
                .map(e -> e.getValue() + " " + e.getKey().jsonName()).collect(Collectors.joining(", ")));
        error.set(r.writeError() == null ? "" : "state.json was not written: " + r.writeError() + " (retried next tick)");
    }

    /**
     * Runs a manual tick in the background (or asks the followed daemon for one); its result arrives as an event
     * like any other.
     */
    public void projectNow() {
        background.run(() -> {
            kiln.projectNow();
            return null;
        }, r -> error.set(""), e -> error.set("Projection failed: " + e.getMessage()));
    }

    /** Sets the watch line (live / degraded with reason), from whoever drives the ticks. */
    public void setWatch(String text) {
        watch.set(text);
    }

    /** Where the embedded daemon's API listens (token in observer/api-token), or empty. */
    public void setApiUrl(String url) {
        apiUrl.set(url);
    }

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
        return kiln.layout().stateFile().toString();
    }
}
