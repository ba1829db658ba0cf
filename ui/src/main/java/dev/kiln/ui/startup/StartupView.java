package dev.kiln.ui.startup;

import dev.kiln.core.startup.Conversation;
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
import javafx.scene.control.Tooltip;
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
        // Two lines' room whatever the summary says: the chart and the tabs never move under the mouse.
        verdict.setMinHeight(VERDICT_HEIGHT);
        verdict.setPrefHeight(VERDICT_HEIGHT);
        verdict.setMaxHeight(VERDICT_HEIGHT);
        verdict.setAlignment(Pos.TOP_LEFT);
        verdict.setMaxWidth(Double.MAX_VALUE);
        Tooltip verdictTip = new Tooltip();
        verdictTip.textProperty().bind(vm.verdictProperty());
        verdict.setTooltip(verdictTip);
        Label error = new Label();
        error.setId("startup-error");
        error.getStyleClass().add("text-danger");
        error.textProperty().bind(vm.errorProperty());
        error.setWrapText(true);
        error.managedProperty().bind(error.textProperty().isNotEmpty());
        error.visibleProperty().bind(error.managedProperty());

        TimelineChart chart = new TimelineChart(vm.lanes());
        chart.setId("startup-chart");
        // Every lane is drawn: the chart is as tall as its servers and the page scrolls (never a four-row box).

        TableView<StartupViewModel.Row> table = new TableView<>(vm.rows());
        table.setId("startup-results");
        table.getStyleClass().addAll("dense", "striped");
        table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        table.getColumns().add(column("Server", 150, StartupViewModel.Row::server));
        table.getColumns().add(column("Outcome", 90, StartupViewModel.Row::outcome));
        table.getColumns().add(column("Answer", 90, r -> r.initializeMs() == null ? "–" : String.format("%.0f ms", r.initializeMs())));
        table.getColumns().add(column("Tools", 55, r -> r.tools() < 0 ? "–" : Integer.toString(r.tools())));
        table.getColumns().add(column("Protocol", 95, StartupViewModel.Row::protocol));
        table.getColumns().add(column("Recommend", 105, r -> r.recommendSec() == null ? "–" : r.recommendSec() + " s"));
        table.getColumns().add(column("Why / where the time went", 300, StartupViewModel.Row::why));
        Label tablePlaceholder = new Label("Press Probe all: results and recommended startup timeouts appear here.");
        tablePlaceholder.setWrapText(true);
        table.setPlaceholder(tablePlaceholder);
        table.setPrefHeight(220);
        table.setMinHeight(140);
        VBox.setVgrow(table, Priority.ALWAYS);
        table.getSelectionModel().selectedItemProperty().addListener((o, a, row) -> {
            if (row != null) {
                vm.selectedServerProperty().set(row.server());
            }
        });
        Label since = new Label();
        since.setId("startup-since");
        since.getStyleClass().add("text-muted");
        since.setWrapText(true);
        since.setMinHeight(Region.USE_PREF_SIZE);
        since.textProperty().bind(vm.sinceLastRunProperty().map(t -> t.isEmpty() ? "" : "Since the last run: " + t));
        since.managedProperty().bind(since.textProperty().isNotEmpty());
        since.visibleProperty().bind(since.managedProperty());

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
        bytecode.setMinHeight(Region.USE_PREF_SIZE);
        HBox tools = new HBox(8, server, audit, precompile, bytecode);
        tools.setAlignment(Pos.CENTER_LEFT);
        for (Button b : new Button[] {audit, precompile}) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }

        HBox legend = new HBox(14, swatch("timeline-seg-fetch", "fetch (npx/uvx before the server ran)"),
                swatch("timeline-seg-start", "before first output (imports)"),
                swatch("timeline-seg-work", "first output → answer (work)"),
                swatch("timeline-seg-tools", "tools/list"), swatch("timeline-bar-bad", "late or failed"),
                swatch("timeline-timeout", "its startup timeout"));
        legend.setAlignment(Pos.CENTER_LEFT);
        Label margin = new Label("×N at a lane's end: its margin, the startup timeout ÷ its time to answer"
                + " (×10: it could start ten times slower before a client gives up). Click a server for its conversation.");
        margin.getStyleClass().add("timeline-legend");
        margin.setWrapText(true);
        margin.setMinHeight(Region.USE_PREF_SIZE);
        javafx.scene.layout.FlowPane legends = new javafx.scene.layout.FlowPane(14, 4, legend);
        legend.setMinWidth(Region.USE_PREF_SIZE);
        VBox legendBox = new VBox(2, legends, margin);

        ComboBox<dev.kiln.core.engine.SavedRun> saved = runPicker(vm, "Saved run…");
        saved.setId("startup-saved");
        saved.setPrefWidth(330);
        saved.setMinWidth(Region.USE_PREF_SIZE);
        saved.setOnAction(e -> {
            if (saved.getValue() != null && !saved.getValue().id().equals(vm.shownRunProperty().get())) {
                vm.showSaved(saved.getValue());
            }
        });
        // The picker names the run shown, also the one the page opened on.
        Runnable pickShown = () -> vm.savedRuns().stream().filter(r -> r.id().equals(vm.shownRunProperty().get())).findFirst()
                .ifPresentOrElse(saved::setValue, () -> saved.setValue(null));
        Tooltip savedTip = new Tooltip();
        savedTip.textProperty().bind(saved.valueProperty().map(vm::runName).orElse("Open a saved run"));
        saved.setTooltip(savedTip); // the run's whole name, should the picker be narrower than it
        vm.shownRunProperty().addListener((o, a, b) -> pickShown.run());
        vm.savedRuns().addListener((javafx.collections.ListChangeListener<dev.kiln.core.engine.SavedRun>) c -> pickShown.run());
        timeout.setMinWidth(Region.USE_PREF_SIZE);
        cpus.setMinWidth(Region.USE_PREF_SIZE);

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
        compare.setMinWidth(Region.USE_PREF_SIZE); // never "…"
        runA.setPrefWidth(330);
        runB.setPrefWidth(330);
        compare.setOnAction(e -> vm.compare(runA.getValue(), runB.getValue()));
        compare.disableProperty().bind(runA.valueProperty().isNull().or(runB.valueProperty().isNull()));
        Label compareTitle = new Label();
        compareTitle.textProperty().bind(vm.comparisonTitleProperty());
        compareTitle.getStyleClass().add("text-muted");
        compareTitle.setWrapText(true);
        compareTitle.setMinHeight(Region.USE_PREF_SIZE);
        TableView<StartupViewModel.Delta> deltas = new TableView<>(vm.comparison());
        deltas.setId("startup-deltas");
        deltas.getStyleClass().addAll("dense", "striped");
        deltas.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        deltas.getColumns().add(deltaColumn("Server", 170, StartupViewModel.Delta::server));
        deltas.getColumns().add(deltaColumn("A", 100, d -> d.aMs() == null ? "–" : String.format("%.0f ms", d.aMs())));
        deltas.getColumns().add(deltaColumn("B", 100, d -> d.bMs() == null ? "–" : String.format("%.0f ms", d.bMs())));
        TableColumn<StartupViewModel.Delta, StartupViewModel.Delta> delta = new TableColumn<>("Δ (B − A)");
        delta.setPrefWidth(260);
        delta.setCellValueFactory(f -> new javafx.beans.property.ReadOnlyObjectWrapper<>(f.getValue()));
        delta.setCellFactory(c -> new DeltaCell());
        deltas.getColumns().add(delta);
        Label deltaPlaceholder = new Label("Pick two saved runs (e.g. before and after a precompile) and press Compare.");
        deltaPlaceholder.setWrapText(true);
        deltas.setPlaceholder(deltaPlaceholder);
        HBox pick = new HBox(8, runA, runB, compare);
        pick.setAlignment(Pos.CENTER_LEFT);
        VBox comparePane = new VBox(8, pick, compareTitle, deltas);
        VBox.setVgrow(deltas, Priority.ALWAYS);

        javafx.scene.control.TabPane tabs = new javafx.scene.control.TabPane(
                new javafx.scene.control.Tab("Results", new VBox(8, table, since, config)),
                new javafx.scene.control.Tab("Sweep", heatScroll),
                new javafx.scene.control.Tab("Compare runs", comparePane),
                conversationTab(vm));
        tabs.setId("startup-tabs");
        tabs.setTabClosingPolicy(javafx.scene.control.TabPane.TabClosingPolicy.UNAVAILABLE);
        VBox.setVgrow(tabs, Priority.ALWAYS);
        tabs.setMinHeight(TABS_MIN_HEIGHT);
        tabs.setPrefHeight(TABS_MIN_HEIGHT);
        chart.setOnSelect(name -> {
            vm.selectedServerProperty().set(name);
            tabs.getSelectionModel().select(3);
        });
        if (Boolean.getBoolean("kiln.startup.sweepTab")) {
            tabs.getSelectionModel().select(1); // for screenshots of the heat map
        }
        if (Boolean.getBoolean("kiln.startup.conversationTab")) {
            tabs.getSelectionModel().select(3); // for screenshots of a server's conversation
        }
        sub.setWrapText(true);
        sub.setMinHeight(Region.USE_PREF_SIZE);
        error.setMinHeight(Region.USE_PREF_SIZE);

        // The run shown and its summary share one row of fixed height: the summary growing moves nothing.
        HBox.setHgrow(verdict, Priority.ALWAYS);
        HBox shown = new HBox(12, saved, verdict);
        shown.setAlignment(Pos.TOP_LEFT);
        getChildren().addAll(new VBox(2, title, sub), options, error, shown, chart, legendBox, tabs, tools);
        vm.load();
    }

    private static final double VERDICT_HEIGHT = 38;
    private static final double TABS_MIN_HEIGHT = 330;

    /** The Δ column: the change's word and colour by how bad it is (a regression of +58 % is not grey). */
    private static final class DeltaCell extends javafx.scene.control.TableCell<StartupViewModel.Delta, StartupViewModel.Delta> {
        @Override
        protected void updateItem(StartupViewModel.Delta d, boolean empty) {
            super.updateItem(d, empty);
            for (StartupViewModel.Severity s : StartupViewModel.Severity.values()) {
                getStyleClass().remove(s.style());
            }
            if (empty || d == null) {
                setText(null);
                setTooltip(null);
                return;
            }
            setText(d.text());
            getStyleClass().add(d.severity().style());
            setTooltip(new Tooltip(d.text()));
        }
    }

    /** A server's own conversation: the handshake's messages (time, direction, method or id), one's JSON, its stderr. */
    private static javafx.scene.control.Tab conversationTab(StartupViewModel vm) {
        Label head = new Label();
        head.setId("startup-conversation-title");
        head.getStyleClass().add("text-bold");
        head.setWrapText(true);
        head.setMinHeight(Region.USE_PREF_SIZE);
        TableView<Conversation.Message> messages = new TableView<>();
        messages.setId("startup-conversation");
        messages.getStyleClass().addAll("dense", "striped");
        messages.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        messages.getColumns().add(messageColumn("After spawn", 95, m -> String.format(java.util.Locale.ROOT, "%.1f ms", m.atMs())));
        messages.getColumns().add(messageColumn("Message", 230, Conversation.Message::summary));
        Label none = new Label("Select a server (a lane or a row): its handshake's messages and its stderr show here.");
        none.setWrapText(true);
        messages.setPlaceholder(none);
        TextArea json = new TextArea();
        json.setId("startup-conversation-json");
        json.setEditable(false);
        json.getStyleClass().add("kiln-code");
        json.setPromptText("the selected message as it crossed");
        messages.getSelectionModel().selectedItemProperty().addListener((o, a, m) -> json.setText(m == null ? "" : StartupViewModel.pretty(m)));
        TextArea stderr = new TextArea();
        stderr.setId("startup-conversation-stderr");
        stderr.setEditable(false);
        stderr.getStyleClass().add("kiln-code");
        Label stderrTitle = new Label("stderr");
        stderrTitle.getStyleClass().add("text-muted");
        Runnable show = () -> {
            Conversation c = vm.selectedConversationProperty().get();
            String server = vm.selectedServerProperty().get();
            messages.getItems().setAll(c.messages());
            head.setText(server.isEmpty() ? "No server selected" : server + " · " + c.messages().size() + " messages"
                    + (c.messagesDropped() > 0 ? " (+" + c.messagesDropped() + " not kept)" : "")
                    + " · stderr " + bytes(c.stderrBytes()) + (c.stderrTruncated() ? ", truncated to the last "
                    + Conversation.STDERR_LIMIT_BYTES / 1024 + " KiB" : ""));
            stderr.setText(server.isEmpty() ? "" : StartupViewModel.stderrText(c));
            if (!c.messages().isEmpty()) {
                messages.getSelectionModel().select(0);
            } else {
                json.setText("");
            }
        };
        vm.selectedConversationProperty().addListener((o, a, b) -> show.run());
        vm.selectedServerProperty().addListener((o, a, b) -> show.run());
        show.run();
        javafx.scene.layout.GridPane grid = new javafx.scene.layout.GridPane();
        grid.setHgap(8);
        grid.setVgap(4);
        javafx.scene.layout.ColumnConstraints left = new javafx.scene.layout.ColumnConstraints();
        left.setPercentWidth(42);
        javafx.scene.layout.ColumnConstraints right = new javafx.scene.layout.ColumnConstraints();
        right.setPercentWidth(58);
        grid.getColumnConstraints().addAll(left, right);
        grid.add(messages, 0, 0);
        grid.add(json, 1, 0);
        javafx.scene.layout.GridPane.setVgrow(messages, Priority.ALWAYS);
        javafx.scene.layout.GridPane.setVgrow(json, Priority.ALWAYS);
        VBox box = new VBox(6, head, grid, stderrTitle, stderr);
        VBox.setVgrow(grid, Priority.ALWAYS);
        stderr.setPrefRowCount(4);
        stderr.setMinHeight(70);
        javafx.scene.control.Tab tab = new javafx.scene.control.Tab("Conversation", box);
        tab.setId("startup-conversation-tab");
        return tab;
    }

    private static String bytes(long n) {
        return n < 1024 ? n + " B" : String.format(java.util.Locale.ROOT, "%.1f KiB", n / 1024.0);
    }

    private static TableColumn<Conversation.Message, String> messageColumn(String name, double width,
            Function<Conversation.Message, String> value) {
        TableColumn<Conversation.Message, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
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
                return r == null ? "" : vm.runName(r);
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
