package dev.kiln.ui.projection;

import dev.kiln.core.doctor.Diagnosis;
import dev.kiln.core.doctor.Difference;
import dev.kiln.core.engine.Engine;
import dev.kiln.ui.util.Background;
import java.util.Objects;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * "Why is this stale?": runs the staleness doctor on the workspace in the background and holds what it found — the
 * verdict, the one-line headline, what to do, the evidence and one row per difference. Never holds a node.
 */
public final class StalenessViewModel {
    /** Rows shown at most: a workspace-wide cause makes every contract a row, and the first ones tell the story. */
    public static final int MAX_ROWS = 500;

    /**
     * One difference, as the table shows it.
     *
     * @param contract leaf id (or path of a failing file)
     * @param how added, removed, changed, failing now, failed then
     * @param fields what differs: {@code field: published → now}, joined
     * @param cause the likely cause, its JSON name
     * @param evidence the likely cause's evidence, then the further evidence
     */
    public record Row(String contract, String how, String fields, String cause, String evidence) {
        static Row of(Difference d) {
            StringBuilder f = new StringBuilder();
            for (Difference.FieldChange c : d.fields()) {
                if (f.length() > 0) {
                    f.append("; ");
                }
                f.append(c.field()).append(": ").append(c.published()).append(" → ").append(c.now());
            }
            StringBuilder e = new StringBuilder();
            for (Difference.Explanation x : d.explanations()) {
                if (e.length() > 0) {
                    e.append(" · ");
                }
                e.append(x.evidence());
            }
            return new Row(d.key(), d.kind().jsonName().replace('_', ' '), f.toString(), d.cause().jsonName().replace('_', ' '),
                    e.toString());
        }
    }

    private final Engine engine;
    private final Background background;
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyObjectWrapper<Diagnosis.Verdict> verdict = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper headline = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ObservableList<String> remedies = FXCollections.observableArrayList();
    private final ObservableList<String> evidence = FXCollections.observableArrayList();
    private final ObservableList<Row> rows = FXCollections.observableArrayList();
    // one read-only view each, kept: a view listens to its list weakly, so a fresh one per call would lose listeners
    private final ObservableList<String> remediesView = FXCollections.unmodifiableObservableList(remedies);
    private final ObservableList<String> evidenceView = FXCollections.unmodifiableObservableList(evidence);
    private final ObservableList<Row> rowsView = FXCollections.unmodifiableObservableList(rows);

    /**
     * @param engine whose published state the doctor checks ({@link dev.kiln.core.engine.Projection#diagnose()})
     * @param background where the diagnosis runs; its result comes back on the UI thread
     */
    public StalenessViewModel(Engine engine, Background background) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.background = Objects.requireNonNull(background, "background");
    }

    /** Runs the doctor (once at a time); what it finds replaces what was shown. */
    public void diagnose() {
        if (running.get()) {
            return;
        }
        running.set(true);
        error.set("");
        background.run(engine.projection()::diagnose, this::show, e -> {
            running.set(false);
            error.set("The doctor failed: " + e.getMessage());
        });
    }

    private void show(Diagnosis d) {
        running.set(false);
        verdict.set(d.verdict());
        headline.set(capitalized(d.headline()));
        remedies.setAll(d.remedies());
        evidence.setAll(d.evidence());
        rows.setAll(d.differences().stream().limit(MAX_ROWS).map(Row::of).toList());
    }

    private static String capitalized(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    public ReadOnlyBooleanProperty runningProperty() {
        return running.getReadOnlyProperty();
    }

    /** Null until the first diagnosis. */
    public ReadOnlyObjectProperty<Diagnosis.Verdict> verdictProperty() {
        return verdict.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty headlineProperty() {
        return headline.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    /** What to do, most relevant first. */
    public ObservableList<String> remedies() {
        return remediesView;
    }

    /** Facts about the workspace: the published document, the daemon, the lock, the clock. */
    public ObservableList<String> evidence() {
        return evidenceView;
    }

    /** One row per difference, at most {@link #MAX_ROWS}. */
    public ObservableList<Row> rows() {
        return rowsView;
    }
}
