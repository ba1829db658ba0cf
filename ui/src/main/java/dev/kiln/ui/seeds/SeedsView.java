package dev.kiln.ui.seeds;

import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmResult;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Function;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.ListChangeListener;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.chart.CategoryAxis;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.StackedBarChart;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The Seeds page: each target's state with the reason, warm actions (one, or all stale ones in turn) with live uv
 * output and progress per target, each seed's place against the object store with push / pull, the missing-uv
 * message, a chart of the latest warms (duration, coloured by
 * outcome) and the warm history.
 */
public final class SeedsView extends VBox {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneId.systemDefault());

    public SeedsView(SeedsViewModel vm) {
        setId("page-seeds");
        getStyleClass().add("page");
        setSpacing(10);

        Label title = new Label("Seeds");
        title.getStyleClass().add("title-2");
        Label sub = new Label();
        sub.textProperty().bind(Bindings.concat("uv caches warmed wheels-only, once per lockfile",
                Bindings.when(vm.seedsDirProperty().isEmpty()).then("").otherwise(Bindings.concat(" · ", vm.seedsDirProperty()))));
        sub.getStyleClass().add("text-muted");

        Label uv = new Label();
        uv.setId("seeds-uv-problem");
        uv.getStyleClass().add("kiln-banner-danger");
        uv.setWrapText(true);
        uv.setMaxWidth(Double.MAX_VALUE);
        uv.setMinHeight(Region.USE_PREF_SIZE);
        uv.textProperty().bind(Bindings.concat("uv cannot run, so no seed can be warmed: ", vm.uvProblemProperty()));
        uv.managedProperty().bind(vm.uvProblemProperty().isNotEmpty());
        uv.visibleProperty().bind(uv.managedProperty());

        TableView<TargetRow> seeds = new TableView<>(vm.rows());
        dev.kiln.ui.util.TableExport.install(seeds, "seeds");
        seeds.setId("seeds-table");
        seeds.getStyleClass().addAll("dense", "striped");
        seeds.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        seeds.getColumns().add(column("Target", 90, TargetRow::target));
        seeds.getColumns().get(0).setMinWidth(72);
        TableColumn<TargetRow, String> state = column("State", 115, r -> r.state().label());
        state.setMinWidth(130); // "never warmed", bold: the constrained policy shrinks the wide ones, never these
        state.setCellFactory(c -> new StateCell<>());
        seeds.getColumns().add(state);
        seeds.getColumns().add(column("Lockfile", 110, TargetRow::lockfile)); // 12 hex digits
        seeds.getColumns().get(seeds.getColumns().size() - 1).setMinWidth(118);
        seeds.getColumns().add(column("Size", 140, TargetRow::size));
        seeds.getColumns().get(seeds.getColumns().size() - 1).setMinWidth(150); // "12.3 MiB · 42 wheels"
        TableColumn<TargetRow, TargetRow> store = new TableColumn<>("Store");
        store.setPrefWidth(135);
        store.setMinWidth(132); // "▲ store unreachable" reads whole
        store.setCellValueFactory(f -> new javafx.beans.property.ReadOnlyObjectWrapper<>(f.getValue()));
        store.setCellFactory(c -> new StoreCell<>(TargetRow::store, r -> r.store().label(), TargetRow::storeReason));
        seeds.getColumns().add(store);
        seeds.getColumns().add(column("Last warm", 190, TargetRow::lastWarm));
        seeds.getColumns().get(seeds.getColumns().size() - 1).setMinWidth(100);
        TableColumn<TargetRow, String> progress = column("Progress", 120, TargetRow::progress);
        progress.setMinWidth(128); // "pulled · 12.3 MiB"
        progress.setCellFactory(c -> new StateCell<>());
        seeds.getColumns().add(progress);
        TableColumn<TargetRow, String> reason = column("Reason", 150, TargetRow::reason);
        reason.setMinWidth(60);
        reason.setCellFactory(c -> new TableCell<>() {
            @Override
            protected void updateItem(String item, boolean empty) {
                super.updateItem(item, empty);
                setText(empty ? null : item);
                setTooltip(empty || item == null || item.isEmpty() ? null : new Tooltip(item)); // a long uv message in full
            }
        });
        seeds.getColumns().add(reason);
        seeds.setPlaceholder(new Label("No targets: add targets/<name>/target.json"));
        keepSelection(seeds, vm.rows());
        // Every target shows (up to six rows, then it scrolls): the lower panes give way, not the table.
        seeds.setFixedCellSize(28);
        javafx.beans.binding.DoubleBinding fit = Bindings.createDoubleBinding(
                () -> 36 + 28.0 * Math.max(2, Math.min(6, vm.rows().size())), vm.rows());
        seeds.minHeightProperty().bind(fit);
        seeds.prefHeightProperty().bind(fit);

        Button plan = new Button("Dry run");
        plan.setOnAction(e -> vm.plan(selected(seeds)));
        Button warm = new Button("Warm");
        warm.setId("seeds-warm");
        warm.setOnAction(e -> vm.warm(selected(seeds)));
        plan.disableProperty().bind(seeds.getSelectionModel().selectedItemProperty().isNull());
        Button all = new Button("Warm all stale");
        all.setId("seeds-warm-all");
        all.getStyleClass().add("accent");
        all.setOnAction(e -> vm.warmAllStale());
        all.disableProperty().bind(vm.warmingProperty().or(vm.transferringProperty()).or(vm.anyWantsWarmProperty().not()));
        Button cancel = new Button("Cancel");
        cancel.setId("seeds-cancel");
        cancel.setOnAction(e -> vm.cancel());
        cancel.disableProperty().bind(vm.warmingProperty().not());
        Button pushSeed = new Button("Push");
        pushSeed.setId("seeds-push");
        pushSeed.setTooltip(new Tooltip("Push the selected target's seed to the object store (on the engine's host)"));
        pushSeed.setOnAction(e -> vm.push(selected(seeds)));
        Button pullSeed = new Button("Pull");
        pullSeed.setId("seeds-pull");
        pullSeed.setTooltip(new Tooltip("Pull the store's seed for the selected target's lockfile (swapped in atomically)"));
        pullSeed.setOnAction(e -> vm.pull(selected(seeds)));
        javafx.beans.binding.BooleanBinding idle = vm.warmingProperty().or(vm.transferringProperty()).not()
                .and(vm.storeConfiguredProperty());
        pushSeed.disableProperty().bind(idle.not().or(Bindings.createBooleanBinding(() -> {
            TargetRow r = seeds.getSelectionModel().getSelectedItem();
            return r == null || !r.store().offersPush();
        }, seeds.getSelectionModel().selectedItemProperty(), vm.rows())));
        pullSeed.disableProperty().bind(idle.not().or(Bindings.createBooleanBinding(() -> {
            TargetRow r = seeds.getSelectionModel().getSelectedItem();
            return r == null || !r.store().offersPull();
        }, seeds.getSelectionModel().selectedItemProperty(), vm.rows())));
        warm.disableProperty().bind(vm.warmingProperty().or(vm.transferringProperty())
                .or(seeds.getSelectionModel().selectedItemProperty().isNull()));
        Button refresh = new Button("Refresh");
        refresh.setOnAction(e -> vm.refresh());
        ProgressIndicator busy = new ProgressIndicator();
        busy.setPrefSize(18, 18);
        busy.visibleProperty().bind(vm.warmingProperty().or(vm.transferringProperty()));
        busy.managedProperty().bind(busy.visibleProperty());
        ProgressBar run = new ProgressBar();
        run.setId("seeds-run-progress");
        run.setPrefWidth(110);
        run.progressProperty().bind(vm.runFractionProperty());
        run.visibleProperty().bind(vm.warmingProperty());
        run.managedProperty().bind(vm.warmingProperty());
        Label running = new Label();
        running.setId("seeds-run-text");
        running.textProperty().bind(vm.runProgressProperty());
        Region push = new Region();
        HBox.setHgrow(push, Priority.ALWAYS);
        HBox actions = new HBox(10, busy, run, running, push, plan, warm, all, cancel, new javafx.scene.control.Separator(
                Orientation.VERTICAL), pushSeed, pullSeed, refresh);
        Label message = new Label();
        message.setId("seeds-message");
        message.getStyleClass().add("text-muted");
        message.textProperty().bind(vm.messageProperty());
        message.setWrapText(true);
        message.setMaxWidth(Double.MAX_VALUE);
        message.setMinHeight(Region.USE_PREF_SIZE);
        message.managedProperty().bind(vm.messageProperty().isNotEmpty());
        message.visibleProperty().bind(message.managedProperty());
        actions.setAlignment(Pos.CENTER_LEFT);
        for (Button b : new Button[] {plan, warm, all, cancel, pushSeed, pullSeed, refresh}) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }

        Label error = new Label();
        error.getStyleClass().add("text-danger");
        error.textProperty().bind(vm.errorProperty());
        error.setWrapText(true);
        error.managedProperty().bind(error.textProperty().isNotEmpty());
        error.visibleProperty().bind(error.managedProperty());

        ListView<String> output = new ListView<>(vm.output());
        output.setId("seeds-output");
        output.getStyleClass().add("kiln-log");
        output.setPlaceholder(new Label("uv's output of a warm streams here"));
        output.setFixedCellSize(19); // log lines, dense
        vm.output().addListener((ListChangeListener<String>) c -> output.scrollTo(vm.output().size() - 1));
        Label outputTitle = new Label("uv output");
        outputTitle.getStyleClass().add("kiln-chart-title");
        VBox outputBox = new VBox(4, outputTitle, output);
        VBox.setVgrow(output, Priority.ALWAYS);

        VBox chart = chart(vm);
        HBox middle = new HBox(10, outputBox, chart);
        HBox.setHgrow(outputBox, Priority.ALWAYS);
        outputBox.setPrefWidth(480);
        chart.setPrefWidth(480);
        HBox.setHgrow(chart, Priority.ALWAYS);

        TableView<WarmResult> history = new TableView<>(vm.history());
        dev.kiln.ui.util.TableExport.install(history, "warm-history");
        history.setId("seeds-history");
        history.getStyleClass().addAll("dense", "striped");
        history.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        history.getColumns().add(hcolumn("Finished", 150, r -> TIME.format(r.at())));
        history.getColumns().add(hcolumn("Target", 100, WarmResult::target));
        TableColumn<WarmResult, String> outcome = hcolumn("Outcome", 100, r -> r.outcome().label());
        outcome.setCellFactory(c -> new StateCell<>());
        history.getColumns().add(outcome);
        history.getColumns().add(hcolumn("Took", 70, r -> String.format("%.1f s", r.duration().toMillis() / 1000.0)));
        history.getColumns().add(hcolumn("Message", 300, WarmResult::message));
        history.setPlaceholder(new Label("No warms yet"));

        SplitPane lower = new SplitPane(middle, history);
        lower.setOrientation(Orientation.VERTICAL);
        lower.setDividerPositions(0.55);
        lower.setPrefHeight(320); // grows into what is left
        VBox.setVgrow(lower, Priority.ALWAYS);

        Label storeLine = new Label();
        storeLine.setId("seeds-store");
        storeLine.textProperty().bind(vm.storeSummaryProperty());
        storeLine.setWrapText(true);
        storeLine.setMaxWidth(Double.MAX_VALUE);
        storeLine.setMinHeight(Region.USE_PREF_SIZE);
        storeLine.managedProperty().bind(vm.storeSummaryProperty().isNotEmpty());
        storeLine.visibleProperty().bind(storeLine.managedProperty());
        vm.storeTroubleProperty().addListener((o, was, now) -> storeLine.getStyleClass().setAll("label", now ? "text-danger" : "text-muted"));
        storeLine.getStyleClass().add("text-muted");

        getChildren().addAll(new VBox(2, title, sub), uv, seeds, storeLine, actions, message, error, lower);
        lower.getItems().add(1, new ServerSeedsPane(vm)); // the server seeds beside the target seeds (ServerSeedsPane)
        vm.refresh();
    }

    /** The latest warms as bars: height the duration, colour the outcome (one series per outcome, stacked on nothing). */
    private static VBox chart(SeedsViewModel vm) {
        CategoryAxis x = new CategoryAxis();
        x.setTickLabelRotation(0);
        NumberAxis y = new NumberAxis();
        y.setForceZeroInRange(true);
        y.setMinorTickVisible(false);
        y.setLabel("s");
        StackedBarChart<String, Number> c = new StackedBarChart<>(x, y);
        c.setId("seeds-chart");
        c.setAnimated(false);
        c.setLegendSide(javafx.geometry.Side.RIGHT);
        c.setVerticalGridLinesVisible(false);
        c.setCategoryGap(3);
        x.setTickMarkVisible(false);
        c.getStyleClass().addAll("kiln-chart", "kiln-warm-chart");
        Map<WarmOutcome, XYChart.Series<String, Number>> series = new EnumMap<>(WarmOutcome.class);
        for (WarmOutcome o : WarmOutcome.values()) {
            XYChart.Series<String, Number> s = new XYChart.Series<>();
            s.setName(o.label());
            series.put(o, s);
            c.getData().add(s);
        }
        Runnable fill = () -> {
            // Always CHART_WARMS slots, the latest warms on the right: one warm is a bar, not a wall. Labels on
            // every fifth bar and the last keep them apart; a bar's tooltip says everything.
            java.util.List<SeedsViewModel.WarmBar> bars = vm.bars();
            int slots = Math.max(SeedsViewModel.CHART_WARMS, bars.size());
            java.util.List<String> categories = new java.util.ArrayList<>(slots);
            int first = slots - bars.size();
            for (int i = 0; i < slots; i++) {
                int bar = i - first;
                boolean labelled = bar >= 0 && (bar == bars.size() - 1 || (bars.size() - 1 - bar) % 5 == 0);
                categories.add(labelled ? bars.get(bar).label() : "\u200b".repeat(i + 1)); // unique, and shows nothing
            }
            x.setAutoRanging(false); // the slots, not the data's categories, make the axis
            x.getCategories().setAll(categories);
            series.values().forEach(s -> s.getData().clear());
            for (int i = 0; i < bars.size(); i++) {
                SeedsViewModel.WarmBar b = bars.get(i);
                XYChart.Data<String, Number> d = new XYChart.Data<>(categories.get(first + i), b.seconds());
                series.get(b.outcome()).getData().add(d);
                String tip = b.target() + " · " + b.outcome().label() + " in " + String.format("%.1f s", b.seconds()) + "\n" + b.message();
                d.nodeProperty().addListener((o, was, node) -> {
                    if (node != null) {
                        Tooltip.install(node, new Tooltip(tip));
                    }
                });
            }
        };
        vm.bars().addListener((ListChangeListener<SeedsViewModel.WarmBar>) ch -> fill.run());
        fill.run();
        Label t = new Label();
        t.textProperty().bind(Bindings.createStringBinding(() -> vm.bars().isEmpty() ? "Warm history: no warms yet"
                : vm.bars().size() == 1 ? "Warm history: the last warm, its duration by outcome"
                : "Warm history: the last " + vm.bars().size() + " warms, duration by outcome", vm.bars()));
        t.getStyleClass().add("kiln-chart-title");
        VBox box = new VBox(2, t, c);
        box.getStyleClass().add("kiln-chart-box");
        VBox.setVgrow(c, Priority.ALWAYS);
        return box;
    }

    /**
     * Every refresh replaces the rows (a push, pull or warm changes them), which clears the table's selection: the
     * target that was selected is selected again, so Push, Pull and Warm stay on it.
     */
    private static void keepSelection(TableView<TargetRow> table, javafx.collections.ObservableList<TargetRow> rows) {
        String[] chosen = {null};
        table.getSelectionModel().selectedItemProperty().addListener((o, was, now) -> {
            if (now != null) {
                chosen[0] = now.target();
            }
        });
        rows.addListener((ListChangeListener<TargetRow>) c -> {
            TargetRow now = table.getSelectionModel().getSelectedItem();
            if (chosen[0] != null && (now == null || !now.target().equals(chosen[0]))) {
                for (int i = 0; i < rows.size(); i++) {
                    if (rows.get(i).target().equals(chosen[0])) {
                        table.getSelectionModel().select(i);
                        return;
                    }
                }
            }
        });
    }

    private static String selected(TableView<TargetRow> t) {
        TargetRow s = t.getSelectionModel().getSelectedItem();
        return s == null ? null : s.target();
    }

    static String mib(long bytes) {
        return bytes < 1024 * 1024 ? String.format("%.1f KiB", bytes / 1024.0) : String.format("%.1f MiB", bytes / 1048576.0);
    }

    private static TableColumn<TargetRow, String> column(String name, double width, Function<TargetRow, String> value) {
        TableColumn<TargetRow, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
    }

    private static TableColumn<WarmResult, String> hcolumn(String name, double width, Function<WarmResult, String> value) {
        TableColumn<WarmResult, String> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> new ReadOnlyStringWrapper(value.apply(f.getValue())));
        return c;
    }

    /** Green for good states, amber for stale or cancelled, red for failures. */
    private static final class StateCell<S> extends TableCell<S, String> {
        @Override
        protected void updateItem(String item, boolean empty) {
            super.updateItem(item, empty);
            getStyleClass().removeAll("state-ok", "state-warn", "state-bad");
            setText(empty ? null : item);
            if (empty || item == null || item.isEmpty()) {
                return;
            }
            String head = item.split(" ")[0];
            switch (head) {
                case "fresh", "warmed", "unchanged", "pushed", "pulled", "already" -> getStyleClass().add("state-ok");
                case "stale", "never", "cancelled", "queued", "warming", "warming…", "skipped", "pushing…", "pulling…" ->
                        getStyleClass().add("state-warn");
                default -> getStyleClass().add("state-bad");
            }
        }

        @Override
        protected void layoutChildren() {
            super.layoutChildren();
            dev.kiln.ui.util.FullTextCell.tooltipWhenCut(this); // "pulled · 12.3 MiB" in a narrow column reads whole
        }
    }

}
