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
        List<EventRow> fresh = new ArrayList<>(batch.size());
        for (int i = batch.size() - 1; i >= 0; i--) {
            KilnEvent e = batch.get(i);
            String kind = kindOf(e);
            if (knownKinds.add(kind)) {
                kinds.setAll(knownKinds);
            }
            fresh.add(new EventRow(e.at(), kind, e.summary()));
        }
        rows.addAll(0, fresh.size() > CAPACITY ? fresh.subList(0, CAPACITY) : fresh);
        if (rows.size() > CAPACITY) {
            rows.remove(CAPACITY, rows.size());
        }
    }

    public void clear() {
        rows.clear();
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
