package dev.kiln.ui.chart;

import java.util.List;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Label;
import javafx.scene.layout.Background;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.paint.Paint;
import javafx.scene.shape.StrokeLineJoin;
import javafx.scene.text.Font;
import javafx.scene.text.Text;
import javafx.scene.text.TextAlignment;

/**
 * A live chart drawn on a canvas: lines, areas or stacked areas over a time window ending now, a y axis from 0, and
 * a legend beside it when there is more than one series. A redraw is a few dozen drawing commands and no node:
 * {@code XYChart} re-laid out its axes and rebuilt every path element of every series on each redraw, which made
 * the chart redraws most of a tick's pulse ({@code kiln bench ui}).
 *
 * <p>Colours come from the theme's stylesheet through the legend's swatches ({@code -color-chart-N}) and two unshown
 * style probes (the axis text, the grid), and the chart redraws when the theme changes them.
 *
 * <p>Concurrency: FX thread only.
 */
public final class TrendChart extends Region {
    /** How the series are drawn. */
    public enum Kind {
        /** A line each. */
        LINE,
        /** A filled area each, drawn over one another in order. */
        AREA,
        /** Filled areas stacked in order, the first at the bottom. */
        STACKED
    }

    private static final double LEGEND_GAP = 8;
    private final Kind kind;
    private final List<String> names;
    private final Canvas canvas = new Canvas();
    private final FlowPane legend = new FlowPane(javafx.geometry.Orientation.VERTICAL, 10, 3);
    private final Region[] swatches;
    private final Label axisProbe = new Label("0");
    private final Region gridProbe = new Region();
    private final Text measure = new Text();
    // what was drawn last, kept to draw again on a resize or a theme change
    private double[] x = new double[0];
    private double[][] y;
    private double span = 60;
    private double tickUnit = 10;
    private double upper = 1;
    private double unit = 1;
    private java.util.function.DoubleFunction<String> xLabel = s -> Math.round(s) + "";
    // the y labels of the scale drawn last: they change only when the scale does
    private String[] yLabels;
    private double labelWidth;
    private double labelsUpper;
    private double labelsUnit;
    private Font labelsFont;

    public TrendChart(Kind kind, List<String> names) {
        this.kind = kind;
        this.names = List.copyOf(names);
        this.y = new double[names.size()][0];
        getStyleClass().add("kiln-trend");
        swatches = new Region[names.size()];
        for (int i = 0; i < names.size(); i++) {
            Region swatch = new Region();
            swatch.getStyleClass().add("kiln-trend-swatch");
            // AtlantaFX's chart palette, as its own charts use it
            swatch.setStyle("-fx-background-color: -color-chart-" + (i % 8 + 1) + ";");
            swatch.backgroundProperty().addListener(o -> draw());
            swatches[i] = swatch;
            Label item = new Label(names.get(i), swatch);
            item.getStyleClass().add("kiln-trend-legend-item");
            legend.getChildren().add(item);
        }
        legend.setVisible(names.size() > 1);
        legend.setManaged(names.size() > 1);
        axisProbe.getStyleClass().add("kiln-trend-axis");
        gridProbe.getStyleClass().add("kiln-trend-grid");
        for (javafx.scene.Node probe : List.of(axisProbe, gridProbe)) {
            probe.setManaged(false);
            probe.setVisible(false);
        }
        axisProbe.textFillProperty().addListener(o -> draw());
        axisProbe.fontProperty().addListener(o -> draw());
        gridProbe.backgroundProperty().addListener(o -> draw());
        getChildren().addAll(canvas, legend, axisProbe, gridProbe);
    }

    /**
     * Shows new values: {@code secondsAgo[i]} is where point {@code i} ends, {@code values[s][i]} series {@code s}'s
     * value there (NaN draws as 0), the x axis the last {@code spanSeconds} with a tick every {@code tickSeconds}, the
     * y axis 0 to {@code yUpper} with a tick every {@code yUnit}.
     */
    public void show(double[] secondsAgo, double[][] values, double spanSeconds, double tickSeconds, double yUpper, double yUnit,
            java.util.function.DoubleFunction<String> xTickLabel) {
        this.x = secondsAgo.clone();
        this.y = new double[values.length][];
        for (int s = 0; s < values.length; s++) {
            this.y[s] = values[s].clone();
        }
        this.span = spanSeconds;
        this.tickUnit = tickSeconds;
        this.upper = yUpper;
        this.unit = yUnit;
        this.xLabel = xTickLabel;
        draw();
    }

    /** The series' names, in order. */
    public List<String> seriesNames() {
        return names;
    }

    /** The values {@code series} shows now, oldest first (NaN drawn as 0); none for a name it does not have. */
    public double[] values(String series) {
        int s = names.indexOf(series);
        return s < 0 ? new double[0] : y[s].clone();
    }

    /** The top of the y axis now. */
    public double yUpper() {
        return upper;
    }

    @Override
    protected double computePrefWidth(double height) {
        return 320;
    }

    @Override
    protected double computePrefHeight(double width) {
        return 110;
    }

    @Override
    protected double computeMinHeight(double width) {
        return 60;
    }

    @Override
    protected void layoutChildren() {
        double left = snappedLeftInset();
        double top = snappedTopInset();
        double w = getWidth() - left - snappedRightInset();
        double h = getHeight() - top - snappedBottomInset();
        double legendWidth = 0;
        if (legend.isManaged()) {
            legend.setPrefWrapLength(h);
            legendWidth = Math.min(legend.prefWidth(h), w / 2);
            legend.resizeRelocate(left + w - legendWidth, top, legendWidth, h);
            legendWidth += LEGEND_GAP;
        }
        double cw = Math.max(0, Math.floor(w - legendWidth));
        double ch = Math.max(0, Math.floor(h));
        canvas.relocate(left, top);
        if (canvas.getWidth() != cw || canvas.getHeight() != ch) {
            canvas.setWidth(cw);
            canvas.setHeight(ch);
            draw();
        }
    }

    private void draw() {
        double w = canvas.getWidth();
        double h = canvas.getHeight();
        GraphicsContext g = canvas.getGraphicsContext2D();
        g.clearRect(0, 0, w, h);
        if (w < 40 || h < 30) {
            return;
        }
        Font font = axisProbe.getFont();
        Paint text = axisProbe.getTextFill();
        Paint grid = fill(gridProbe.getBackground(), Color.gray(0.5, 0.4));
        measure.setFont(font);
        measure.setText("0");
        double lineHeight = Math.ceil(measure.getLayoutBounds().getHeight());

        // y labels at 0, unit, 2 unit … upper; the plot starts right of the widest
        if (yLabels == null || labelsUpper != upper || labelsUnit != unit || labelsFont != font) {
            int ticks = (int) Math.round(upper / unit);
            yLabels = new String[ticks + 1];
            labelWidth = 0;
            for (int i = 0; i <= ticks; i++) {
                yLabels[i] = number(i * unit);
                measure.setText(yLabels[i]);
                labelWidth = Math.max(labelWidth, measure.getLayoutBounds().getWidth());
            }
            labelsUpper = upper;
            labelsUnit = unit;
            labelsFont = font;
        }
        int ticks = yLabels.length - 1;
        double plotLeft = Math.ceil(labelWidth) + 6;
        double plotRight = w - 10; // room for the last x label ("now") to centre under the end
        double plotTop = Math.ceil(lineHeight / 2);
        double plotBottom = h - lineHeight - 4;
        if (plotRight - plotLeft < 10 || plotBottom - plotTop < 10) {
            return;
        }
        g.setFont(font);
        g.setLineWidth(1);
        g.setStroke(grid);
        g.setFill(text);
        g.setTextAlign(TextAlignment.RIGHT);
        g.setTextBaseline(VPos.CENTER);
        for (int i = 0; i <= ticks; i++) {
            double py = snap(yOf(i * unit, plotTop, plotBottom));
            // the zero line solid, the others dashed (an if, not a ternary, so the varargs call is not read as unboxing)
            if (i == 0) {
                g.setLineDashes((double[]) null);
            } else {
                g.setLineDashes(3, 3);
            }
            g.strokeLine(plotLeft, py, plotRight, py);
            g.fillText(yLabels[i], plotLeft - 4, py);
        }
        g.setLineDashes((double[]) null);
        g.setTextAlign(TextAlignment.CENTER);
        g.setTextBaseline(VPos.TOP);
        for (double ago = span; ago >= -1e-9; ago -= tickUnit) {
            double px = xOf(ago, plotLeft, plotRight);
            g.strokeLine(snap(px), plotBottom, snap(px), plotBottom + 3);
            g.fillText(xLabel.apply(Math.max(0, ago)), px, plotBottom + 4);
        }

        int n = x.length;
        if (n == 0) {
            return;
        }
        double[] px = new double[n];
        for (int i = 0; i < n; i++) {
            px[i] = xOf(x[i], plotLeft, plotRight);
        }
        double[] below = new double[n]; // the stack so far (stacked areas), else 0
        g.setLineJoin(StrokeLineJoin.ROUND);
        for (int s = 0; s < y.length; s++) {
            double[] top = new double[n];
            for (int i = 0; i < n; i++) {
                double v = i < y[s].length && !Double.isNaN(y[s][i]) ? y[s][i] : 0;
                top[i] = (kind == Kind.STACKED ? below[i] : 0) + v;
            }
            Color color = color(s);
            double[] py = new double[n];
            for (int i = 0; i < n; i++) {
                py[i] = yOf(top[i], plotTop, plotBottom);
            }
            if (kind != Kind.LINE) {
                double[] fx = new double[2 * n];
                double[] fy = new double[2 * n];
                for (int i = 0; i < n; i++) {
                    fx[i] = px[i];
                    fy[i] = py[i];
                    fx[2 * n - 1 - i] = px[i];
                    fy[2 * n - 1 - i] = yOf(kind == Kind.STACKED ? below[i] : 0, plotTop, plotBottom);
                }
                g.setFill(color.deriveColor(0, 1, 1, 0.3));
                g.fillPolygon(fx, fy, 2 * n);
            }
            g.setStroke(color);
            g.setLineWidth(kind == Kind.LINE ? 2 : 1.5);
            g.strokePolyline(px, py, n);
            below = top;
        }
    }

    private double xOf(double secondsAgo, double left, double right) {
        return right - (right - left) * Math.min(1, Math.max(0, secondsAgo / span));
    }

    private double yOf(double value, double top, double bottom) {
        return bottom - (bottom - top) * Math.min(1, Math.max(0, value / upper));
    }

    private Color color(int series) {
        Paint p = fill(swatches[series].getBackground(), null);
        return p instanceof Color c ? c : Color.web("#f3622d"); // before the stylesheet is applied
    }

    private static Paint fill(Background b, Paint otherwise) {
        return b == null || b.getFills().isEmpty() ? otherwise : b.getFills().get(0).getFill();
    }

    /** Half-pixel lines are drawn sharp. */
    private static double snap(double v) {
        return Math.floor(v) + 0.5;
    }

    /** An axis number: whole numbers plainly, with thousands grouped, else up to two decimals. */
    static String number(double v) {
        if (Math.abs(v - Math.rint(v)) < 1e-9) {
            return String.format(java.util.Locale.ROOT, "%,d", Math.round(v));
        }
        return java.math.BigDecimal.valueOf(v).setScale(2, java.math.RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }
}
