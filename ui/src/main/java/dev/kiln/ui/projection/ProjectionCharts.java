package dev.kiln.ui.projection;

import dev.kiln.core.projection.WakeReason;
import dev.kiln.ui.chart.LiveCharts;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import javafx.beans.property.ObjectProperty;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;

/**
 * The Projection page's live charts over the chosen window: tick duration, parsed vs reused, wake reasons and
 * revision changes, each {@link ChartWindow#BUCKETS} points wide.
 *
 * <p>Costs nothing while hidden: the once-a-second redraw (which also ages the page's clock texts) runs only while
 * this node is in a showing scene; the shell takes hidden pages out of the scene.
 */
public final class ProjectionCharts extends VBox {
    private final LiveCharts<ChartSeries.Bucket> charts;

    public ProjectionCharts(ProjectionViewModel vm) {
        setId("projection-charts");
        setSpacing(8);
        charts = new LiveCharts<>(vm::buckets, ChartSeries.Bucket::secondsAgo, () -> vm.chartWindowProperty().get().span(),
                ChartWindow.BUCKETS, vm::refreshClock).clock(vm::now, () -> vm.series().observedFrom());

        Label caption = new Label("Live · hover for values, drag to zoom");
        caption.getStyleClass().add("text-muted");
        HBox head = new HBox(10, windowPicker(vm.chartWindowProperty()), caption);
        head.setAlignment(Pos.CENTER_LEFT);

        GridPane grid = new GridPane();
        grid.setHgap(10);
        grid.setVgap(10);
        ColumnConstraints half = new ColumnConstraints();
        half.setPercentWidth(50);
        grid.getColumnConstraints().addAll(half, half);
        grid.add(charts.line("Tick duration, slowest per bucket (ms)", "chart-duration",
                Map.of("duration", b -> b.ticks() == 0 ? Double.NaN : b.maxMillis())), 0, 0);
        grid.add(charts.stacked("Parsed vs reused contracts", "chart-parse",
                orderedOf("reused", ChartSeries.Bucket::reused, "parsed", ChartSeries.Bucket::parsed)), 1, 0);
        Map<String, ToDoubleFunction<ChartSeries.Bucket>> reasons = new LinkedHashMap<>();
        for (WakeReason r : WakeReason.values()) {
            reasons.put(r.jsonName(), b -> b.reason(r));
        }
        grid.add(charts.line("Wake reasons (ticks)", "chart-reasons", reasons), 0, 1);
        grid.add(charts.area("Revision changes", "chart-revisions", Map.of("revisions", ChartSeries.Bucket::revisions)), 1, 1);
        getChildren().addAll(head, grid);

        vm.chartWindowProperty().addListener((o, a, b) -> redraw());
        charts.runWhileShown(this);
    }

    /** The 1 min / 10 min / 1 h switch, for every page with live charts. */
    public static HBox windowPicker(ObjectProperty<ChartWindow> window) {
        ToggleGroup group = new ToggleGroup();
        HBox windows = new HBox(0);
        windows.getStyleClass().add("kiln-segmented");
        for (ChartWindow w : ChartWindow.values()) {
            ToggleButton b = new ToggleButton(w.label());
            b.setId("chart-window-" + w.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
            b.setToggleGroup(group);
            b.setSelected(w == window.get());
            b.setOnAction(e -> {
                b.setSelected(true);
                window.set(w);
            });
            windows.getChildren().add(b);
        }
        return windows;
    }

    /** Whether the redraw runs (for tests: a hidden page must not). */
    public boolean isLive() {
        return charts.isLive();
    }

    /** Redraws every chart from the view model's buckets now. */
    public void redraw() {
        charts.redraw();
    }

    static <B> Map<String, ToDoubleFunction<B>> orderedOf(String a, ToDoubleFunction<B> fa, String b, ToDoubleFunction<B> fb) {
        Map<String, ToDoubleFunction<B>> m = new LinkedHashMap<>();
        m.put(a, fa);
        m.put(b, fb);
        return m;
    }
}
