package dev.kiln.ui.projection;

import dev.kiln.core.projection.WakeReason;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import javafx.animation.Animation;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.geometry.Pos;
import javafx.scene.chart.AreaChart;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.StackedAreaChart;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Label;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.util.Duration;
import javafx.util.StringConverter;

/**
 * The Projection page's live charts over the chosen window: tick duration, parsed vs reused, wake reasons and
 * revision changes, each {@link ChartWindow#BUCKETS} points wide.
 *
 * <p>Costs nothing while hidden: the once-a-second redraw (which also ages the page's clock texts) runs only while
 * this node is in a showing scene; the shell takes hidden pages out of the scene.
 */
public final class ProjectionCharts extends VBox {
    private final ProjectionViewModel vm;
    private final Timeline timer;
    private final List<Runnable> redraws = new ArrayList<>();
    private final List<NumberAxis> xAxes = new ArrayList<>();

    public ProjectionCharts(ProjectionViewModel vm) {
        this.vm = vm;
        setId("projection-charts");
        setSpacing(8);

        ToggleGroup group = new ToggleGroup();
        HBox windows = new HBox(0);
        windows.getStyleClass().add("kiln-segmented");
        for (ChartWindow w : ChartWindow.values()) {
            ToggleButton b = new ToggleButton(w.label());
            b.setId("chart-window-" + w.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
            b.setToggleGroup(group);
            b.setSelected(w == vm.chartWindowProperty().get());
            b.setOnAction(e -> {
                b.setSelected(true);
                vm.chartWindowProperty().set(w);
            });
            windows.getChildren().add(b);
        }
        Label caption = new Label("Live, newest on the right");
        caption.getStyleClass().add("text-muted");
        HBox head = new HBox(10, windows, caption);
        head.setAlignment(Pos.CENTER_LEFT);

        GridPane grid = new GridPane();
        grid.setHgap(10);
        grid.setVgap(10);
        ColumnConstraints half = new ColumnConstraints();
        half.setPercentWidth(50);
        grid.getColumnConstraints().addAll(half, half);
        grid.add(line("Tick duration, slowest per bucket (ms)", "chart-duration",
                Map.of("duration", b -> b.ticks() == 0 ? Double.NaN : b.maxMillis())), 0, 0);
        grid.add(stacked("Parsed vs reused contracts", "chart-parse",
                orderedOf("reused", ChartSeries.Bucket::reused, "parsed", ChartSeries.Bucket::parsed)), 1, 0);
        Map<String, ToDoubleFunction<ChartSeries.Bucket>> reasons = new java.util.LinkedHashMap<>();
        for (WakeReason r : WakeReason.values()) {
            reasons.put(r.jsonName(), b -> b.reason(r));
        }
        grid.add(line("Wake reasons (ticks)", "chart-reasons", reasons), 0, 1);
        grid.add(area("Revision changes", "chart-revisions", Map.of("revisions", ChartSeries.Bucket::revisions)), 1, 1);
        getChildren().addAll(head, grid);

        timer = new Timeline(new KeyFrame(Duration.seconds(1), e -> redraw()));
        timer.setCycleCount(Animation.INDEFINITE);
        vm.chartWindowProperty().addListener((o, a, b) -> redraw());
        // Run only while shown: in a scene whose window is showing.
        sceneProperty().addListener((o, a, scene) -> follow());
        follow();
    }

    private void follow() {
        boolean shown = getScene() != null;
        if (shown && timer.getStatus() != Animation.Status.RUNNING) {
            redraw();
            timer.play();
        } else if (!shown) {
            timer.stop();
        }
    }

    /** Whether the redraw runs (for tests: a hidden page must not). */
    public boolean isLive() {
        return timer.getStatus() == Animation.Status.RUNNING;
    }

    /** Redraws every chart from the view model's buckets now. */
    public void redraw() {
        vm.refreshClock();
        ChartWindow w = vm.chartWindowProperty().get();
        double span = w.span().getSeconds();
        for (NumberAxis x : xAxes) {
            x.setLowerBound(-span);
            x.setTickUnit(span / 6);
        }
        redraws.forEach(Runnable::run);
    }

    private static Map<String, ToDoubleFunction<ChartSeries.Bucket>> orderedOf(String a, ToDoubleFunction<ChartSeries.Bucket> fa,
            String b, ToDoubleFunction<ChartSeries.Bucket> fb) {
        Map<String, ToDoubleFunction<ChartSeries.Bucket>> m = new java.util.LinkedHashMap<>();
        m.put(a, fa);
        m.put(b, fb);
        return m;
    }

    private VBox line(String title, String id, Map<String, ToDoubleFunction<ChartSeries.Bucket>> series) {
        LineChart<Number, Number> c = new LineChart<>(xAxis(), yAxis());
        c.setCreateSymbols(false);
        return dress(c, title, id, series);
    }

    private VBox stacked(String title, String id, Map<String, ToDoubleFunction<ChartSeries.Bucket>> series) {
        StackedAreaChart<Number, Number> c = new StackedAreaChart<>(xAxis(), yAxis());
        c.setCreateSymbols(false);
        return dress(c, title, id, series);
    }

    private VBox area(String title, String id, Map<String, ToDoubleFunction<ChartSeries.Bucket>> series) {
        AreaChart<Number, Number> c = new AreaChart<>(xAxis(), yAxis());
        c.setCreateSymbols(false);
        return dress(c, title, id, series);
    }

    private VBox dress(XYChart<Number, Number> chart, String title, String id, Map<String, ToDoubleFunction<ChartSeries.Bucket>> series) {
        chart.setId(id);
        chart.setAnimated(false); // a fresh frame every second; animation would only cost pulses
        chart.setLegendVisible(series.size() > 1);
        chart.setHorizontalGridLinesVisible(true);
        chart.setVerticalGridLinesVisible(false);
        chart.setVerticalZeroLineVisible(false);
        chart.setLegendSide(javafx.geometry.Side.RIGHT);
        chart.setPrefHeight(138);
        chart.setMinHeight(100);
        chart.getStyleClass().add("kiln-chart");
        Map<String, List<XYChart.Data<Number, Number>>> points = new java.util.LinkedHashMap<>();
        for (String name : series.keySet()) {
            XYChart.Series<Number, Number> s = new XYChart.Series<>();
            s.setName(name);
            List<XYChart.Data<Number, Number>> data = new ArrayList<>();
            for (int i = 0; i < ChartWindow.BUCKETS; i++) {
                data.add(new XYChart.Data<>(0, 0));
            }
            s.getData().setAll(data);
            points.put(name, data);
            chart.getData().add(s);
        }
        // Data objects are kept and moved, so a redraw allocates no nodes.
        redraws.add(() -> {
            List<ChartSeries.Bucket> buckets = vm.buckets();
            for (Map.Entry<String, ToDoubleFunction<ChartSeries.Bucket>> e : series.entrySet()) {
                List<XYChart.Data<Number, Number>> data = points.get(e.getKey());
                for (int i = 0; i < buckets.size(); i++) {
                    ChartSeries.Bucket b = buckets.get(i);
                    double y = e.getValue().applyAsDouble(b);
                    XYChart.Data<Number, Number> d = data.get(i);
                    d.setXValue(-b.secondsAgo());
                    d.setYValue(Double.isNaN(y) ? 0 : y);
                }
            }
        });
        Label t = new Label(title);
        t.getStyleClass().add("kiln-chart-title");
        VBox box = new VBox(2, t, chart);
        box.getStyleClass().add("kiln-chart-box");
        VBox.setVgrow(chart, Priority.ALWAYS);
        return box;
    }

    private NumberAxis xAxis() {
        NumberAxis x = new NumberAxis(-60, 0, 10);
        x.setAutoRanging(false);
        x.setMinorTickVisible(false);
        x.setTickLabelFormatter(new StringConverter<>() {
            @Override
            public String toString(Number n) {
                long s = Math.round(-n.doubleValue());
                if (s == 0) {
                    return "now";
                }
                return s < 120 ? "−" + s + " s" : "−" + s / 60 + " min";
            }

            @Override
            public Number fromString(String s) {
                throw new UnsupportedOperationException();
            }
        });
        xAxes.add(x);
        return x;
    }

    private static NumberAxis yAxis() {
        NumberAxis y = new NumberAxis();
        y.setForceZeroInRange(true);
        y.setMinorTickVisible(false);
        return y;
    }
}
