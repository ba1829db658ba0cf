package dev.kiln.ui.contracts;

import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/** The Contracts page: a filterable table of contract files. All state lives in {@link ContractsViewModel}. */
public final class ContractsView extends VBox {

    public ContractsView(ContractsViewModel vm) {
        setId("page-contracts");
        getStyleClass().add("page");
        setSpacing(12);

        Label title = new Label("Contracts");
        title.getStyleClass().add("title-2");
        Label summary = new Label();
        summary.setId("contracts-summary");
        summary.getStyleClass().add("text-muted");
        summary.textProperty().bind(vm.summaryProperty());
        VBox heading = new VBox(2, title, summary);

        TextField filter = new TextField();
        filter.setPromptText("Filter by path, leaf id or state…");
        filter.setPrefColumnCount(28);
        filter.textProperty().bindBidirectional(vm.filterProperty());
        Button refresh = new Button("Refresh");
        refresh.setOnAction(e -> vm.refresh());
        ProgressIndicator busy = new ProgressIndicator();
        busy.setPrefSize(18, 18);
        busy.visibleProperty().bind(vm.loadingProperty());
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        HBox header = new HBox(10, heading, grow, busy, filter, refresh);
        header.setAlignment(Pos.CENTER_LEFT);

        Label error = new Label();
        error.getStyleClass().add("text-danger");
        error.textProperty().bind(vm.errorProperty());
        error.managedProperty().bind(error.textProperty().isNotEmpty());
        error.visibleProperty().bind(error.managedProperty());

        TableView<ContractRow> table = new TableView<>(vm.shownRows());
        table.setId("contracts-table");
        table.getStyleClass().addAll("dense", "striped");
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getColumns().add(column("Leaf id", 280, ContractRow::leafId));
        TableColumn<ContractRow, String> state = column("State", 110, ContractRow::state);
        state.setCellFactory(c -> new StateCell());
        table.getColumns().add(state);
        table.getColumns().add(column("File (under tasks/)", 420, ContractRow::file));
        table.getColumns().add(column("Problem", 240, ContractRow::problem));
        table.setPlaceholder(new Label("No contract files under tasks/"));
        VBox.setVgrow(table, Priority.ALWAYS);

        getChildren().addAll(header, error, table);
    }

    private static TableColumn<ContractRow, String> column(String name, double width, java.util.function.Function<ContractRow, String> value) {
        TableColumn<ContractRow, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
    }

    /** Colours the state so legacy and unreadable rows stand out. */
    private static final class StateCell extends TableCell<ContractRow, String> {
        @Override
        protected void updateItem(String item, boolean empty) {
            super.updateItem(item, empty);
            getStyleClass().removeAll("state-ok", "state-warn", "state-bad");
            if (empty || item == null) {
                setText(null);
                return;
            }
            setText(item);
            getStyleClass().add(switch (item) {
                case "ok" -> "state-ok";
                case "unreadable" -> "state-bad";
                default -> "state-warn";
            });
        }
    }
}
