package dev.kiln.ui.contracts;

import dev.kiln.core.contract.HealReport;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/** The Contracts page: a filterable table of the projection's contracts and a previewed heal. */
public final class ContractsView extends VBox {

    public ContractsView(ContractsViewModel vm) {
        setId("page-contracts");
        getStyleClass().add("page");
        setSpacing(12);
        // rows are built only while the page shows: the shell takes hidden pages out of the scene
        sceneProperty().addListener((o, was, scene) -> vm.setShowing(scene != null));
        vm.setShowing(getScene() != null);

        Label title = new Label("Contracts");
        title.getStyleClass().add("title-2");
        Label summary = new Label();
        summary.setId("contracts-summary");
        summary.getStyleClass().add("text-muted");
        summary.textProperty().bind(vm.summaryProperty());
        VBox heading = new VBox(2, title, summary);

        // ControlsFX's clearable field: a ✕ inside the field empties the filter.
        TextField filter = org.controlsfx.control.textfield.TextFields.createClearableTextField();
        filter.setId("contracts-filter");
        filter.setPromptText("Filter by path, id, state, status…");
        filter.setPrefColumnCount(22);
        filter.textProperty().bindBidirectional(vm.filterProperty());
        CheckBox flagged = new CheckBox("Needs attention");
        flagged.setId("contracts-flagged");
        flagged.selectedProperty().bindBidirectional(vm.flaggedOnlyProperty());
        Button heal = new Button("Heal leaf ids…");
        heal.setId("contracts-heal");
        heal.setOnAction(e -> vm.previewHeal());
        heal.disableProperty().bind(vm.healPreviewProperty().isNotNull());
        Button refresh = new Button("Project now");
        refresh.setId("contracts-refresh");
        refresh.setOnAction(e -> vm.refresh());
        ProgressIndicator busy = new ProgressIndicator();
        busy.setPrefSize(18, 18);
        busy.visibleProperty().bind(vm.loadingProperty());
        HBox.setHgrow(filter, Priority.ALWAYS);
        filter.setMaxWidth(420);
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        Label matches = new Label();
        matches.setId("contracts-matches");
        matches.getStyleClass().add("text-muted");
        matches.textProperty().bind(vm.matchCountProperty());
        matches.setMinWidth(Region.USE_PREF_SIZE);
        HBox tools = new HBox(10, filter, matches, flagged, grow, busy, heal, refresh);
        tools.setAlignment(Pos.CENTER_LEFT);
        VBox header = new VBox(10, heading, tools);

        Label error = banner(vm.errorProperty(), "text-danger");
        Label notice = banner(vm.noticeProperty(), "text-success");
        notice.setId("contracts-notice");

        TableView<ContractRow> table = new TableView<>(vm.shownRows());
        dev.kiln.ui.util.TableExport.install(table, "contracts");
        table.setId("contracts-table");
        table.getStyleClass().addAll("dense", "striped");
        // The dense rows' own height, fixed: a table that changes every tick then skips re-measuring rows in each layout.
        table.setFixedCellSize(28);
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getColumns().add(column("Leaf id", 250, ContractRow::canonicalId));
        TableColumn<ContractRow, String> state = column("Id state", 110, ContractRow::state);
        state.setCellFactory(c -> new StateCell());
        state.setMinWidth(110); // "misplaced id" whole
        table.getColumns().add(state);
        TableColumn<ContractRow, String> status = column("Status", 100, ContractRow::status);
        status.setMinWidth(100); // "pending", "running", "blocked" whole
        table.getColumns().add(status);
        table.getColumns().add(column("Title", 170, ContractRow::title));
        TableColumn<ContractRow, String> deadline = column("Deadline", 215, ContractRow::deadline);
        deadline.setCellFactory(c -> new StateCell());
        deadline.setMinWidth(215); // "2025-12-04 · overdue" in bold, whole
        table.getColumns().add(deadline);
        table.getColumns().add(column("Problem", 200, ContractRow::problem));
        table.setRowFactory(t -> new TableRow<>() {
            @Override
            protected void updateItem(ContractRow row, boolean empty) {
                super.updateItem(row, empty);
                boolean shows = !empty && row != null;
                // the change is a marker at the row's edge, the severity its tint: one never wipes out the other
                pseudoClassStateChanged(CHANGED, shows && row.changed());
                pseudoClassStateChanged(SEVERITY_BAD, shows && row.state().equals("unreadable"));
                pseudoClassStateChanged(SEVERITY_WARN, shows && !row.state().equals("unreadable")
                        && (row.flagged() || row.deadline().endsWith("overdue")));
                javafx.scene.control.Tooltip tip = shows && row.changed() ? CHANGED_TIP : null;
                if (getTooltip() != tip) {
                    setTooltip(tip); // installing a tooltip is not free: only when it changes (a replay updates rows every pulse)
                }
            }
        });
        // the details pane follows the selected row, and closes when the row goes (filtered out, deleted)
        table.getSelectionModel().selectedItemProperty().addListener((o, a, row) -> {
            if (row != null || !table.getItems().contains(vm.selectedProperty().get())) {
                vm.select(row);
            }
        });
        vm.selectedProperty().addListener((o, a, row) -> {
            if (row != null && table.getSelectionModel().getSelectedItem() != row && table.getItems().contains(row)) {
                table.getSelectionModel().select(row); // the same file's new row after a tick
            }
        });
        // Changed rows glow for a moment after a tick, then settle.
        javafx.animation.PauseTransition settle = new javafx.animation.PauseTransition(javafx.util.Duration.seconds(2.5));
        settle.setOnFinished(e -> vm.settleChanges());
        vm.changedCountProperty().addListener((o, a, n) -> {
            if (n.intValue() > 0) {
                settle.playFromStart();
            }
        });
        table.setPlaceholder(new Label("No contract files under tasks/"));
        VBox.setVgrow(table, Priority.ALWAYS);

        getChildren().addAll(header, error, notice, healPanel(vm), table, details(vm, table));
    }

    private static final javafx.css.PseudoClass CHANGED = javafx.css.PseudoClass.getPseudoClass("changed");
    private static final javafx.css.PseudoClass SEVERITY_BAD = javafx.css.PseudoClass.getPseudoClass("severity-bad");
    private static final javafx.css.PseudoClass SEVERITY_WARN = javafx.css.PseudoClass.getPseudoClass("severity-warn");
    private static final javafx.scene.control.Tooltip CHANGED_TIP = new javafx.scene.control.Tooltip("Changed in the last tick");

    /** The selected contract: its file, how the last tick got it, and its JSON as on disk. */
    private static VBox details(ContractsViewModel vm, TableView<ContractRow> table) {
        Label file = new Label();
        file.setId("contract-details-file");
        file.getStyleClass().add("text-bold");
        Label parse = new Label();
        parse.setId("contract-details-parse");
        Button close = new Button("Close");
        close.getStyleClass().add("flat");
        close.setOnAction(e -> {
            table.getSelectionModel().clearSelection();
            vm.select(null);
        });
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        HBox head = new HBox(12, file, parse, grow, close);
        head.setAlignment(Pos.CENTER_LEFT);
        javafx.scene.control.TextArea json = new javafx.scene.control.TextArea();
        json.setId("contract-details-json");
        json.setEditable(false);
        json.getStyleClass().add("kiln-code");
        json.textProperty().bind(vm.detailsProperty());
        json.setPrefRowCount(8);
        VBox pane = new VBox(6, head, json);
        pane.setId("contract-details");
        pane.getStyleClass().add("metric-card");
        pane.setPrefHeight(230);
        pane.setMinHeight(150);
        vm.selectedProperty().addListener((o, a, row) -> {
            parse.getStyleClass().removeAll("state-ok", "state-warn", "state-bad");
            if (row == null) {
                return;
            }
            file.setText("tasks/" + row.file());
            parse.setText(row.parse());
            parse.getStyleClass().add(row.parse().startsWith("failed") ? "state-bad"
                    : row.parse().startsWith("re-parsed") ? "state-warn" : "state-ok");
        });
        pane.managedProperty().bind(vm.selectedProperty().isNotNull());
        pane.visibleProperty().bind(pane.managedProperty());
        return pane;
    }

    /** The dry run's plan, shown before anything is written; Apply writes exactly this kind of change. */
    private static VBox healPanel(ContractsViewModel vm) {
        Label what = new Label();
        what.setId("heal-summary");
        what.getStyleClass().add("text-bold");
        ListView<String> changes = new ListView<>();
        changes.setId("heal-changes");
        changes.setPrefHeight(150);
        Button apply = new Button("Apply heal");
        apply.setId("heal-apply");
        apply.getStyleClass().add("accent");
        apply.setOnAction(e -> vm.applyHeal());
        Button cancel = new Button("Cancel");
        cancel.setOnAction(e -> vm.cancelHeal());
        Label note = new Label("Dry run: nothing has been written. Unknown fields and file modes are kept.");
        note.getStyleClass().add("text-muted");
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        HBox actions = new HBox(10, note, grow, cancel, apply);
        actions.setAlignment(Pos.CENTER_LEFT);
        VBox panel = new VBox(8, what, changes, actions);
        panel.setId("heal-preview");
        panel.getStyleClass().add("metric-card");
        panel.managedProperty().bind(vm.healPreviewProperty().isNotNull());
        panel.visibleProperty().bind(panel.managedProperty());
        vm.healPreviewProperty().addListener((o, a, report) -> {
            if (report == null) {
                changes.getItems().clear();
                return;
            }
            what.setText(describe(report));
            changes.getItems().setAll(report.changes().stream().map(c -> c.file() + ":  " + c.from() + "  →  " + c.to()).toList());
            report.misplaced().forEach(m -> changes.getItems().add(m.file() + ":  misplaced (declares " + m.declared()
                    + ", location says " + m.expected() + ") — left alone"));
            report.problems().forEach(p -> changes.getItems().add(p.file() + ":  cannot heal — " + p.reason()));
            apply.setDisable(report.changes().isEmpty());
        });
        return panel;
    }

    static String describe(HealReport r) {
        if (r.changes().isEmpty()) {
            return "Nothing to heal: all " + r.scanned() + " leaf ids are canonical"
                    + (r.misplaced().isEmpty() ? "." : " or misplaced (" + r.misplaced().size() + ", left for you).");
        }
        return "Heal will rewrite " + r.changes().size() + " leaf id" + (r.changes().size() == 1 ? "" : "s") + " of " + r.scanned()
                + " contracts" + (r.misplaced().isEmpty() ? "" : "; " + r.misplaced().size() + " misplaced stay as they are") + ".";
    }

    private static Label banner(javafx.beans.value.ObservableStringValue text, String style) {
        Label l = new Label();
        l.getStyleClass().add(style);
        l.textProperty().bind(text);
        l.setWrapText(true);
        l.managedProperty().bind(l.textProperty().isNotEmpty());
        l.visibleProperty().bind(l.managedProperty());
        return l;
    }

    private static TableColumn<ContractRow, String> column(String name, double width, Function<ContractRow, String> value) {
        TableColumn<ContractRow, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
    }

    /** Colours id states and overdue deadlines so they stand out. */
    /** A state or deadline, coloured; the full text in a tooltip when the column is narrower ({@link dev.kiln.ui.util.FullTextCell}). */
    private static final class StateCell extends dev.kiln.ui.util.FullTextCell<ContractRow, String> {
        @Override
        protected void updateItem(String item, boolean empty) {
            super.updateItem(item, empty);
            getStyleClass().removeAll("state-ok", "state-warn", "state-bad");
            if (empty || item == null) {
                setText(null);
                return;
            }
            setText(item);
            // Id states are words ("legacy id"); deadlines only stand out when overdue.
            if (item.equals("ok")) {
                getStyleClass().add("state-ok");
            } else if (item.equals("unreadable")) {
                getStyleClass().add("state-bad");
            } else if (item.endsWith("overdue") || (item.contains(" id") && !item.contains(":"))) {
                getStyleClass().add("state-warn");
            }
        }
    }
}
