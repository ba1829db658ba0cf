package dev.kiln.ui.contracts;

import dev.kiln.core.Kiln;
import dev.kiln.core.contract.Contract;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.contract.LeafIdHeal;
import dev.kiln.core.snapshot.ContractFile;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.snapshot.SnapshotFailure;
import dev.kiln.ui.util.Background;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
import javafx.collections.transformation.FilteredList;

/**
 * State and actions of the Contracts page: the projector's latest snapshot as rows, a filter, and the heal
 * action, which always shows its preview (a dry run) before anything is written.
 */
public final class ContractsViewModel {
    private static final java.time.format.DateTimeFormatter DAY =
            java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(java.time.ZoneOffset.UTC);
    private final Kiln kiln;
    private final Background background;
    private final ObservableList<ContractRow> all = FXCollections.observableArrayList();
    private final FilteredList<ContractRow> shown = new FilteredList<>(all, r -> true);
    private final StringProperty filter = new SimpleStringProperty("");
    private final BooleanProperty flaggedOnly = new SimpleBooleanProperty(false);
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper notice = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyObjectWrapper<HealReport> healPreview = new ReadOnlyObjectWrapper<>();
    private ContractSnapshot shownSnapshot;

    public ContractsViewModel(Kiln kiln, Background background) {
        this.kiln = kiln;
        this.background = background;
        filter.addListener((o, a, b) -> applyFilter());
        flaggedOnly.addListener((o, a, b) -> applyFilter());
    }

    /** Runs a manual projection tick in the background and shows its snapshot. */
    public void refresh() {
        loading.set(true);
        background.run(() -> {
            kiln.projectNow();
            return kiln.projector().snapshot();
        }, this::show, e -> {
            loading.set(false);
            error.set("Projection failed: " + e.getMessage());
        });
    }

    /** Shows the projector's latest snapshot, if it is not the one shown already (called after every tick). */
    public void showLatest() {
        ContractSnapshot s = kiln.projector().snapshot();
        if (s != null && s != shownSnapshot) {
            show(s);
        }
    }

    private void show(ContractSnapshot snapshot) {
        shownSnapshot = snapshot;
        loading.set(false);
        error.set("");
        if (snapshot == null) {
            all.clear();
            summary.set("No projection yet");
            return;
        }
        Instant now = kiln.clock().instant();
        List<ContractRow> rows = new ArrayList<>(snapshot.contracts().size() + snapshot.failures().size());
        for (ContractFile f : snapshot.contracts()) {
            rows.add(row(f, now));
        }
        for (SnapshotFailure f : snapshot.failures()) {
            rows.add(new ContractRow(f.path(), "", f.isDirectory() ? "" : parentOf(f.path()), "unreadable", "", "", "",
                    f.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ') + ": " + f.reason()));
        }
        rows.sort(java.util.Comparator.comparing(ContractRow::file));
        all.setAll(rows);
        long legacy = rows.stream().filter(r -> r.state().equals("legacy id")).count();
        long misplaced = rows.stream().filter(r -> r.state().equals("misplaced id")).count();
        long unreadable = rows.stream().filter(r -> r.state().equals("unreadable")).count();
        long overdue = rows.stream().filter(r -> r.deadline().endsWith("overdue")).count();
        long files = rows.stream().filter(r -> !r.canonicalId().isEmpty() || !r.state().equals("unreadable")).count();
        summary.set(files + " contract files · " + legacy + " legacy ids · " + misplaced + " misplaced · "
                + unreadable + " unreadable · " + overdue + " overdue");
    }

    private static ContractRow row(ContractFile f, Instant now) {
        Contract c = f.contract();
        String declared = c.leafId() == null ? "" : c.leafId();
        String state = switch (f.idShape()) {
            case CANONICAL -> "ok";
            case STEM -> "legacy id";
            case MISPLACED -> "misplaced id";
            case MISSING -> "no leaf id";
        };
        String problem = switch (f.idShape()) {
            case STEM -> "heal rewrites it to " + f.leafId();
            case MISPLACED -> "declares " + declared + "; its location says " + f.leafId();
            case MISSING -> "no leaf_id; heal sets " + f.leafId();
            default -> "";
        };
        String deadline = c.deadline() == null ? "" : DAY.format(c.deadline()) + (c.deadline().isBefore(now) ? " · overdue" : "");
        return new ContractRow(f.file(), declared, f.leafId(), state, nz(c.status()), nz(c.title()), deadline, problem);
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }

    private static String parentOf(String file) {
        int i = file.lastIndexOf('/');
        return i < 0 ? "" : file.substring(0, i);
    }

    /** Plans a heal (a dry run: nothing is written) and shows what it would change. */
    public void previewHeal() {
        notice.set("");
        background.run(() -> LeafIdHeal.sweep(kiln.layout().tasksDir(), true), healPreview::set,
                e -> error.set("Heal preview failed: " + e.getMessage()));
    }

    /** Applies the heal the preview showed, then re-projects. Does nothing without a preview. */
    public void applyHeal() {
        if (healPreview.get() == null) {
            return;
        }
        healPreview.set(null);
        background.run(() -> LeafIdHeal.sweep(kiln.layout().tasksDir(), false), report -> {
            notice.set("Healed " + report.changes().size() + " leaf ids"
                    + (report.misplaced().isEmpty() ? "" : "; " + report.misplaced().size() + " misplaced ids left for you to decide")
                    + (report.problems().isEmpty() ? "" : "; " + report.problems().size() + " files could not be rewritten"));
            refresh();
        }, e -> error.set("Heal failed: " + e.getMessage()));
    }

    public void cancelHeal() {
        healPreview.set(null);
    }

    private void applyFilter() {
        String needle = filter.get() == null ? "" : filter.get().strip().toLowerCase(Locale.ROOT);
        boolean flagged = flaggedOnly.get();
        shown.setPredicate(r -> (!flagged || r.flagged())
                && (needle.isEmpty() || (r.file() + " " + r.declaredId() + " " + r.state() + " " + r.status() + " " + r.title())
                        .toLowerCase(Locale.ROOT).contains(needle)));
    }

    public ObservableList<ContractRow> rows() {
        return all;
    }

    public ObservableList<ContractRow> shownRows() {
        return shown;
    }

    public StringProperty filterProperty() {
        return filter;
    }

    /** Show only rows that need attention (legacy, misplaced, missing ids, unreadable). */
    public BooleanProperty flaggedOnlyProperty() {
        return flaggedOnly;
    }

    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    /** The outcome of the last action, for a person. */
    public ReadOnlyStringProperty noticeProperty() {
        return notice.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty loadingProperty() {
        return loading.getReadOnlyProperty();
    }

    /** The planned heal awaiting confirmation, or {@code null}. */
    public ReadOnlyObjectProperty<HealReport> healPreviewProperty() {
        return healPreview.getReadOnlyProperty();
    }
}
