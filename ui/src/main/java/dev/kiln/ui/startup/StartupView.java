package dev.kiln.ui.startup;

import dev.kiln.core.startup.ServerConfig;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;

/**
 * The Startup page: probe options, live timelines (phases as segments, the timeout as a line across lanes), the
 * verdict; tabs for the results with config lines, the latest sweep as a heat map, and two saved runs compared; the
 * bytecode tools. It opens on the workspace's latest saved run.
 */
public final class StartupView extends VBox {

    public StartupView(StartupViewModel vm) {
        setId("page-startup");
        getStyleClass().add("page");
        setSpacing(12);

        Label title = new Label("Startup");
        title.getStyleClass().add("title-2");
        Label sub = new Label("Every server started at once, timed to its initialize answer · " + vm.serversFile());
        sub.getStyleClass().add("text-muted");

        TextField timeout = new TextField();
        timeout.setPromptText("configured");
        timeout.setPrefColumnCount(7);
        timeout.textProperty().bindBidirectional(vm.timeoutSecondsProperty());
        TextField cpus = new TextField();
        cpus.setPromptText("all");
        cpus.setPrefColumnCount(5);
        cpus.textProperty().bindBidirectional(vm.cpusProperty());
        CheckBox cold = new CheckBox("Cold bytecode");
        cold.selectedProperty().bindBidirectional(vm.coldBytecodeProperty());
        Button probe = new Button("Probe all");
        probe.setId("startup-probe");
        probe.getStyleClass().add("accent");
        probe.setOnAction(e -> vm.probe());
        probe.disableProperty().bind(vm.probingProperty());
        Button cancel = new Button("Cancel");
        cancel.setOnAction(e -> vm.cancel());
        cancel.disableProperty().bind(vm.probingProperty().not());
        Button reload = new Button("Reload servers");
        reload.setOnAction(e -> vm.load());
        ProgressIndicator busy = new ProgressIndicator();
        busy.setPrefSize(18, 18);
        busy.visibleProperty().bind(vm.probingProperty());
        Region grow = new Region();
        HBox.setHgrow(grow, Priority.ALWAYS);
        HBox options = new HBox(8, new Label("Timeout (s)"), timeout, new Label("CPUs"), cpus, cold, grow, busy, reload, cancel, probe);
        options.setAlignment(Pos.CENTER_LEFT);
        for (javafx.scene.Node n : options.getChildren()) {
            if (n instanceof Label || n instanceof CheckBox) {
                ((Region) n).setMinWidth(Region.USE_PREF_SIZE);
            }
        }
        for (Button b : new Button[] {probe, cancel, reload}) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }

        Label verdict = new Label();
        verdict.setId("startup-verdict");
        verdict.getStyleClass().add("text-bold");
        verdict.textProperty().bind(vm.verdictProperty());
        verdict.setWrapText(true);
        verdict.setMinHeight(Region.USE_PREF_SIZE);
        verdict.managedProperty().bind(verdict.textProperty().isNotEmpty());
        verdict.visibleProperty().bind(verdict.managedProperty());
        Label error = new Label();
        error.setId("startup-error");
        error.getStyleClass().add("text-danger");
        error.textProperty().bind(vm.errorProperty());
        error.setWrapText(true);
        error.managedProperty().bind(error.textProperty().isNotEmpty());
        error.visibleProperty().bind(error.managedProperty());

        TimelineChart chart = new TimelineChart(vm.lanes());
        chart.setId("startup-chart");
        ScrollPane chartScroll = new ScrollPane(chart);
        chartScroll.setFitToWidth(true);
        Runnable fit = () -> {
            chartScroll.setPrefViewportHeight(TimelineChart.heightFor(vm.lanes().size()));
            chartScroll.setMinViewportHeight(TimelineChart.heightFor(vm.lanes().size()));
        };
        fit.run();
        vm.lanes().addListener((javafx.collections.ListChangeListener<Lane>) c -> fit.run());
        chartScroll.getStyleClass().add("edge-to-edge");

        TableView<StartupViewModel.Row> table = new TableView<>(vm.rows());
        table.setId("startup-results");
        table.getStyleClass().addAll("dense", "striped");
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getColumns().add(column("Server", 150, StartupViewModel.Row::server));
        table.getColumns().add(column("Outcome", 90, StartupViewModel.Row::outcome));
        table.getColumns().add(column("Answer", 90, r -> r.initializeMs() == null ? "–" : String.format("%.0f ms", r.initializeMs())));
        table.getColumns().add(column("Tools", 55, r -> r.tools() < 0 ? "–" : Integer.toString(r.tools())));
        table.getColumns().add(column("Protocol", 95, StartupViewModel.Row::protocol));
        table.getColumns().add(column("Recommend", 90, r -> r.recommendSec() == null ? "–" : r.recommendSec() + " s"));
        table.getColumns().add(column("Why / where the time went", 300, StartupViewModel.Row::why));
        table.setPlaceholder(new Label("Press Probe all: results and recommended startup timeouts appear here."));
        table.setPrefHeight(150);
        table.setMinHeight(110);
        VBox.setVgrow(table, Priority.ALWAYS);

        TextArea config = new TextArea();
        config.setId("startup-config");
        config.setEditable(false);
        config.setPrefRowCount(4);
        config.setMinHeight(90);
        config.getStyleClass().add("kiln-code");
        config.textProperty().bind(vm.configLinesProperty());
        config.managedProperty().bind(vm.configLinesProperty().isNotEmpty());
        config.visibleProperty().bind(config.managedProperty());

        ComboBox<ServerConfig> server = new ComboBox<>(vm.servers());
        server.setPromptText("Python server…");
        server.setConverter(new StringConverter<>() {
            @Override
            public String toString(ServerConfig s) {
                return s == null ? "" : s.name();
            }

            @Override
            public ServerConfig fromString(String s) {
                return null;
            }
        });
        Button audit = new Button("Audit bytecode");
        audit.setOnAction(e -> vm.audit(server.getValue()));
        Button precompile = new Button("Precompile");
        precompile.setOnAction(e -> vm.precompile(server.getValue()));
        audit.disableProperty().bind(server.valueProperty().isNull());
        precompile.disableProperty().bind(server.valueProperty().isNull());
        Label bytecode = new Label();
        bytecode.setId("startup-bytecode");
        bytecode.textProperty().bind(vm.bytecodeProperty());
        bytecode.setWrapText(true);
        bytecode.getStyleClass().add("text-muted");
        HBox.setHgrow(bytecode, Priority.ALWAYS);
        HBox tools = new HBox(8, server, audit, precompile, bytecode);
        tools.setAlignment(Pos.CENTER_LEFT);
        for (Button b : new Button[] {audit, precompile}) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }

        HBox legend = new HBox(14, swatch("timeline-seg-fetch", "fetch (npx/uvx before the server ran)"),
                swatch("timeline-seg-start", "before first output (imports)"),
                swatch("timeline-seg-work", "first output → answer (work)"),
                swatch("timeline-seg-tools", "tools/list"), swatch("timeline-bar-bad", "late or failed"),
                swatch("timeline-timeout", "startup timeout"));
        legend.setAlignment(Pos.CENTER_LEFT);

        ComboBox<dev.kiln.core.engine.SavedRun> saved = runPicker(vm, "Saved run…");
        saved.setId("startup-saved");
        saved.setPrefWidth(190);
        saved.setOnAction(e -> {
            if (saved.getValue() != null) {
                vm.showSaved(saved.getValue());
            }
        });
        options.getChildren().add(options.getChildren().indexOf(grow), saved);

        // Sweep heat map (the latest saved sweep), or what to run to get one.
        SweepHeatMap heat = new SweepHeatMap();
        heat.setId("startup-heatmap");
        Label noSweep = new Label("No sweep yet. Run kiln probe --sweep 4,2,1,0.5 --compare-bytecode in this workspace:"
                + " the matrix of servers × CPU shares before/after precompiling appears here.");
        noSweep.setWrapText(true);
        noSweep.getStyleClass().add("text-muted");
        Runnable showSweep = () -> {
            heat.show(vm.sweepProperty().get());
            noSweep.setVisible(vm.sweepProperty().get() == null);
            noSweep.setManaged(noSweep.isVisible());
        };
        vm.sweepProperty().addListener((o, a, b) -> showSweep.run());
        showSweep.run();
        ScrollPane heatScroll = new ScrollPane(new VBox(8, noSweep, heat));
        heatScroll.setFitToWidth(true);

        // Two saved runs side by side, with the delta per server.
        ComboBox<dev.kiln.core.engine.SavedRun> runA = runPicker(vm, "Run A…");
        ComboBox<dev.kiln.core.engine.SavedRun> runB = runPicker(vm, "Run B…");
        Button compare = new Button("Compare");
        compare.setId("startup-compare");
        compare.setOnAction(e -> vm.compare(runA.getValue(), runB.getValue()));
        compare.disableProperty().bind(runA.valueProperty().isNull().or(runB.valueProperty().isNull()));
        Label compareTitle = new Label();
        compareTitle.textProperty().bind(vm.comparisonTitleProperty());
        compareTitle.getStyleClass().add("text-muted");
        TableView<StartupViewModel.Delta> deltas = new TableView<>(vm.comparison());
        deltas.setId("startup-deltas");
        deltas.getStyleClass().addAll("dense", "striped");
        deltas.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        deltas.getColumns().add(deltaColumn("Server", 170, StartupViewModel.Delta::server));
        deltas.getColumns().add(deltaColumn("A", 100, d -> d.aMs() == null ? "–" : String.format("%.0f ms", d.aMs())));
        deltas.getColumns().add(deltaColumn("B", 100, d -> d.bMs() == null ? "–" : String.format("%.0f ms", d.bMs())));
        deltas.getColumns().add(deltaColumn("Δ (B − A)", 200, StartupViewModel.Delta::text));
        deltas.setPlaceholder(new Label("Pick two saved runs (e.g. before and after a precompile) and press Compare."));
        HBox pick = new HBox(8, runA, runB, compare, compareTitle);
        pick.setAlignment(Pos.CENTER_LEFT);
        VBox comparePane = new VBox(8, pick, deltas);
        VBox.setVgrow(deltas, Priority.ALWAYS);

        javafx.scene.control.TabPane tabs = new javafx.scene.control.TabPane(
                new javafx.scene.control.Tab("Results", new VBox(8, table, config)),
                new javafx.scene.control.Tab("Sweep", heatScroll),
                new javafx.scene.control.Tab("Compare runs", comparePane));
        tabs.setId("startup-tabs");
        tabs.setTabClosingPolicy(javafx.scene.control.TabPane.TabClosingPolicy.UNAVAILABLE);
        VBox.setVgrow(tabs, Priority.ALWAYS);
        // On the Sweep and Compare tabs the matrix is the focus: the timelines shrink to a few (scrollable) lanes.
        Runnable fitChart = () -> {
            int shown = tabs.getSelectionModel().getSelectedIndex() == 0 ? vm.lanes().size() : Math.min(3, vm.lanes().size());
            chartScroll.setPrefViewportHeight(TimelineChart.heightFor(shown));
            chartScroll.setMinViewportHeight(TimelineChart.heightFor(shown));
        };
        tabs.getSelectionModel().selectedIndexProperty().addListener((o, a, b) -> fitChart.run());
        vm.lanes().addListener((javafx.collections.ListChangeListener<Lane>) c -> fitChart.run());
        if (Boolean.getBoolean("kiln.startup.sweepTab")) {
            tabs.getSelectionModel().select(1); // for screenshots of the heat map
        }

        getChildren().addAll(new VBox(2, title, sub), options, error, verdict, chartScroll, legend, tabs, tools);
        vm.load();
    }

    private static HBox swatch(String style, String text) {
        javafx.scene.Node mark;
        if (style.equals("timeline-timeout")) {
            javafx.scene.shape.Line l = new javafx.scene.shape.Line(0, 0, 0, 12);
            l.getStyleClass().add(style);
            mark = l;
        } else {
            javafx.scene.shape.Rectangle r = new javafx.scene.shape.Rectangle(14, 10);
            r.getStyleClass().add(style);
            mark = r;
        }
        Label l = new Label(text);
        l.getStyleClass().add("timeline-legend");
        HBox box = new HBox(5, mark, l);
        box.setAlignment(Pos.CENTER_LEFT);
        return box;
    }

    private static ComboBox<dev.kiln.core.engine.SavedRun> runPicker(StartupViewModel vm, String prompt) {
        ComboBox<dev.kiln.core.engine.SavedRun> box = new ComboBox<>(vm.savedRuns());
        box.setPromptText(prompt);
        box.setConverter(new StringConverter<>() {
            @Override
            public String toString(dev.kiln.core.engine.SavedRun r) {
                return r == null ? "" : r.id().replace("probe-", "").replace(".json", "");
            }

            @Override
            public dev.kiln.core.engine.SavedRun fromString(String s) {
                return null;
            }
        });
        return box;
    }

    private static TableColumn<StartupViewModel.Delta, String> deltaColumn(String name, double width,
            Function<StartupViewModel.Delta, String> value) {
        TableColumn<StartupViewModel.Delta, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
    }

    private static TableColumn<StartupViewModel.Row, String> column(String name, double width,
            Function<StartupViewModel.Row, String> value) {
        TableColumn<StartupViewModel.Row, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
    }
}
