package dev.kiln.ui.chart;

import java.io.IOException;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import javafx.css.PseudoClass;
import javafx.geometry.VPos;
import javafx.scene.canvas.Canvas;
import javafx.scene.canvas.GraphicsContext;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.Background;
import javafx.scene.layout.FlowPane;
import javafx.scene.layout.Region;
import javafx.scene.paint.Color;
import javafx.scene.paint.Paint;
import javafx.scene.shape.StrokeLineCap;
import javafx.scene.shape.StrokeLineJoin;
import javafx.scene.text.Font;
import javafx.scene.text.Text;
import javafx.scene.text.TextAlignment;

/**
 * A live chart drawn on a canvas: lines, areas or stacked areas over a wall-clock window, a y axis from 0, and a
 * legend beside it when there is more than one series. A redraw is a few dozen drawing commands and no node:
 * {@code XYChart} re-laid out its axes and rebuilt every path element of every series on each redraw, which made
 * the chart redraws most of a tick's pulse ({@code kiln bench ui}).
 *
 * <p>A chart can be asked: hovering shows the time and the exact value of every shown series at the nearest point;
 * a drag across the plot zooms to those times (a double click or <em>Reset zoom</em> goes back); a click on a legend
 * entry hides or shows its series (the y axis fits what is shown). Where nothing was seen (NaN) the line breaks: a
 * gap, never a 0. Each series has its own dash pattern as well as its colour, and lines are drawn over every fill,
 * so no series hides another. What is asked is answered by {@link ChartData}, without a window.
 *
 * <p>Colours come from the theme's stylesheet through the legend's swatches ({@code -kiln-series-N}, the
 * Okabe–Ito palette, chosen per theme in {@code kiln.css}) and unshown style probes (axis text, grid, hover line),
 * and the chart redraws when the theme changes them.
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
    private static final PseudoClass OFF = PseudoClass.getPseudoClass("off");
    /** A dash pattern per series, so overlapping lines stay apart and no series is told by colour alone. */
    private static final double[][] DASHES = {{}, {7, 4}, {2, 3}, {10, 3, 2, 3}, {4, 4}, {1, 2}, {12, 4}, {6, 2, 2, 2}};
    private final Kind kind;
    private final List<String> names;
    private final boolean[] shown;
    private final Canvas canvas = new Canvas();
    private final FlowPane legend = new FlowPane(javafx.geometry.Orientation.VERTICAL, 10, 3);
    private final Region[] swatches;
    private final Label[] legendItems;
    private final Label axisProbe = new Label("0");
    private final Region gridProbe = new Region();
    private final Region band = new Region();
    private final Label hoverBox = new Label();
    private final Button reset = new Button("Reset zoom");
    private final Text measure = new Text();
    private ZoneId zone = ZoneId.systemDefault();
    // what was drawn last, kept to draw again on a resize, a hover or a theme change
    private ChartData data;
    private long windowFrom;
    private long windowTo = 60_000;
    private double fixedUpper = Double.NaN;
    private double upper = 1;
    private double unit = 1;
    private ChartZoom zoom;
    private int hovered = -1;
    private double dragStart = Double.NaN;
    private long dragStartTime; // the time under the press: the live window moves on while the drag lasts
    // the plot's corners as drawn last, for the pointer
    private double plotLeft;
    private double plotRight;
    private double plotTop;
    private double plotBottom;

    public TrendChart(Kind kind, List<String> names) {
        this.kind = kind;
        this.names = List.copyOf(names);
        this.shown = new boolean[names.size()];
        java.util.Arrays.fill(shown, true);
        this.data = ChartData.empty(names.size());
        getStyleClass().add("kiln-trend");
        swatches = new Region[names.size()];
        legendItems = new Label[names.size()];
        for (int i = 0; i < names.size(); i++) {
            Region swatch = new Region();
            swatch.getStyleClass().addAll("kiln-trend-swatch", "kiln-series-" + (i % 8 + 1));
            swatch.backgroundProperty().addListener(o -> draw());
            swatches[i] = swatch;
            Label item = new Label(names.get(i), swatch);
            item.getStyleClass().add("kiln-trend-legend-item");
            item.setId(getId() == null ? null : getId() + "-legend-" + i);
            item.setTooltip(new Tooltip("Click to hide or show " + names.get(i)));
            int s = i;
            item.setOnMouseClicked(e -> {
                if (e.getButton() == MouseButton.PRIMARY) {
                    setSeriesShown(names.get(s), !shown[s]);
                }
            });
            legendItems[i] = item;
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
        band.getStyleClass().add("kiln-trend-zoom-band");
        band.setManaged(false);
        band.setVisible(false);
        band.setMouseTransparent(true);
        hoverBox.getStyleClass().add("kiln-trend-hover");
        hoverBox.setManaged(false);
        hoverBox.setVisible(false);
        hoverBox.setMouseTransparent(true);
        reset.getStyleClass().addAll("small", "kiln-trend-reset");
        reset.setManaged(false);
        reset.setVisible(false);
        reset.setOnAction(e -> resetZoom());
        axisProbe.textFillProperty().addListener(o -> draw());
        axisProbe.fontProperty().addListener(o -> draw());
        gridProbe.backgroundProperty().addListener(o -> draw());
        getChildren().addAll(canvas, legend, axisProbe, gridProbe, band, reset, hoverBox); // the hover box over all
        idProperty().addListener((o, a, id) -> {
            for (int i = 0; i < legendItems.length; i++) {
                legendItems[i].setId(id == null ? null : id + "-legend-" + i);
            }
            reset.setId(id == null ? null : id + "-reset");
        });

        canvas.setOnMouseMoved(e -> hover(e.getX()));
        canvas.setOnMouseExited(e -> hover(Double.NaN));
        canvas.setOnMousePressed(this::pressed);
        canvas.setOnMouseDragged(this::dragged);
        canvas.setOnMouseReleased(this::released);
        canvas.setOnMouseClicked(e -> {
            if (e.getButton() == MouseButton.PRIMARY && e.getClickCount() == 2) {
                resetZoom();
            }
        });
    }

    /**
     * Shows new values over the wall-clock window [{@code from}, {@code to}] (epoch ms); the y axis from 0 to
     * {@code fixedUpper}, or (NaN) to a round number above the largest value shown.
     */
    public void show(ChartData values, long from, long to, double fixedUpper) {
        if (values.seriesCount() != names.size()) {
            throw new IllegalArgumentException(values.seriesCount() + " series for a chart of " + names.size());
        }
        this.data = values;
        this.windowFrom = from;
        this.windowTo = Math.max(from + 1, to);
        this.fixedUpper = fixedUpper;
        draw();
        if (hovered >= 0) {
            hoverAt(hovered < data.size() ? data.at(hovered) : Long.MIN_VALUE); // the values under the pointer moved on
        }
    }

    /** The time zone of the axis and the hover box (the system's by default; tests fix it). */
    public void setZone(ZoneId zone) {
        this.zone = zone;
        draw();
    }

    /** The series' names, in order. */
    public List<String> seriesNames() {
        return names;
    }

    /** The values {@code series} shows now, oldest first (NaN where nothing was seen); none for a name it does not have. */
    public double[] values(String series) {
        int s = names.indexOf(series);
        return s < 0 ? new double[0] : data.series(s);
    }

    /** What is shown now, as numbers. */
    public ChartData data() {
        return data;
    }

    /** The top of the y axis now. */
    public double yUpper() {
        return upper;
    }

    /** Shows or hides a series (a click on its legend entry does the same). */
    public void setSeriesShown(String series, boolean show) {
        int s = names.indexOf(series);
        if (s < 0) {
            throw new IllegalArgumentException("this chart has no series " + series + "; it has " + names);
        }
        shown[s] = show;
        legendItems[s].pseudoClassStateChanged(OFF, !show);
        draw();
        if (hovered >= 0) {
            showHover();
        }
    }

    public boolean isSeriesShown(String series) {
        int s = names.indexOf(series);
        return s >= 0 && shown[s];
    }

    /** The zoomed window, or empty when the chart shows its whole window. */
    public Optional<ChartZoom> zoom() {
        return Optional.ofNullable(zoom);
    }

    /** Zooms to {@code z}; {@code null} shows the whole window again. */
    public void setZoom(ChartZoom z) {
        zoom = z;
        reset.setVisible(z != null);
        draw();
    }

    public void resetZoom() {
        setZoom(null);
    }

    /** The hover box's text now; empty when the pointer is not over a point. */
    public String hoverText() {
        return hoverBox.isVisible() && hovered >= 0 && hovered < data.size() ? data.describe(hovered, names, shown, zone) : "";
    }

    /** Writes the chart as it is drawn now (with its legend) as a PNG. */
    public void exportPng(Path file) throws IOException {
        dev.kiln.ui.util.PngSnapshot.write(snapshot(null, null), file);
    }

    /** Where point {@code i} is drawn, in this chart's coordinates {x, y of the plot's middle} (for tests and pointers). */
    public double[] pointAt(int i) {
        return new double[] {canvas.getLayoutX() + xOf(data.at(i)), canvas.getLayoutY() + (plotTop + plotBottom) / 2};
    }

    /** The times the plot shows now: the zoom, else the whole window. */
    private long from() {
        return zoom != null ? zoom.from() : windowFrom;
    }

    private long to() {
        return zoom != null ? zoom.to() : windowTo;
    }

    // ---- the pointer -------------------------------------------------------------------------------------------

    private long timeAt(double px) {
        double f = (Math.min(plotRight, Math.max(plotLeft, px)) - plotLeft) / Math.max(1, plotRight - plotLeft);
        return from() + Math.round(f * (to() - from()));
    }

    private void hover(double px) {
        if (Double.isNaN(px) || px < plotLeft - 4 || px > plotRight + 4 || !Double.isNaN(dragStart)) {
            hovered = -1;
            hoverBox.setVisible(false);
            draw();
            return;
        }
        hoverAt(timeAt(px));
    }

    private void hoverAt(long t) {
        hovered = data.nearest(t, from(), to());
        if (hovered < 0) {
            hoverBox.setVisible(false);
        } else {
            showHover();
        }
        draw();
    }

    private void showHover() {
        hoverBox.setText(columns(data.describe(hovered, names, shown, zone)));
        hoverBox.setVisible(true);
        hoverBox.autosize();
        double x = canvas.getLayoutX() + xOf(data.at(hovered));
        double w = hoverBox.getWidth();
        double left = x + 10 + w > getWidth() ? x - 10 - w : x + 10;
        hoverBox.relocate(Math.max(0, left), Math.max(0, Math.min(plotTop, getHeight() - hoverBox.getHeight())));
    }

    /** The hover text with more than three series in two columns, so the box fits a chart's height. */
    private static String columns(String described) {
        String[] lines = described.split("\n");
        if (lines.length <= 4) {
            return described;
        }
        int half = (lines.length - 1 + 1) / 2;
        int width = 0;
        for (int i = 1; i <= half; i++) {
            width = Math.max(width, lines[i].length());
        }
        StringBuilder b = new StringBuilder(lines[0]);
        for (int i = 1; i <= half; i++) {
            b.append('\n').append(lines[i]);
            if (i + half < lines.length) {
                b.append(" ".repeat(width - lines[i].length() + 3)).append(lines[i + half]);
            }
        }
        return b.toString();
    }

    private void pressed(MouseEvent e) {
        if (e.getButton() == MouseButton.PRIMARY && e.getX() >= plotLeft && e.getX() <= plotRight) {
            dragStart = e.getX();
            dragStartTime = timeAt(dragStart);
        }
    }

    private void dragged(MouseEvent e) {
        if (Double.isNaN(dragStart)) {
            return;
        }
        double x = Math.min(plotRight, Math.max(plotLeft, e.getX()));
        band.resizeRelocate(Math.min(dragStart, x), plotTop, Math.abs(x - dragStart), plotBottom - plotTop);
        band.setVisible(true);
        hoverBox.setVisible(false);
    }

    private void released(MouseEvent e) {
        if (Double.isNaN(dragStart)) {
            return;
        }
        double start = dragStart;
        dragStart = Double.NaN;
        band.setVisible(false);
        if (Math.abs(e.getX() - start) >= 6) {
            ChartZoom.dragged(dragStartTime, timeAt(e.getX())).ifPresent(this::setZoom);
        }
    }

    // ---- layout and drawing ------------------------------------------------------------------------------------

    @Override
    protected double computePrefWidth(double height) {
        return 320;
    }

    @Override
    protected double computePrefHeight(double width) {
        return 110;
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
        reset.autosize();
        reset.relocate(left + Math.max(0, cw - reset.getWidth() - 12), top + 2);
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
        long from = from();
        long to = to();
        double[] scale = Double.isNaN(fixedUpper) ? LiveCharts.roundScale(data.max(shown, kind == Kind.STACKED, from, to))
                : new double[] {fixedUpper, fixedUpper / 4};
        upper = scale[0];
        unit = scale[1];
        if (w < 40 || h < 30) {
            return;
        }
        Font font = axisProbe.getFont();
        Paint text = axisProbe.getTextFill();
        Paint grid = fill(gridProbe.getBackground(), Color.gray(0.5, 0.4));
        measure.setFont(font);
        measure.setText("0");
        double lineHeight = Math.ceil(measure.getLayoutBounds().getHeight());

        int ticks = (int) Math.round(upper / unit);
        String[] yLabels = new String[ticks + 1];
        double labelWidth = 0;
        for (int i = 0; i <= ticks; i++) {
            yLabels[i] = number(i * unit);
            measure.setText(yLabels[i]);
            labelWidth = Math.max(labelWidth, measure.getLayoutBounds().getWidth());
        }
        measure.setText("00:00:00");
        double halfTime = Math.ceil(measure.getLayoutBounds().getWidth() / 2);
        plotLeft = Math.max(Math.ceil(labelWidth) + 6, halfTime);
        plotRight = w - halfTime; // room for the last time label to centre under the end
        plotTop = Math.ceil(lineHeight / 2);
        plotBottom = h - lineHeight - 4;
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
            double py = snap(yOf(i * unit));
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
        for (long t : ChartData.ticks(from, to, zone)) {
            double px = xOf(t);
            g.strokeLine(snap(px), plotBottom, snap(px), plotBottom + 3);
            g.fillText(ChartData.tickLabel(t, to - from, zone), px, plotBottom + 4);
        }

        int n = data.size();
        if (n > 0) {
            drawSeries(g, n, from, to);
        }
        if (hovered >= 0 && hovered < n) {
            double px = snap(xOf(data.at(hovered)));
            g.setStroke(text);
            g.setLineWidth(1);
            g.setLineDashes(2, 2);
            g.strokeLine(px, plotTop, px, plotBottom);
            g.setLineDashes((double[]) null);
        }
    }

    private void drawSeries(GraphicsContext g, int n, long from, long to) {
        g.save();
        g.beginPath();
        g.rect(plotLeft - 1, plotTop - 2, plotRight - plotLeft + 2, plotBottom - plotTop + 3);
        g.clip();
        double[] px = new double[n];
        for (int i = 0; i < n; i++) {
            px[i] = xOf(data.at(i));
        }
        // tops[s][i]: where series s is drawn at point i (its value, or the stack up to it); bases: where its area starts
        double[][] tops = new double[names.size()][n];
        double[][] bases = new double[names.size()][n];
        double[] below = new double[n];
        for (int s = 0; s < names.size(); s++) {
            for (int i = 0; i < n; i++) {
                double v = data.value(s, i);
                bases[s][i] = kind == Kind.STACKED ? below[i] : 0;
                tops[s][i] = Double.isNaN(v) ? Double.NaN : bases[s][i] + v;
                if (kind == Kind.STACKED && shown[s] && !Double.isNaN(v)) {
                    below[i] += v;
                }
            }
        }
        g.setLineJoin(StrokeLineJoin.ROUND);
        g.setLineCap(StrokeLineCap.ROUND);
        if (kind != Kind.LINE) {
            for (int s = 0; s < names.size(); s++) {
                if (!shown[s]) {
                    continue;
                }
                g.setFill(color(s).deriveColor(0, 1, 1, kind == Kind.STACKED ? 0.35 : 0.2));
                for (int[] run : data.runs(s, from, to)) {
                    int m = run[1] - run[0] + 1;
                    double[] fx = new double[2 * m];
                    double[] fy = new double[2 * m];
                    for (int k = 0; k < m; k++) {
                        int i = run[0] + k;
                        fx[k] = px[i];
                        fy[k] = yOf(tops[s][i]);
                        fx[2 * m - 1 - k] = px[i];
                        fy[2 * m - 1 - k] = yOf(bases[s][i]);
                    }
                    g.fillPolygon(fx, fy, 2 * m);
                }
            }
        }
        // every line over every fill, the first series last (on top): none hides another
        for (int s = names.size() - 1; s >= 0; s--) {
            if (!shown[s]) {
                continue;
            }
            Color color = color(s);
            g.setStroke(color);
            g.setFill(color);
            g.setLineWidth(2);
            double[] dash = DASHES[s % DASHES.length];
            if (dash.length == 0) {
                g.setLineDashes((double[]) null);
            } else {
                g.setLineDashes(dash);
            }
            for (int[] run : data.runs(s, from, to)) {
                int m = run[1] - run[0] + 1;
                if (m == 1) {
                    g.fillOval(px[run[0]] - 2.5, yOf(tops[s][run[0]]) - 2.5, 5, 5); // a point alone between gaps
                    continue;
                }
                double[] lx = new double[m];
                double[] ly = new double[m];
                for (int k = 0; k < m; k++) {
                    lx[k] = px[run[0] + k];
                    ly[k] = yOf(tops[s][run[0] + k]);
                }
                g.strokePolyline(lx, ly, m);
            }
            if (hovered >= 0 && hovered < n && !Double.isNaN(tops[s][hovered])) {
                g.fillOval(px[hovered] - 3.5, yOf(tops[s][hovered]) - 3.5, 7, 7);
            }
        }
        g.setLineDashes((double[]) null);
        g.restore();
    }

    private double xOf(long t) {
        return plotLeft + (plotRight - plotLeft) * (t - from()) / (double) Math.max(1, to() - from());
    }

    private double yOf(double value) {
        return plotBottom - (plotBottom - plotTop) * Math.min(1, Math.max(0, value / upper));
    }

    private Color color(int series) {
        Paint p = fill(swatches[series].getBackground(), null);
        return p instanceof Color c ? c : Color.web("#0072b2"); // before the stylesheet is applied
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
