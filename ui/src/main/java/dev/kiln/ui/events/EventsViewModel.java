package dev.kiln.ui.events;

import dev.kiln.core.telemetry.KilnEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyLongWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.collections.transformation.FilteredList;

/**
 * The Events page: everything the engine publishes, newest first, bounded so a busy engine cannot grow the
 * console without limit. Fed one batch per frame by the event pump.
 */
public final class EventsViewModel {
    /** Rows kept; older ones fall off the end. */
    public static final int CAPACITY = 2_000;

    private final ObservableList<EventRow> rows = FXCollections.observableArrayList();
    private final FilteredList<EventRow> shown = new FilteredList<>(rows, r -> true);
    private final ObservableList<String> kinds = FXCollections.observableArrayList();
    private final Set<String> knownKinds = new TreeSet<>();
    private final StringProperty filter = new SimpleStringProperty("");
    private final BooleanProperty paused = new SimpleBooleanProperty(false);
    private final ReadOnlyLongWrapper received = new ReadOnlyLongWrapper(0);

    public EventsViewModel() {
        filter.addListener((o, a, b) -> {
            String needle = b == null ? "" : b.strip().toLowerCase(Locale.ROOT);
            shown.setPredicate(needle.isEmpty() ? r -> true
                    : r -> (r.kind() + " " + r.summary()).toLowerCase(Locale.ROOT).contains(needle));
        });
    }

    /** Takes one frame's batch (oldest first). While paused, events are counted but not shown. */
    public void accept(List<? extends KilnEvent> batch) {
        received.set(received.get() + batch.size());
        if (paused.get() || batch.isEmpty()) {
            return;
        }
        List<EventRow> fresh = new ArrayList<>(batch.size()); // oldest first here; shown newest first
        for (KilnEvent e : batch) {
            if (e instanceof dev.kiln.core.recording.ReplayMoved m) {
                if (m.jumped()) { // a replay moved: what led to the new moment, not what was shown before
                    rows.clear();
                    fresh.clear();
                    open.clear();
                    fresh.addAll(rowsOf(m.recent()));
                }
                continue;
            }
            fold(e, fresh);
        }
        java.util.Collections.reverse(fresh);
        rows.addAll(0, fresh.size() > CAPACITY ? fresh.subList(0, CAPACITY) : fresh);
        if (rows.size() > CAPACITY) {
            rows.remove(CAPACITY, rows.size());
        }
    }

    /** The warm rows still running, by target: their output lines fold under them. */
    private final java.util.Map<String, EventRow> open = new java.util.HashMap<>();

    private List<EventRow> rowsOf(List<KilnEvent> events) {
        List<EventRow> out = new ArrayList<>();
        for (KilnEvent e : events) {
            fold(e, out);
        }
        return out;
    }

    /**
     * Adds {@code e} to {@code fresh} (oldest first) as a row, or folds it into the row it belongs to: a warm's
     * output lines go under its start, and its finish becomes that row's summary and severity.
     */
    private void fold(KilnEvent e, List<EventRow> fresh) {
        String kind = kindOf(e);
        Severity severity = Severity.of(e);
        if (e instanceof dev.kiln.core.seed.SeedEvent.WarmOutput o) {
            EventRow row = open.get(o.target());
            if (row == null) { // its start was before this console looked (an attach): a row of its own
                row = new EventRow(e.at(), "warm output", "output of the warm of " + o.target(), Severity.INFO, List.of());
                fresh.add(row);
            }
            replace(row, row.withOutput((o.stderr() ? "stderr: " : "") + o.line()), fresh, o.target());
            return;
        }
        if (e instanceof dev.kiln.core.seed.SeedEvent.WarmFinished f && open.containsKey(f.result().target())) {
            EventRow row = open.remove(f.result().target());
            EventRow ended = row.endedBy(e.summary(), severity);
            int i = fresh.indexOf(row);
            if (i >= 0) {
                fresh.set(i, ended);
            } else {
                int j = rows.indexOf(row);
                if (j >= 0) {
                    rows.set(j, ended);
                }
            }
            return;
        }
        if (knownKinds.add(kind)) {
            kinds.setAll(knownKinds);
        }
        EventRow row = new EventRow(e.at(), kind, e.summary(), severity, List.of());
        fresh.add(row);
        if (e instanceof dev.kiln.core.seed.SeedEvent.WarmStarted w) {
            open.put(w.target(), row);
        }
    }

    private void replace(EventRow old, EventRow now, List<EventRow> fresh, String target) {
        open.put(target, now);
        int i = fresh.indexOf(old);
        if (i >= 0) {
            fresh.set(i, now);
            return;
        }
        int j = rows.indexOf(old);
        if (j >= 0) {
            rows.set(j, now);
        }
    }

    public void clear() {
        rows.clear();
        open.clear();
    }

    /** {@code TickFinished} → {@code tick finished}. */
    static String kindOf(KilnEvent e) {
        String name = e.getClass().getSimpleName();
        return name.replaceAll("(?<=[a-z0-9])(?=[A-Z])", " ").toLowerCase(Locale.ROOT);
    }

    public ObservableList<EventRow> rows() {
        return rows;
    }

    public ObservableList<EventRow> shownRows() {
        return shown;
    }

    public ObservableList<String> kinds() {
        return kinds;
    }

    public StringProperty filterProperty() {
        return filter;
    }

    public BooleanProperty pausedProperty() {
        return paused;
    }

    public ReadOnlyLongProperty receivedProperty() {
        return received.getReadOnlyProperty();
    }
}
