package dev.kiln.ui.contracts;

import dev.kiln.core.contract.ContractListing;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.ui.util.Background;
import java.util.List;
import java.util.Locale;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.StringProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.collections.transformation.FilteredList;

/** State and actions of the Contracts page: the workspace's contract files, a filter, and a summary line. */
public final class ContractsViewModel {
    private final WorkspaceLayout workspace;
    private final Background background;
    private final ObservableList<ContractRow> all = FXCollections.observableArrayList();
    private final FilteredList<ContractRow> shown = new FilteredList<>(all, r -> true);
    private final StringProperty filter = new SimpleStringProperty("");
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(false);

    public ContractsViewModel(WorkspaceLayout workspace, Background background) {
        this.workspace = workspace;
        this.background = background;
        filter.addListener((o, a, b) -> applyFilter(b));
    }

    /** Re-reads the contract files in the background. */
    public void refresh() {
        loading.set(true);
        background.run(() -> ContractListing.list(workspace.tasksDir()), this::accept, e -> {
            loading.set(false);
            error.set("Could not list " + workspace.tasksDir() + ": " + e.getMessage());
        });
    }

    private void accept(List<ContractListing.Entry> entries) {
        all.setAll(entries.stream().map(ContractsViewModel::row).toList());
        loading.set(false);
        error.set("");
        long unreadable = all.stream().filter(r -> !r.problem().isEmpty()).count();
        long legacy = all.stream().filter(r -> r.state().equals("legacy id")).count();
        summary.set(all.size() + " contracts · " + legacy + " legacy ids · " + unreadable + " unreadable");
    }

    private static ContractRow row(ContractListing.Entry e) {
        String dir = e.file().contains("/") ? e.file().substring(0, e.file().lastIndexOf('/')) : "";
        return new ContractRow(e.file(), e.leafId(), dir, e.problem());
    }

    private void applyFilter(String text) {
        String needle = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        shown.setPredicate(needle.isEmpty() ? r -> true
                : r -> (r.file() + " " + r.leafId() + " " + r.state()).toLowerCase(Locale.ROOT).contains(needle));
    }

    /** All rows, unfiltered. */
    public ObservableList<ContractRow> rows() {
        return all;
    }

    /** The rows the filter lets through. */
    public ObservableList<ContractRow> shownRows() {
        return shown;
    }

    public StringProperty filterProperty() {
        return filter;
    }

    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty loadingProperty() {
        return loading.getReadOnlyProperty();
    }
}
