package dev.kiln.ui.events;

import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.control.ToggleButton;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/** The Events page: a live, filterable list of engine events. */
public final class EventsView extends VBox {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    public EventsView(EventsViewModel vm) {
        setId("page-events");
        getStyleClass().add("page");
        setSpacing(12);

        Label title = new Label("Events");
        title.getStyleClass().add("title-2");
        Label count = new Label();
        count.getStyleClass().add("text-muted");
        count.textProperty().bind(vm.receivedProperty().asString("%,d received · newest first · last "
                + EventsViewModel.CAPACITY + " kept"));
        VBox heading = new VBox(2, title, count);

        TextField filter = org.controlsfx.control.textfield.TextFields.createClearableTextField(); // a ✕ empties the filter
        filter.setId("events-filter");
        filter.setPromptText("Filter by kind or text…");
        filter.setPrefColumnCount(24);
        filter.textProperty().bindBidirectional(vm.filterProperty());
        ToggleButton pause = new ToggleButton("Pause");
        pause.selectedProperty().bindBidirectional(vm.pausedProperty());
        Button clear = new Button("Clear");
        clear.setOnAction(e -> vm.clear());
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        HBox header = new HBox(10, heading, grow, filter, pause, clear);
        header.setAlignment(Pos.CENTER_LEFT);

        TableView<EventRow> table = new TableView<>(vm.shownRows());
        dev.kiln.ui.util.TableExport.install(table, "events");
        table.setId("events-table");
        table.getStyleClass().addAll("dense", "striped");
        // The dense rows' own height, fixed: a table that changes every tick then skips re-measuring rows in each layout.
        table.setFixedCellSize(28);
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        TableColumn<EventRow, String> at = new TableColumn<>("Time");
        at.setPrefWidth(110);
        at.setMinWidth(110);
        at.setMaxWidth(130);
        at.setCellValueFactory(f -> new ReadOnlyStringWrapper(TIME.format(f.getValue().at())));
        TableColumn<EventRow, String> kind = new TableColumn<>("Kind");
        kind.setPrefWidth(150);
        kind.setMaxWidth(220);
        kind.setCellValueFactory(f -> new ReadOnlyStringWrapper(f.getValue().kind()));
        TableColumn<EventRow, String> what = new TableColumn<>("What happened");
        what.setCellValueFactory(f -> new ReadOnlyStringWrapper(f.getValue().summary()));
        what.setPrefWidth(700);
        TableColumn<EventRow, Severity> severity = new TableColumn<>("Severity");
        severity.setPrefWidth(96);
        severity.setMinWidth(84);
        severity.setMaxWidth(140); // room to grow to "⚠ warning" in either theme's font (FullTextCell sizes it)
        severity.setCellValueFactory(f -> new javafx.beans.property.ReadOnlyObjectWrapper<>(f.getValue().severity()));
        // the word, coloured by the theme's variables; its column sized to the word, the word in a tooltip until then
        severity.setCellFactory(c -> new dev.kiln.ui.util.FullTextCell<>() {
            @Override
            protected void updateItem(Severity s, boolean empty) {
                super.updateItem(s, empty);
                getStyleClass().removeAll("kiln-severity-info", "kiln-severity-warning", "kiln-severity-error");
                if (empty || s == null) {
                    setText(null);
                } else {
                    setText((s == Severity.ERROR ? "✖ " : s == Severity.WARNING ? "⚠ " : "") + s.word());
                    getStyleClass().add(s.styleClass());
                }
            }
        });
        TableColumn<EventRow, String> lines = new TableColumn<>("Output");
        lines.setPrefWidth(90);
        lines.setMinWidth(80);
        lines.setMaxWidth(110);
        lines.setCellValueFactory(f -> new ReadOnlyStringWrapper(f.getValue().output().isEmpty() ? ""
                : "▸ " + f.getValue().output().size() + (f.getValue().output().size() == 1 ? " line" : " lines")));
        table.getColumns().addAll(java.util.List.of(at, severity, kind, what, lines));
        table.setPlaceholder(new Label("No events yet. Ticks, cache hits, warms and probe steps appear here as they happen."));
        VBox.setVgrow(table, Priority.ALWAYS);

        // A warm's output is folded under its row: selecting the row expands it here.
        javafx.scene.control.TextArea output = new javafx.scene.control.TextArea();
        output.setId("events-output");
        output.setEditable(false);
        output.setPrefRowCount(8);
        output.getStyleClass().add("kiln-mono");
        output.setVisible(false);
        output.setManaged(false);
        table.getSelectionModel().selectedItemProperty().addListener((o, was, row) -> {
            boolean has = row != null && !row.output().isEmpty();
            output.setText(has ? String.join("\n", row.output()) : "");
            output.setVisible(has);
            output.setManaged(has);
        });
        getChildren().addAll(header, table, output);
    }
}
