package dev.kiln.ui.startup;

import java.util.List;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.Pane;
import javafx.scene.shape.Line;
import javafx.scene.shape.Rectangle;

/**
 * Server startup timelines: one lane per server, a bar from spawn to the {@code initialize} answer (green in time,
 * red late or failed), a tick at first output, a dot when tools are listed, and the startup timeout as a line when
 * it falls inside the scale (else its margin is written at the lane's end).
 */
final class TimelineChart extends Pane {
    private static final double NAME_WIDTH = 170;
    private static final double LANE = 26;
    private static final double AXIS = 22;

    private final ObservableList<Lane> lanes;
    private final Pane canvas = this;

    TimelineChart(ObservableList<Lane> lanes) {
        this.lanes = lanes;
        getStyleClass().add("timeline-chart");
        // Redrawn when the data or the width changes, never from layout (which would loop).
        lanes.addListener((ListChangeListener<Lane>) c -> draw(getWidth()));
        widthProperty().addListener((o, a, w) -> draw(w.doubleValue()));
        setMinHeight(AXIS + LANE * 2);
    }

    @Override
    protected double computePrefHeight(double width) {
        return AXIS + LANE * Math.max(2, lanes.size()) + 8;
    }

    /** The viewport height that shows {@code lanes} lanes, up to about ten before it scrolls. */
    static double heightFor(int lanes) {
        return AXIS + LANE * Math.min(10, Math.max(2, lanes)) + 10;
    }


    /** The scale's end: a bit past the slowest step seen, never past the largest timeout, at least one second. */
    static double scaleMs(List<Lane> lanes) {
        double observed = 0;
        double timeout = 0;
        for (Lane l : lanes) {
            for (Double v : new Double[] {l.spawnMs(), l.firstOutputMs(), l.initializedMs(), l.toolsMs()}) {
                if (v != null) {
                    observed = Math.max(observed, v);
                }
            }
            timeout = Math.max(timeout, l.timeoutMs());
        }
        double scale = Math.max(1000, observed * 1.25);
        return timeout > 0 ? Math.min(scale, timeout * 1.05) : scale;
    }

    private void draw(double width) {
        canvas.getChildren().clear();
        double track = Math.max(100, width - NAME_WIDTH - 90);
        double scale = scaleMs(lanes);
        // axis: five ticks
        for (int i = 0; i <= 4; i++) {
            double ms = scale * i / 4;
            double x = NAME_WIDTH + track * i / 4;
            Line grid = new Line(x, AXIS - 4, x, AXIS + LANE * lanes.size());
            grid.getStyleClass().add("timeline-grid");
            Label t = new Label(ms >= 1000 ? String.format("%.1f s", ms / 1000) : String.format("%.0f ms", ms));
            t.getStyleClass().add("timeline-axis");
            t.relocate(x - 14, 0);
            canvas.getChildren().addAll(grid, t);
        }
        for (int i = 0; i < lanes.size(); i++) {
            Lane l = lanes.get(i);
            double y = AXIS + i * LANE;
            Label name = new Label(l.server());
            name.getStyleClass().add("timeline-name");
            name.setMaxWidth(NAME_WIDTH - 10);
            name.relocate(4, y + 4);
            canvas.getChildren().add(name);
            Rectangle lane = new Rectangle(NAME_WIDTH, y + 4, track, LANE - 8);
            lane.getStyleClass().add("timeline-lane");
            canvas.getChildren().add(lane);
            double start = l.spawnMs() == null ? 0 : l.spawnMs();
            Double end = l.initializedMs();
            boolean failed = !l.outcome().isEmpty() && !l.outcome().equals("ok");
            if (end == null && failed) {
                end = Math.min(scale, start + l.timeoutMs());
            }
            if (l.spawnMs() != null && end != null) {
                double x0 = NAME_WIDTH + track * Math.min(start, scale) / scale;
                double x1 = NAME_WIDTH + track * Math.min(end, scale) / scale;
                Rectangle bar = new Rectangle(x0, y + 6, Math.max(2, x1 - x0), LANE - 12);
                bar.getStyleClass().add(failed || !l.inTime() ? "timeline-bar-bad" : "timeline-bar-ok");
                Tooltip.install(bar, new Tooltip(tooltip(l)));
                canvas.getChildren().add(bar);
            }
            if (l.firstOutputMs() != null && l.firstOutputMs() <= scale) {
                double x = NAME_WIDTH + track * l.firstOutputMs() / scale;
                Line tick = new Line(x, y + 3, x, y + LANE - 3);
                tick.getStyleClass().add("timeline-tick");
                canvas.getChildren().add(tick);
            }
            if (l.toolsMs() != null && l.toolsMs() <= scale) {
                double x = NAME_WIDTH + track * l.toolsMs() / scale;
                Rectangle dot = new Rectangle(x - 3, y + LANE / 2 - 3, 6, 6);
                dot.getStyleClass().add("timeline-tools");
                canvas.getChildren().add(dot);
            }
            double timeoutAt = start + l.timeoutMs();
            if (timeoutAt <= scale) {
                double x = NAME_WIDTH + track * timeoutAt / scale;
                Line limit = new Line(x, y + 2, x, y + LANE - 2);
                limit.getStyleClass().add("timeline-timeout");
                canvas.getChildren().add(limit);
            }
            Label tail = new Label(tail(l));
            tail.getStyleClass().add(failed ? "timeline-tail-bad" : "timeline-tail");
            tail.relocate(NAME_WIDTH + track + 8, y + 4);
            tail.setTextOverrun(javafx.scene.control.OverrunStyle.ELLIPSIS);
            tail.setMaxWidth(86);
            canvas.getChildren().add(tail);
        }
    }

    static String tail(Lane l) {
        if (!l.outcome().isEmpty() && !l.outcome().equals("ok")) {
            return l.outcome();
        }
        if (l.initializedMs() != null) {
            double init = l.initializedMs() - (l.spawnMs() == null ? 0 : l.spawnMs());
            double margin = l.timeoutMs() / Math.max(1, init);
            return String.format(margin < 10 ? "%.0f ms · ×%.1f" : "%.0f ms · ×%.0f", init, margin);
        }
        return l.spawnMs() == null ? "" : "…";
    }

    private static String tooltip(Lane l) {
        StringBuilder b = new StringBuilder(l.server());
        if (l.initializedMs() != null) {
            b.append(String.format("%ninitialize answered at %.0f ms", l.initializedMs()));
        }
        if (l.toolsMs() != null) {
            b.append(String.format("%n%d tools listed at %.0f ms", l.tools(), l.toolsMs()));
        }
        b.append(String.format("%nstartup timeout %.1f s", l.timeoutMs() / 1000));
        if (!l.detail().isEmpty()) {
            b.append("\n").append(l.detail());
        }
        return b.toString();
    }
}
