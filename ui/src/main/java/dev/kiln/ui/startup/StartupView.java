package dev.kiln.ui.startup;

import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ServerConfig;
import java.util.function.Function;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
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

/** The Startup page: probe options, live timelines, the verdict with config lines, and the bytecode tools. */
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
        timeout.setPrefColumnCount(6);
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
        for (Button b : new Button[] {probe, cancel, reload}) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }

        Label verdict = new Label();
        verdict.setId("startup-verdict");
        verdict.getStyleClass().add("text-bold");
        verdict.textProperty().bind(vm.verdictProperty());
        verdict.setWrapText(true);
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

        TableView<ProbeReport.ServerSummary> table = new TableView<>();
        table.setId("startup-results");
        table.getStyleClass().addAll("dense", "striped");
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getColumns().add(column("Server", 150, ProbeReport.ServerSummary::name));
        table.getColumns().add(column("Outcome", 90, s -> s.representative().outcomeText()));
        table.getColumns().add(column("Initialize", 90, s -> s.initializeMsMedian() == null ? "–" : String.format("%.0f ms", s.initializeMsMedian())));
        table.getColumns().add(column("Tools", 55, s -> s.representative().tools() < 0 ? "–" : Integer.toString(s.representative().tools())));
        table.getColumns().add(column("Protocol", 95, s -> s.representative().protocolVersion() == null ? "–" : s.representative().protocolVersion()));
        table.getColumns().add(column("Recommend", 90, s -> s.recommendedTimeoutSec() == null ? "–" : s.recommendedTimeoutSec() + " s"));
        table.getColumns().add(column("Why", 240, s -> s.representative().reason()));
        table.setPlaceholder(new Label("Press Probe all: results and recommended startup timeouts appear here."));
        vm.reportProperty().addListener((o, a, r) -> table.setItems(r == null ? FXCollections.observableArrayList()
                : FXCollections.observableArrayList(r.servers())));
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

        getChildren().addAll(new VBox(2, title, sub), options, error, verdict, chartScroll, table, config, tools);
        vm.load();
    }

    private static TableColumn<ProbeReport.ServerSummary, String> column(String name, double width,
            Function<ProbeReport.ServerSummary, String> value) {
        TableColumn<ProbeReport.ServerSummary, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
    }
}
