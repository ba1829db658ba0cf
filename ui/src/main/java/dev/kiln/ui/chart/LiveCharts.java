package dev.kiln.ui.chart;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import javafx.animation.Animation;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.scene.Node;
import javafx.scene.chart.AreaChart;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.StackedAreaChart;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Label;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.util.StringConverter;

/**
 * Live charts over a time window, fed from a view model's buckets (oldest first, a fixed number of them): each
 * chart's points are made once and moved on every redraw, so a redraw allocates no nodes.
 *
 * <p>Costs nothing while hidden: the once-a-second redraw runs only while the node given to {@link #runWhileShown}
 * is in a scene; the shell takes hidden pages out of the scene. The timed redraw moves one chart per pulse: a chart's
 * layout and paint are a few milliseconds each on a software-rendered screen, and four in one pulse made it the
 * longest of the second ({@code kiln bench ui}).
 *
 * @param <B> one bucket of the window
 */
public final class LiveCharts<B> {
    private final Supplier<List<B>> buckets;
    private final ToDoubleFunction<B> secondsAgo;
    private final Supplier<Duration> span;
    private final Runnable beforeRedraw;
    private final int points;
    private final List<java.util.function.Consumer<List<B>>> redraws = new ArrayList<>();
    private final List<NumberAxis> xAxes = new ArrayList<>();
    private final Timeline timer;
    private final java.util.ArrayDeque<Runnable> pending = new java.util.ArrayDeque<>();
    private final javafx.animation.AnimationTimer spread = new javafx.animation.AnimationTimer() {
        @Override
        public void handle(long now) {
            Runnable next = pending.poll();
            if (next != null) {
                next.run();
            }
            if (pending.isEmpty()) {
                stop();
            }
        }
    };
    private double chartHeight = 138;

    /**
     * @param buckets the buckets now (called once per redraw)
     * @param secondsAgo where a bucket ends, in seconds before now
     * @param span the window shown, for the x axis
     * @param points buckets per window
     * @param beforeRedraw what else ages once a second with the charts (clock texts); may do nothing
     */
    public LiveCharts(Supplier<List<B>> buckets, ToDoubleFunction<B> secondsAgo, Supplier<Duration> span, int points,
            Runnable beforeRedraw) {
        this.buckets = buckets;
        this.secondsAgo = secondsAgo;
        this.span = span;
        this.points = points;
        this.beforeRedraw = beforeRedraw;
        this.timer = new Timeline(new KeyFrame(javafx.util.Duration.seconds(1), e -> redrawSpread()));
        timer.setCycleCount(Animation.INDEFINITE);
    }

    /** Redraws while {@code owner} is in a scene, and not otherwise. */
    public void runWhileShown(Node owner) {
        owner.sceneProperty().addListener((o, a, scene) -> follow(scene != null));
        follow(owner.getScene() != null);
    }

    private void follow(boolean shown) {
        if (shown && timer.getStatus() != Animation.Status.RUNNING) {
            redraw();
            timer.play();
        } else if (!shown) {
            timer.stop();
            spread.stop();
            pending.clear();
        }
    }

    /** Whether the redraw runs (for tests: a hidden page must not). */
    public boolean isLive() {
        return timer.getStatus() == Animation.Status.RUNNING;
    }

    /** Redraws every chart from the buckets now, in this pulse. */
    public void redraw() {
        spread.stop();
        pending.clear();
        List<B> now = prepare();
        for (java.util.function.Consumer<List<B>> r : redraws) {
            r.accept(now);
        }
    }

    /** Redraws the charts from the buckets now, the first in this pulse and each of the others in a pulse of its own. */
    private void redrawSpread() {
        List<B> now = prepare();
        pending.clear();
        for (java.util.function.Consumer<List<B>> r : redraws) {
            pending.add(() -> r.accept(now));
        }
        Runnable first = pending.poll();
        if (first != null) {
            first.run();
        }
        if (!pending.isEmpty()) {
            spread.start();
        }
    }

    /** The clock texts and x axes moved on; the buckets now, once for every chart of this redraw. */
    private List<B> prepare() {
        beforeRedraw.run();
        double s = span.get().toMillis() / 1000.0;
        for (NumberAxis x : xAxes) {
            x.setLowerBound(-s);
            x.setTickUnit(tickUnit(s));
        }
        return buckets.get();
    }

    /** The height of the charts made from now on (default 138). */
    public LiveCharts<B> chartHeight(double height) {
        this.chartHeight = height;
        return this;
    }

    /**
     * The y axis for values up to {@code max}: {upper bound, tick unit}, the bound the first of 1, 2, 5 × 10ⁿ at or above
     * {@code max} (1 when there is nothing), in two to five ticks a person reads at a glance.
     */
    static double[] roundScale(double max) {
        if (!(max > 0) || Double.isInfinite(max)) {
            return new double[] {1, 1};
        }
        double decade = Math.pow(10, Math.floor(Math.log10(max)));
        for (double step : new double[] {1, 2, 5, 10}) {
            double upper = step * decade;
            if (upper >= max * (1 - 1e-9)) {
                double unit = step == 1 || step == 10 ? upper / 2 : step == 2 ? upper / 4 : upper / 5;
                return new double[] {upper, unit};
            }
        }
        return new double[] {10 * decade, 5 * decade};
    }

    /** Seconds between x ticks: round numbers a person reads at a glance (10 s, 2 min, 10 min). */
    static double tickUnit(double spanSeconds) {
        return spanSeconds <= 60 ? 10 : spanSeconds <= 600 ? 120 : spanSeconds <= 3600 ? 600 : Math.ceil(spanSeconds / 6 / 60) * 60;
    }

    /** A line chart, one line per entry of {@code series} (in its order); NaN draws as 0. */
    public VBox line(String title, String id, Map<String, ToDoubleFunction<B>> series) {
        LineChart<Number, Number> c = new LineChart<>(xAxis(), yAxis());
        c.setCreateSymbols(false);
        return dress(c, title, id, series, false);
    }

    /** As {@link #line(String, String, Map)}, its y axis fixed from 0 to {@code upper} (a percentage: 100). */
    public VBox line(String title, String id, Map<String, ToDoubleFunction<B>> series, double upper) {
        NumberAxis y = new NumberAxis(0, upper, upper / 4);
        y.setAutoRanging(false);
        y.setMinorTickVisible(false);
        LineChart<Number, Number> c = new LineChart<>(xAxis(), y);
        c.setCreateSymbols(false);
        return dress(c, title, id, series, false);
    }

    /** Areas stacked in {@code series}' order. */
    public VBox stacked(String title, String id, Map<String, ToDoubleFunction<B>> series) {
        StackedAreaChart<Number, Number> c = new StackedAreaChart<>(xAxis(), yAxis());
        c.setCreateSymbols(false);
        return dress(c, title, id, series, true);
    }

    /** Areas drawn over each other. */
    public VBox area(String title, String id, Map<String, ToDoubleFunction<B>> series) {
        AreaChart<Number, Number> c = new AreaChart<>(xAxis(), yAxis());
        c.setCreateSymbols(false);
        return dress(c, title, id, series, false);
    }

    private VBox dress(XYChart<Number, Number> chart, String title, String id, Map<String, ToDoubleFunction<B>> series, boolean stacked) {
        chart.setId(id);
        chart.setAnimated(false); // a fresh frame every second; animation would only cost pulses
        chart.setLegendVisible(series.size() > 1);
        chart.setHorizontalGridLinesVisible(true);
        chart.setVerticalGridLinesVisible(false);
        chart.setVerticalZeroLineVisible(false);
        chart.setLegendSide(javafx.geometry.Side.RIGHT);
        chart.setPrefHeight(chartHeight);
        chart.setMinHeight(100);
        chart.getStyleClass().add("kiln-chart");
        Map<String, List<XYChart.Data<Number, Number>>> byName = new java.util.LinkedHashMap<>();
        for (String name : series.keySet()) {
            XYChart.Series<Number, Number> s = new XYChart.Series<>();
            s.setName(name);
            List<XYChart.Data<Number, Number>> data = new ArrayList<>();
            for (int i = 0; i < points; i++) {
                data.add(new XYChart.Data<>(0, 0));
            }
            s.getData().setAll(data);
            byName.put(name, data);
            chart.getData().add(s);
        }
        NumberAxis y = (NumberAxis) chart.getYAxis();
        // Auto-ranged by us, in round steps: an axis whose range did not change is not laid out again, and JavaFX's own
        // auto-range re-measured every tick label of every chart each second.
        boolean autoY = y.isAutoRanging();
        y.setAutoRanging(false);
        y.setLowerBound(0);
        y.setMinorTickVisible(false);
        redraws.add(bs -> {
            double[] sums = new double[bs.size()];
            double max = 0;
            for (Map.Entry<String, ToDoubleFunction<B>> e : series.entrySet()) {
                List<XYChart.Data<Number, Number>> data = byName.get(e.getKey());
                for (int i = 0; i < Math.min(bs.size(), data.size()); i++) {
                    B b = bs.get(i);
                    double value = e.getValue().applyAsDouble(b);
                    double shown = Double.isNaN(value) ? 0 : value;
                    XYChart.Data<Number, Number> d = data.get(i);
                    d.setXValue(-secondsAgo.applyAsDouble(b));
                    d.setYValue(shown);
                    sums[i] += shown;
                    max = Math.max(max, stacked ? sums[i] : shown);
                }
            }
            if (autoY) {
                // Nothing to show yet: an axis from 0 to 1, not a collapsed one labelled only "0.0".
                double[] scale = roundScale(max);
                if (y.getUpperBound() != scale[0] || y.getTickUnit() != scale[1]) {
                    y.setUpperBound(scale[0]);
                    y.setTickUnit(scale[1]);
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
                return s < 120 ? "−" + s + " s" : s % 60 == 0 ? "−" + s / 60 + " min" : "−" + Math.round(s / 6.0) / 10.0 + " min";
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
