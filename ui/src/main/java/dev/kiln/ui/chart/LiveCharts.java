package dev.kiln.ui.chart;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import javafx.animation.Animation;
import javafx.animation.KeyFrame;
import javafx.animation.Timeline;
import javafx.scene.Node;
import javafx.scene.control.Alert;
import javafx.scene.control.ContextMenu;
import javafx.scene.control.MenuItem;
import javafx.scene.control.Label;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;

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
    private Supplier<Instant> now = Instant::now;
    private Supplier<Instant> observedFrom = () -> null;

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

    /**
     * The clock the buckets end at ({@code now}: the engine's, a replay's position) and since when anything was
     * watched ({@code observedFrom}, or null): buckets that end before it show as a gap, not as 0 — the minutes
     * before the console was open saw nothing.
     */
    public LiveCharts<B> clock(Supplier<Instant> now, Supplier<Instant> observedFrom) {
        this.now = now;
        this.observedFrom = observedFrom;
        return this;
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

    /** A line chart, one line per entry of {@code series} (in its order); NaN draws as a gap. */
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
            Instant end = now.get();
            Instant since = observedFrom.get();
            long endMillis = end.toEpochMilli();
            int n = Math.min(points, bs.size());
            long[] at = new long[n];
            double[][] ys = new double[names.size()][n];
            for (int i = 0; i < n; i++) {
                B b = bs.get(i);
                at[i] = endMillis - Math.round(secondsAgo.applyAsDouble(b) * 1000);
                boolean seen = since == null || at[i] >= since.toEpochMilli();
                for (int s = 0; s < names.size(); s++) {
                    ys[s][i] = seen ? values.get(s).applyAsDouble(b) : Double.NaN;
                }
            }
            chart.show(ChartData.of(at, ys), endMillis - span.get().toMillis(), endMillis, fixedUpper);
        });
        Label t = new Label(title);
        t.getStyleClass().add("kiln-chart-title");
        VBox box = new VBox(2, t, chart);
        box.getStyleClass().add("kiln-chart-box");
        box.setOnContextMenuRequested(e -> {
            menu(box, chart, title).show(box, e.getScreenX(), e.getScreenY());
            e.consume();
        });
        VBox.setVgrow(chart, Priority.ALWAYS);
        return box;
    }

    /** The chart's context menu: export as PNG, reset the zoom, show every series. */
    private static ContextMenu menu(VBox box, TrendChart chart, String title) {
        MenuItem png = new MenuItem("Export chart as PNG…");
        png.setOnAction(e -> {
            FileChooser choose = new FileChooser();
            choose.setTitle("Export " + title);
            choose.setInitialFileName(chart.getId() == null ? "chart.png" : chart.getId() + ".png");
            choose.getExtensionFilters().add(new FileChooser.ExtensionFilter("PNG image", "*.png"));
            java.io.File f = choose.showSaveDialog(box.getScene() == null ? null : box.getScene().getWindow());
            if (f != null) {
                try {
                    dev.kiln.ui.util.PngSnapshot.write(box.snapshot(null, null), f.toPath());
                } catch (java.io.IOException ex) {
                    new Alert(Alert.AlertType.ERROR, "The chart could not be written to " + f + ": " + ex.getMessage()
                            + ". Choose another place and try again.").show();
                }
            }
        });
        MenuItem reset = new MenuItem("Reset zoom");
        reset.setDisable(chart.zoom().isEmpty());
        reset.setOnAction(e -> chart.resetZoom());
        MenuItem all = new MenuItem("Show every series");
        all.setOnAction(e -> chart.seriesNames().forEach(s -> chart.setSeriesShown(s, true)));
        return new ContextMenu(png, reset, all);
    }
}
