package dev.kiln.ui.startup;

import dev.kiln.core.startup.Phase;
import java.util.List;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.Pane;
import javafx.scene.shape.Line;
import javafx.scene.shape.Rectangle;

/**
 * Server startup timelines: one lane per server, its phases as segments of one bar — a fetching launcher's fetch
 * (its own colour and the word "fetch"), before first output (imports),
 * first output to answer (work before answering), {@code tools/list} — red when late or failed, a dot when tools are
 * listed; the startup timeout as one vertical line across all lanes when it falls inside the scale (else a note at
 * the axis and the margin at each lane's end); exact figures in tooltips. Before any probe, a hint instead of bars.
 */
final class TimelineChart extends Pane {
    private static final double NAME_WIDTH = 170;
    private static final double LANE = 26;
    private static final double AXIS = 22;
    /** The row under the lanes that names the timeout line. */
    private static final double TIMEOUT_ROW = 16;
    /** The column after the track: each lane's time and margin. */
    private static final double TAIL = 118;

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
        return AXIS + LANE * Math.max(2, lanes.size()) + 8 + TIMEOUT_ROW;
    }

    /** The viewport height that shows {@code lanes} lanes, up to about ten before it scrolls. */
    static double heightFor(int lanes) {
        return AXIS + LANE * Math.min(10, Math.max(2, lanes)) + 10 + TIMEOUT_ROW;
    }


    /**
     * The scale's end: a bit past the slowest step seen (a failed start's end included), never past the largest
     * timeout, at least one second.
     */
    static double scaleMs(List<Lane> lanes) {
        double observed = 0;
        double timeout = 0;
        for (Lane l : lanes) {
            for (Double v : new Double[] {l.spawnMs(), l.firstOutputMs(), l.initializedMs(), l.toolsMs()}) {
                if (v != null) {
                    observed = Math.max(observed, v);
                }
            }
            if (l.initializedMs() == null && l.spawnMs() != null && !l.outcome().isEmpty() && !l.outcome().equals("ok")) {
                // A failed start's bar runs to where it ended (its exit, else its timeout): on the scale, with that line.
                observed = Math.max(observed, l.exitMs() != null ? l.exitMs() : l.spawnMs() + l.timeoutMs());
            }
            timeout = Math.max(timeout, l.timeoutMs());
        }
        double scale = Math.max(1000, observed * 1.25);
        if (timeout > 0 && scale >= timeout / 4) {
            return timeout * 1.05; // close enough to matter: show the timeout itself, as a line across the lanes
        }
        return timeout > 0 ? Math.min(scale, timeout * 1.05) : scale;
    }

    private void draw(double width) {
        canvas.getChildren().clear();
        double track = Math.max(100, width - NAME_WIDTH - TAIL);
        double scale = scaleMs(lanes);
        double bottom = AXIS + LANE * lanes.size();
        if (lanes.stream().allMatch(l -> l.spawnMs() == null)) {
            // No fake bars before any probe: say what to do instead.
            Label hint = new Label(EMPTY_HINT);
            hint.getStyleClass().add("timeline-empty");
            hint.setWrapText(true);
            hint.setMaxWidth(Math.max(200, width - 40));
            hint.relocate(20, AXIS);
            canvas.getChildren().add(hint);
            return;
        }
        // axis: five ticks
        for (int i = 0; i <= 4; i++) {
            double ms = scale * i / 4;
            double x = NAME_WIDTH + track * i / 4;
            Line grid = new Line(x, AXIS - 4, x, bottom);
            grid.getStyleClass().add("timeline-grid");
            Label t = new Label(ms >= 1000 ? String.format("%.1f s", ms / 1000) : String.format("%.0f ms", ms));
            t.getStyleClass().add("timeline-axis");
            t.relocate(i == 4 ? x - 40 : x - 14, 0); // the last one ends at the track, clear of the tail column
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
            boolean failed = !l.outcome().isEmpty() && !l.outcome().equals("ok");
            String tip = tooltip(l);
            if (l.initializedMs() == null && l.spawnMs() != null) {
                // Not answered (yet): what happened so far, and a failed start up to where it ended.
                Double firstOut = l.firstOutputMs();
                if (firstOut != null) {
                    bar(start, firstOut, scale, track, y, "timeline-seg-start", Phase.START.label(), tip);
                }
                if (failed) {
                    double end = l.exitMs() != null ? l.exitMs() : start + l.timeoutMs();
                    bar(firstOut != null ? firstOut : start, end, scale, track, y, "timeline-bar-bad", l.outcome(), tip);
                }
            }
            for (Phase.Segment seg : l.segments()) {
                String style = switch (seg.phase()) {
                    case FETCH -> "timeline-seg-fetch";
                    case START -> "timeline-seg-start";
                    case WORK -> "timeline-seg-work";
                    default -> "timeline-seg-tools";
                };
                if ((failed || !l.inTime()) && seg.phase() != Phase.TOOLS && seg.phase() != Phase.FETCH) {
                    style = "timeline-bar-bad";
                }
                bar(seg.fromMs(), seg.toMs(), scale, track, y, style, seg.phase().label(), tip);
                if (seg.phase() == Phase.FETCH) {
                    word(seg.fromMs(), seg.toMs(), scale, track, y, "fetch"); // never colour alone
                }
            }
            if (l.toolsMs() != null && l.toolsMs() <= scale) {
                double x = NAME_WIDTH + track * l.toolsMs() / scale;
                Rectangle dot = new Rectangle(x - 3, y + LANE / 2 - 3, 6, 6);
                dot.getStyleClass().add("timeline-tools");
                canvas.getChildren().add(dot);
            }
            Label tail = new Label(tail(l));
            tail.getStyleClass().add(failed ? "timeline-tail-bad" : "timeline-tail");
            tail.relocate(NAME_WIDTH + track + 8, y + 4);
            tail.setTextOverrun(javafx.scene.control.OverrunStyle.ELLIPSIS);
            tail.setMaxWidth(TAIL - 10);
            canvas.getChildren().add(tail);
        }
        // The timeout as one vertical line across every lane (one per distinct timeout), or a note when off scale.
        java.util.TreeSet<Double> timeouts = new java.util.TreeSet<>();
        lanes.forEach(l -> timeouts.add(l.timeoutMs()));
        double labelX = NAME_WIDTH + track + 8;
        // Off-scale timeouts share one note: one label each would be drawn over one another in the same place.
        java.util.List<String> offScale = new java.util.ArrayList<>();
        for (double t : timeouts) {
            if (t <= scale) {
                double x = NAME_WIDTH + track * t / scale;
                Line limit = new Line(x, AXIS - 6, x, bottom);
                limit.getStyleClass().add("timeline-timeout");
                Tooltip.install(limit, new Tooltip(String.format("startup timeout %.1f s", t / 1000)));
                Label at = new Label(String.format("timeout %s", seconds(t)));
                at.getStyleClass().add("timeline-timeout-label");
                at.relocate(x - 34, bottom + 2); // under the lanes: the axis labels keep the top row
                canvas.getChildren().addAll(limit, at);
            } else {
                offScale.add(seconds(t));
            }
        }
        if (!offScale.isEmpty()) {
            String last = offScale.get(offScale.size() - 1);
            Label off = new Label(offScale.size() == 1 ? "timeout " + last + " →" : "timeouts " + String.join(", ",
                    offScale.subList(0, offScale.size() - 1).stream().map(x -> x.replace(" s", "")).toList()) + ", " + last + " →");
            off.getStyleClass().add("timeline-timeout-label");
            off.setTooltip(new Tooltip("startup timeouts beyond the slowest answer: " + String.join(", ", offScale)));
            off.setTextOverrun(javafx.scene.control.OverrunStyle.ELLIPSIS);
            off.setMaxWidth(TAIL - 6);
            off.relocate(labelX, 0);
            canvas.getChildren().add(off);
        }
    }

    private static final String EMPTY_HINT = "No probe yet. Press “Probe all” to start every enabled server at"
            + " once and time each one to its answer, or run `kiln probe` in this workspace: its saved runs open here.";

    private static String seconds(double ms) {
        return ms % 1000 == 0 ? String.format("%.0f s", ms / 1000) : String.format("%.1f s", ms / 1000);
    }

    private void bar(double fromMs, double toMs, double scale, double track, double y, String style, String what,
            String laneTip) {
        double x0 = NAME_WIDTH + track * Math.min(fromMs, scale) / scale;
        double x1 = NAME_WIDTH + track * Math.min(toMs, scale) / scale;
        Rectangle bar = new Rectangle(x0, y + 6, Math.max(2, x1 - x0), LANE - 12);
        bar.getStyleClass().add(style);
        Tooltip.install(bar, new Tooltip(String.format("%s: %.1f ms (%.1f → %.1f ms)%n%s", what, toMs - fromMs, fromMs,
                toMs, laneTip)));
        canvas.getChildren().add(bar);
    }

    /** The segment's name written inside it when it is wide enough to hold it. */
    private void word(double fromMs, double toMs, double scale, double track, double y, String text) {
        double x0 = NAME_WIDTH + track * Math.min(fromMs, scale) / scale;
        double x1 = NAME_WIDTH + track * Math.min(toMs, scale) / scale;
        if (x1 - x0 < 34) {
            return;
        }
        Label w = new Label(text);
        w.getStyleClass().add("timeline-seg-word");
        w.setMouseTransparent(true);
        w.relocate(x0 + 4, y + 5);
        canvas.getChildren().add(w);
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

    static String tooltip(Lane l) {
        StringBuilder b = new StringBuilder(l.server());
        if (l.spawnMs() != null) {
            b.append(String.format("%nspawned at %.1f ms", l.spawnMs()));
        }
        if (l.firstOutputMs() != null) {
            b.append(String.format("%nfirst output at %.1f ms", l.firstOutputMs()));
        }
        if (l.initializedMs() != null) {
            b.append(String.format("%nanswered at %.1f ms (%.1f ms after spawn)", l.initializedMs(),
                    l.initializedMs() - (l.spawnMs() == null ? 0 : l.spawnMs())));
            b.append("\n").append(Phase.attribute(l.timeline(), l.launcher()).explain());
        }
        if (l.toolsMs() != null) {
            b.append(String.format("%n%d tools listed at %.1f ms", l.tools(), l.toolsMs()));
        }
        if (l.exitMs() != null) {
            b.append(String.format("%nexited at %.1f ms", l.exitMs()));
        }
        if (!l.fetchNote().isEmpty()) {
            b.append("\n").append(l.fetchNote());
        }
        b.append(String.format("%nstartup timeout %.1f s", l.timeoutMs() / 1000));
        if (!l.detail().isEmpty()) {
            b.append("\n").append(l.detail());
        }
        return b.toString();
    }
}
