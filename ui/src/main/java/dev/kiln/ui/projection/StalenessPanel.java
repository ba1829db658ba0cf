package dev.kiln.ui.projection;

import dev.kiln.core.doctor.Diagnosis;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.ListChangeListener;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * "Why is this stale?" on the Projection page: a button that runs the staleness doctor and, once it answered, the
 * verdict in one line, what to do, the evidence and one row per difference with its likely cause.
 */
public final class StalenessPanel extends VBox {

    public StalenessPanel(StalenessViewModel vm) {
        setId("staleness");
        setSpacing(6);
        setMinHeight(Region.USE_PREF_SIZE);
        setStyle("-fx-background-color: -color-bg-subtle; -fx-background-radius: 6; -fx-border-color: -color-border-muted;"
                + " -fx-border-radius: 6; -fx-padding: 10 12 10 12;");

        Button run = new Button("Why is this stale?");
        run.setId("staleness-run");
        run.setOnAction(e -> vm.diagnose());
        run.disableProperty().bind(vm.runningProperty());
        run.setMinWidth(Region.USE_PREF_SIZE);
        Label hint = new Label();
        hint.getStyleClass().add("text-muted");
        hint.textProperty().bind(Bindings.when(vm.runningProperty()).then("Comparing what is published with the disk…")
                .otherwise(Bindings.when(vm.verdictProperty().isNull())
                        .then("Compares what is published with a fresh read-only projection of the disk, and says why they differ.")
                        .otherwise("")));
        hint.managedProperty().bind(hint.textProperty().isNotEmpty());
        hint.visibleProperty().bind(hint.managedProperty());
        Label headline = new Label();
        headline.setId("staleness-headline");
        headline.setWrapText(true);
        headline.setMinWidth(0);
        headline.setMaxWidth(Double.MAX_VALUE);
        headline.setMinHeight(Region.USE_PREF_SIZE);
        HBox.setHgrow(headline, Priority.ALWAYS);
        headline.textProperty().bind(vm.headlineProperty());
        headline.managedProperty().bind(headline.textProperty().isNotEmpty());
        headline.visibleProperty().bind(headline.managedProperty());
        vm.verdictProperty().addListener((o, was, v) -> {
            headline.getStyleClass().removeAll("state-ok", "state-warn", "state-bad"); // the console's verdict colours
            if (v != null) {
                headline.getStyleClass().add(v == Diagnosis.Verdict.UP_TO_DATE ? "state-ok"
                        : v == Diagnosis.Verdict.STALE ? "state-warn" : "state-bad");
            }
        });
        headline.setStyle("-fx-font-size: 1.1em;");
        HBox top = new HBox(12, run, hint, headline);
        top.setAlignment(Pos.CENTER_LEFT);

        VBox remedies = lines(vm.remedies(), "staleness-remedies", "What to do: ", "");
        VBox evidence = lines(vm.evidence(), "staleness-evidence", "", "text-muted");
        Label error = new Label();
        error.getStyleClass().add("text-danger");
        error.textProperty().bind(vm.errorProperty());
        error.managedProperty().bind(error.textProperty().isNotEmpty());
        error.visibleProperty().bind(error.managedProperty());

        TableView<StalenessViewModel.Row> table = new TableView<>(vm.rows());
        dev.kiln.ui.util.TableExport.install(table, "staleness");
        table.setId("staleness-differences");
        table.getStyleClass().addAll("dense", "striped");
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getColumns().add(column("Contract", 150, StalenessViewModel.Row::contract));
        table.getColumns().add(column("How", 80, StalenessViewModel.Row::how));
        table.getColumns().add(column("Published → now", 170, StalenessViewModel.Row::fields));
        table.getColumns().add(column("Likely cause", 145, StalenessViewModel.Row::cause));
        table.getColumns().add(column("Evidence", 300, StalenessViewModel.Row::evidence));
        table.setPlaceholder(new Label("No differences"));
        table.setFixedCellSize(26);
        // as tall as its rows, up to eight: the tick history below keeps its room
        table.prefHeightProperty().bind(Bindings.min(8, Bindings.max(1, Bindings.size(vm.rows()))).multiply(26).add(40));
        table.minHeightProperty().bind(table.prefHeightProperty()); // the page's other table gives way, not this one

        // the selected difference's evidence in full (the first one until another is picked): a cell cuts it short
        Label detail = new Label();
        detail.setId("staleness-detail");
        detail.setWrapText(true);
        detail.setMinHeight(Region.USE_PREF_SIZE);
        detail.textProperty().bind(Bindings.createStringBinding(() -> {
            StalenessViewModel.Row r = table.getSelectionModel().getSelectedItem();
            return r == null ? "" : r.contract() + " — " + r.cause() + ": " + r.evidence();
        }, table.getSelectionModel().selectedItemProperty()));
        detail.managedProperty().bind(detail.textProperty().isNotEmpty());
        detail.visibleProperty().bind(detail.managedProperty());
        getChildren().addAll(top, error, remedies, evidence, detail);
        vm.rows().addListener((ListChangeListener<StalenessViewModel.Row>) c -> {
            showWhileAny(table, detail);
            if (!vm.rows().isEmpty()) {
                table.getSelectionModel().select(0);
            }
        });
        showWhileAny(table, detail);
    }

    /**
     * The differences table is in the scene only while it has rows, just before {@code detail}. Hidden and unmanaged
     * it kept a 17 px width, and its constrained columns were laid out again in every pulse (2–5 ms each,
     * {@code kiln bench ui}).
     */
    private void showWhileAny(TableView<StalenessViewModel.Row> table, Label detail) {
        boolean any = !table.getItems().isEmpty();
        if (any && table.getParent() == null) {
            getChildren().add(getChildren().indexOf(detail), table);
        } else if (!any) {
            getChildren().remove(table);
        }
    }

    /** A list of lines that follows {@code items}; each has the full text as its tooltip. */
    private static VBox lines(javafx.collections.ObservableList<String> items, String id, String prefix, String style) {
        VBox box = new VBox(2);
        box.setId(id);
        Runnable fill = () -> box.getChildren().setAll(items.stream().map(s -> {
            Label l = new Label((prefix.isEmpty() ? "• " : prefix) + s);
            l.setWrapText(true);
            l.setMinHeight(Region.USE_PREF_SIZE); // wrapped lines keep their height in a crowded page
            l.setTooltip(new Tooltip(s));
            if (!style.isEmpty()) {
                l.getStyleClass().add(style);
            }
            return l;
        }).toList());
        items.addListener((ListChangeListener<String>) c -> fill.run());
        fill.run();
        box.managedProperty().bind(Bindings.isNotEmpty(items));
        box.visibleProperty().bind(box.managedProperty());
        return box;
    }

    private static TableColumn<StalenessViewModel.Row, String> column(String name, double width,
            Function<StalenessViewModel.Row, String> value) {
        TableColumn<StalenessViewModel.Row, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        c.setCellFactory(col -> new TableCell<>() {
            @Override
            protected void updateItem(String item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty ? null : item);
                setTooltip(empty || item == null || item.isEmpty() ? null : new Tooltip(item));
            }
        });
        return c;
    }
}
