package dev.kiln.ui.projection;

import dev.kiln.core.projection.TickResult;
import dev.kiln.ui.health.AlertsView;
import dev.kiln.ui.health.HealthCards;
import dev.kiln.ui.health.HealthViewModel;
import dev.kiln.ui.util.Cards;
import dev.kiln.ui.util.SteadyLabel;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/** The Projection page: cards for the latest tick, the wake reasons, and the tick history. */
public final class ProjectionView extends VBox {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    public ProjectionView(ProjectionViewModel vm) {
        setId("page-projection");
        getStyleClass().add("page");
        setSpacing(14);

        Label title = new Label("Projection");
        title.getStyleClass().add("title-2");
        Label file = new Label(vm.stateFile());
        file.getStyleClass().add("text-muted");
        VBox heading = new VBox(2, title, file);
        Button now = new Button("Project now");
        now.setId("projection-now");
        now.setOnAction(e -> vm.projectNow());
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        HBox header = new HBox(10, heading, grow, now);
        header.setAlignment(Pos.CENTER_LEFT);

        dev.kiln.ui.health.HealthViewModel health = vm.health();
        HBox cards = new HBox(8,
                HealthCards.decorate(Cards.card("Health", Bindings.createStringBinding(() -> health.verdictProperty().get() == null
                        ? "–" : health.verdictProperty().get().state().wireName(), health.verdictProperty()), "projection-health"),
                        health.cardProperty(HealthViewModel.Card.HEALTH), "card-health"),
                HealthCards.decorate(Cards.card("Last projected", vm.ageProperty(), "projection-age"),
                        health.cardProperty(HealthViewModel.Card.AGE), "card-age"),
                Cards.card("Revision", Bindings.createStringBinding(() -> text(vm, r -> Long.toString(r.revision())), vm.lastProperty()), "projection-revision"),
                Cards.card("Contracts", Bindings.createStringBinding(() -> text(vm, r -> Integer.toString(r.leaves())), vm.lastProperty()), null),
                Cards.card("Last tick", Bindings.createStringBinding(() -> text(vm, r -> r.durationMillis() < 100 ? String.format("%.1f ms", r.durationMillis())
                        : Math.round(r.durationMillis()) + " ms"), vm.lastProperty()), null),
                Cards.card("Parsed / reused", Bindings.createStringBinding(() -> text(vm, r -> r.stats().parsed() + " / " + r.stats().reused()), vm.lastProperty()), null),
                HealthCards.decorate(Cards.card("Failures", Bindings.createStringBinding(() -> text(vm, r -> Integer.toString(r.failures())), vm.lastProperty()), null),
                        health.cardProperty(HealthViewModel.Card.FAILURES), "card-failures"));
        cards.getChildren().forEach(c -> HBox.setHgrow(c, Priority.ALWAYS));
        // the verdict's word ("degraded") is the widest value: its card keeps it whole, the others share the rest
        ((javafx.scene.layout.Region) cards.getChildren().get(0)).setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);

        // the watch's and the wake reasons' lines change with ticks: they do so without laying out the page
        SteadyLabel watchLine = new SteadyLabel();
        Label watch = watchLine.label();
        watch.setId("projection-watch");
        watch.textProperty().bind(Bindings.concat("Watch: ", vm.watchProperty()));
        Label api = new Label();
        api.getStyleClass().add("text-muted");
        api.textProperty().bind(Bindings.when(vm.apiUrlProperty().isEmpty()).then("")
                .otherwise(Bindings.concat("API: ", vm.apiUrlProperty(), "api/state  ·  token in observer/api-token")));
        api.managedProperty().bind(vm.apiUrlProperty().isNotEmpty());
        api.visibleProperty().bind(api.managedProperty());
        SteadyLabel reasonsLine = new SteadyLabel();
        Label reasons = reasonsLine.label();
        reasons.setId("projection-reasons");
        reasons.textProperty().bind(Bindings.concat("Wake reasons: ", vm.reasonsProperty()));
        reasons.getStyleClass().add("text-muted");
        Label manual = new Label(); // changes once per click, not per tick: a plain label
        manual.setId("projection-manual");
        manual.textProperty().bind(vm.manualResultProperty());
        manual.managedProperty().bind(manual.textProperty().isNotEmpty());
        manual.visibleProperty().bind(manual.managedProperty());
        Label error = new Label();
        error.setId("projection-error");
        error.getStyleClass().add("kiln-banner-danger"); // a file that cannot be written (disk full) must not be missed
        error.setWrapText(true);
        error.setMaxWidth(Double.MAX_VALUE);
        error.setMinHeight(Region.USE_PREF_SIZE); // wrap rather than cut the path and the reason
        error.textProperty().bind(vm.errorProperty());
        error.managedProperty().bind(error.textProperty().isNotEmpty());
        error.visibleProperty().bind(error.managedProperty());

        Label degraded = new Label();
        degraded.setId("projection-degraded");
        degraded.getStyleClass().add("kiln-banner-danger");
        degraded.setWrapText(true);
        degraded.setMaxWidth(Double.MAX_VALUE);
        degraded.setMinHeight(Region.USE_PREF_SIZE); // wrap rather than cut the reason
        degraded.textProperty().bind(vm.degradedProperty());
        degraded.managedProperty().bind(vm.degradedProperty().isNotEmpty());
        degraded.visibleProperty().bind(degraded.managedProperty());

        TableView<TickResult> table = new TableView<>(vm.history());
        dev.kiln.ui.util.TableExport.install(table, "ticks");
        table.setId("projection-ticks");
        table.getStyleClass().addAll("dense", "striped");
        // The dense rows' own height, fixed: a table that changes every tick then skips re-measuring rows in each layout.
        table.setFixedCellSize(28);
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getColumns().add(column("Time", 110, r -> TIME.format(r.at())));
        table.getColumns().add(column("Woke for", 100, r -> r.reason().jsonName()));
        table.getColumns().add(column("Revision", 80, r -> r.revision() + (r.changed() ? " ▲" : "")));
        table.getColumns().add(column("Duration", 90, r -> String.format("%.1f ms", r.durationMillis())));
        table.getColumns().add(column("Enumerated", 110, r -> Integer.toString(r.stats().enumerated())));
        table.getColumns().add(column("Parsed", 70, r -> Integer.toString(r.stats().parsed())));
        table.getColumns().add(column("Reused", 70, r -> Integer.toString(r.stats().reused())));
        table.getColumns().add(column("Failed", 60, r -> Integer.toString(r.failures())));
        table.getColumns().add(column("Note", 200, r -> r.writeError() != null ? "state.json not written: " + r.writeError()
                : !r.driftPruned().isEmpty() ? "pruned drift: " + String.join(", ", r.driftPruned()) : ""));
        table.setPlaceholder(new Label("No ticks yet"));
        VBox.setVgrow(table, Priority.ALWAYS);
        table.setMinHeight(100);

        getChildren().addAll(header, degraded, cards, new AlertsView(health), watchLine, api, reasonsLine, manual, error, new StalenessPanel(vm.staleness()),
                new ProjectionCharts(vm), table);
    }

    private static String text(ProjectionViewModel vm, Function<TickResult, String> f) {
        TickResult r = vm.lastProperty().get();
        return r == null ? "–" : f.apply(r);
    }

    private static TableColumn<TickResult, String> column(String name, double width, Function<TickResult, String> value) {
        TableColumn<TickResult, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
    }
}
