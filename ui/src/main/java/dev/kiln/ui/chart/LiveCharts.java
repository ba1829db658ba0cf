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
import javafx.scene.control.Label;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

/**
 * Live charts over a time window, fed from a view model's buckets (oldest first, a fixed number of them), each a
 * {@link TrendChart} drawn on a canvas: a redraw makes no node and lays nothing out.
 *
 * <p>Costs nothing while hidden: the once-a-second redraw runs only while the node given to {@link #runWhileShown}
 * is in a scene; the shell takes hidden pages out of the scene. The timed redraw moves one chart per pulse: a chart's
 * paint is a few milliseconds on a software-rendered screen, and four in one pulse made it the longest of the
 * second ({@code kiln bench ui}).
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

    /** The clock texts moved on; the buckets now, once for every chart of this redraw. */
    private List<B> prepare() {
        beforeRedraw.run();
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
        return dress(TrendChart.Kind.LINE, title, id, series, Double.NaN);
    }

    /** As {@link #line(String, String, Map)}, its y axis fixed from 0 to {@code upper} (a percentage: 100). */
    public VBox line(String title, String id, Map<String, ToDoubleFunction<B>> series, double upper) {
        return dress(TrendChart.Kind.LINE, title, id, series, upper);
    }

    /** Areas stacked in {@code series}' order. */
    public VBox stacked(String title, String id, Map<String, ToDoubleFunction<B>> series) {
        return dress(TrendChart.Kind.STACKED, title, id, series, Double.NaN);
    }

    /** Areas drawn over each other. */
    public VBox area(String title, String id, Map<String, ToDoubleFunction<B>> series) {
        return dress(TrendChart.Kind.AREA, title, id, series, Double.NaN);
    }

    /** The chart in its titled box; its y axis fixed to {@code fixedUpper}, or (NaN) ranged in round steps to fit. */
    private VBox dress(TrendChart.Kind kind, String title, String id, Map<String, ToDoubleFunction<B>> series, double fixedUpper) {
        List<String> names = List.copyOf(series.keySet());
        List<ToDoubleFunction<B>> values = names.stream().map(series::get).toList();
        TrendChart chart = new TrendChart(kind, names);
        chart.setId(id);
        chart.setPrefHeight(chartHeight);
        chart.setMinHeight(100);
        chart.getStyleClass().add("kiln-chart");
        redraws.add(bs -> {
            int n = Math.min(points, bs.size());
            double[] ago = new double[n];
            double[][] ys = new double[names.size()][n];
            double[] sums = new double[n];
            double max = 0;
            for (int i = 0; i < n; i++) {
                B b = bs.get(i);
                ago[i] = secondsAgo.applyAsDouble(b);
                for (int s = 0; s < names.size(); s++) {
                    double v = values.get(s).applyAsDouble(b);
                    ys[s][i] = v;
                    double shown = Double.isNaN(v) ? 0 : v;
                    sums[i] += shown;
                    max = Math.max(max, kind == TrendChart.Kind.STACKED ? sums[i] : shown);
                }
            }
            double s = span.get().toMillis() / 1000.0;
            // Nothing to show yet: an axis from 0 to 1, not a collapsed one labelled only "0".
            double[] scale = Double.isNaN(fixedUpper) ? roundScale(max) : new double[] {fixedUpper, fixedUpper / 4};
            chart.show(ago, ys, s, tickUnit(s), scale[0], scale[1], LiveCharts::agoLabel);
        });
        Label t = new Label(title);
        t.getStyleClass().add("kiln-chart-title");
        VBox box = new VBox(2, t, chart);
        box.getStyleClass().add("kiln-chart-box");
        VBox.setVgrow(chart, Priority.ALWAYS);
        return box;
    }

    /** An x tick: "now", "−30 s", "−10 min", "−1.5 min". */
    static String agoLabel(double secondsAgo) {
        long s = Math.round(secondsAgo);
        if (s == 0) {
            return "now";
        }
        return s < 120 ? "−" + s + " s" : s % 60 == 0 ? "−" + s / 60 + " min" : "−" + Math.round(s / 6.0) / 10.0 + " min";
    }
}
