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
 * listed; each lane's own startup timeout as a mark in that lane at its spawn + timeout when it falls inside the scale
 * (else a note under the lanes and the margin at each lane's end, explained in its tooltip); axis ticks in 1-2-5 steps;
 * exact figures in tooltips. Its height holds every lane: the page scrolls, the chart never hides a lane. Before any
 * probe, a hint instead of bars.
 */
final class TimelineChart extends Pane {
    private static final double NAME_WIDTH = 170;
    /** A lane's height; many servers get narrower lanes so that 32 fit in a page and a half. */
    private static final double LANE = 26;
    private static final double COMPACT_LANE = 20;
    private static final int COMPACT_FROM = 13;
    private static final double AXIS = 22;
    /** The row under the lanes that names the timeout marks. */
    private static final double TIMEOUT_ROW = 16;
    /** The column after the track: each lane's time and margin. */
    private static final double TAIL = 128;

    private final ObservableList<Lane> lanes;
    private final Pane canvas = this;
    private java.util.function.Consumer<String> onSelect = s -> { };

    TimelineChart(ObservableList<Lane> lanes) {
        this.lanes = lanes;
        getStyleClass().add("timeline-chart");
        // Redrawn when the data or the width changes, never from layout (which would loop).
        lanes.addListener((ListChangeListener<Lane>) c -> {
            draw(getWidth());
            if (getHeight() != computePrefHeight(-1)) {
                requestLayout(); // the height follows the number of lanes: the page grows, nothing is hidden
            }
        });
        widthProperty().addListener((o, a, w) -> draw(w.doubleValue()));
        setMinHeight(USE_PREF_SIZE);
        setMaxHeight(USE_PREF_SIZE);
    }

    /** Called with a server's name when its lane is clicked. */
    void setOnSelect(java.util.function.Consumer<String> onSelect) {
        this.onSelect = onSelect;
    }

    /** The lane height for {@code n} lanes. */
    static double laneHeight(int n) {
        return n >= COMPACT_FROM ? COMPACT_LANE : LANE;
    }

    @Override
    protected double computePrefHeight(double width) {
        return lanes.stream().allMatch(l -> l.spawnMs() == null) ? heightFor(2) : heightFor(lanes.size()); // the hint alone
    }

    @Override
    protected double computeMinHeight(double width) {
        return computePrefHeight(width);
    }

    /** The height that shows all {@code lanes} lanes: the chart never scrolls by itself, the page does. */
    static double heightFor(int lanes) {
        int n = Math.max(2, lanes);
        return AXIS + laneHeight(n) * n + 8 + TIMEOUT_ROW;
    }

    /**
     * The axis's step: 1, 2 or 5 times a power of ten milliseconds, so that about five to eight ticks cover
     * {@code scaleMs} (never 312/624/936 ms).
     */
    static double tickStep(double scaleMs) {
        double raw = scaleMs / 6;
        double pow = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * pow >= raw) {
                return m * pow;
            }
        }
        return 10 * pow;
    }

    /** A tick's label: ms below a two-second scale, else seconds with the decimals the step needs. */
    static String tickLabel(double ms, double step, double scaleMs) {
        if (scaleMs < 2000) {
            return String.format(java.util.Locale.ROOT, "%.0f ms", ms);
        }
        double s = ms / 1000;
        int decimals = step >= 1000 ? 0 : step >= 100 ? 1 : 2;
        return String.format(java.util.Locale.ROOT, "%." + decimals + "f s", s);
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
        if (lanes.stream().allMatch(l -> l.spawnMs() == null)) {
            // No fake bars before any probe: say what to do instead.
            Label hint = new Label(EMPTY_HINT);
            hint.getStyleClass().add("timeline-empty");
            hint.setWrapText(true);
            hint.setMaxWidth(Math.max(200, width - 40));
            hint.relocate(20, AXIS);
            canvas.getChildren().add(hint);
            canvas.applyCss();
            return;
        }
        double laneH = laneHeight(lanes.size());
        double bottom = AXIS + laneH * lanes.size();
        // axis: 1-2-5 steps
        double step = tickStep(scale);
        for (int i = 0; i * step <= scale + 1e-6; i++) {
            double ms = i * step;
            double x = NAME_WIDTH + track * ms / scale;
            Line grid = new Line(x, AXIS - 4, x, bottom);
            grid.getStyleClass().add("timeline-grid");
            Label t = new Label(tickLabel(ms, step, scale));
            t.getStyleClass().add("timeline-axis");
            t.setMinWidth(USE_PREF_SIZE);
            t.relocate(i == 0 ? x : x - 16, 0);
            canvas.getChildren().addAll(grid, t);
        }
        for (int i = 0; i < lanes.size(); i++) {
            Lane l = lanes.get(i);
            double y = AXIS + i * laneH;
            Label name = new Label(l.server());
            name.getStyleClass().add("timeline-name");
            name.setMaxWidth(NAME_WIDTH - 10);
            name.setTooltip(new Tooltip(l.server() + " — click for its conversation (messages and stderr)"));
            name.relocate(4, y + (laneH - 18) / 2);
            Rectangle lane = new Rectangle(NAME_WIDTH, y + 4, track, laneH - 8);
            lane.getStyleClass().add("timeline-lane");
            String server = l.server();
            name.setOnMouseClicked(e -> onSelect.accept(server));
            lane.setOnMouseClicked(e -> onSelect.accept(server));
            canvas.getChildren().addAll(name, lane);
            double start = l.spawnMs() == null ? 0 : l.spawnMs();
            boolean failed = !l.outcome().isEmpty() && !l.outcome().equals("ok");
            String tip = tooltip(l);
            if (l.initializedMs() == null && l.spawnMs() != null) {
                // Not answered (yet): what happened so far, and a failed start up to where it ended.
                Double firstOut = l.firstOutputMs();
                if (firstOut != null) {
                    bar(start, firstOut, scale, track, y, laneH, "timeline-seg-start", Phase.START.label(), tip);
                }
                if (failed) {
                    double end = l.exitMs() != null ? l.exitMs() : start + l.timeoutMs();
                    bar(firstOut != null ? firstOut : start, end, scale, track, y, laneH, "timeline-bar-bad", l.outcome(), tip);
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
                bar(seg.fromMs(), seg.toMs(), scale, track, y, laneH, style, seg.phase().label(), tip);
                if (seg.phase() == Phase.FETCH) {
                    word(seg.fromMs(), seg.toMs(), scale, track, y, laneH, l.fetchWord()); // never colour alone
                }
            }
            if (l.toolsMs() != null && l.toolsMs() <= scale) {
                double x = NAME_WIDTH + track * l.toolsMs() / scale;
                Rectangle dot = new Rectangle(x - 3, y + laneH / 2 - 3, 6, 6);
                dot.getStyleClass().add("timeline-tools");
                canvas.getChildren().add(dot);
            }
            Label tail = new Label(tail(l));
            tail.getStyleClass().add(failed || (l.initializedMs() != null && !l.inTime()) ? "timeline-tail-bad" : "timeline-tail");
            tail.relocate(NAME_WIDTH + track + 8, y + (laneH - 18) / 2);
            tail.setMaxWidth(TAIL - 6);
            tail.setTooltip(new Tooltip(tailTip(l)));
            canvas.getChildren().add(tail);
            // Its own timeout: a mark in this lane at spawn + timeout (servers spawn at different times, and each
            // may have its own timeout), so no server's limit is drawn across another's row.
            double limitMs = start + l.timeoutMs();
            if (l.spawnMs() != null && limitMs <= scale) {
                double x = NAME_WIDTH + track * limitMs / scale;
                Line limit = new Line(x, y + 2, x, y + laneH - 2);
                limit.getStyleClass().add("timeline-timeout");
                Tooltip.install(limit, new Tooltip(String.format("%s: startup timeout %s, at %.1f ms (its spawn + timeout)",
                        l.server(), seconds(l.timeoutMs()), limitMs)));
                canvas.getChildren().add(limit);
            }
        }
        // Timeouts beyond the scale have no mark in their lanes: one note names them (each lane's tail has its margin).
        java.util.TreeSet<Double> timeouts = new java.util.TreeSet<>();
        lanes.stream().filter(l -> l.spawnMs() == null || l.spawnMs() + l.timeoutMs() > scale).forEach(l -> timeouts.add(l.timeoutMs()));
        double labelX = NAME_WIDTH + track + 8;
        java.util.List<String> offScale = timeouts.stream().map(TimelineChart::seconds).toList();
        if (!offScale.isEmpty()) {
            String last = offScale.get(offScale.size() - 1);
            Label off = new Label(offScale.size() == 1 ? "timeout " + last + " →" : "timeouts " + String.join(", ",
                    offScale.subList(0, offScale.size() - 1).stream().map(x -> x.replace(" s", "")).toList()) + ", " + last + " →");
            off.getStyleClass().add("timeline-timeout-label");
            off.setTooltip(new Tooltip("startup timeouts beyond the slowest answer: " + String.join(", ", offScale)));
            off.setMaxWidth(TAIL - 6);
            off.setWrapText(true);
            off.relocate(labelX, bottom + 2);
            canvas.getChildren().add(off);
        }
        // Drawn from a width change inside a layout pass: style the new nodes now, not a frame later (a snapshot
        // taken in between would show them unstyled, black and without text).
        canvas.applyCss();
    }

    private static final String EMPTY_HINT = "No probe yet. Press “Probe all” to start every enabled server at"
            + " once and time each one to its answer, or run `kiln probe` in this workspace: its saved runs open here.";

    private static String seconds(double ms) {
        return ms % 1000 == 0 ? String.format("%.0f s", ms / 1000) : String.format("%.1f s", ms / 1000);
    }

    private void bar(double fromMs, double toMs, double scale, double track, double y, double laneH, String style, String what,
            String laneTip) {
        double x0 = NAME_WIDTH + track * Math.min(fromMs, scale) / scale;
        double x1 = NAME_WIDTH + track * Math.min(toMs, scale) / scale;
        Rectangle bar = new Rectangle(x0, y + 6, Math.max(2, x1 - x0), laneH - 12);
        bar.setMouseTransparent(false);
        bar.getStyleClass().add(style);
        Tooltip.install(bar, new Tooltip(String.format("%s: %.1f ms (%.1f → %.1f ms)%n%s", what, toMs - fromMs, fromMs,
                toMs, laneTip)));
        canvas.getChildren().add(bar);
    }

    /** The segment's name written inside it when it is wide enough to hold it. */
    private void word(double fromMs, double toMs, double scale, double track, double y, double laneH, String text) {
        double x0 = NAME_WIDTH + track * Math.min(fromMs, scale) / scale;
        double x1 = NAME_WIDTH + track * Math.min(toMs, scale) / scale;
        if (x1 - x0 < 34) {
            return;
        }
        // A longer word than the segment holds is cut to its first word ("fetch · cached" → "fetch").
        String fits = x1 - x0 >= 8 + 7 * text.length() ? text : text.split(" ")[0];
        Label w = new Label(fits);
        w.getStyleClass().add("timeline-seg-word");
        w.setMouseTransparent(true);
        w.relocate(x0 + 4, y + (laneH - 18) / 2 + 1);
        canvas.getChildren().add(w);
    }

    static String tail(Lane l) {
        if (!l.outcome().isEmpty() && !l.outcome().equals("ok")) {
            return l.outcome();
        }
        if (l.initializedMs() != null) {
            double init = l.initializedMs() - (l.spawnMs() == null ? 0 : l.spawnMs());
            double margin = l.timeoutMs() / Math.max(1, init);
            if (!l.inTime()) {
                return String.format(java.util.Locale.ROOT, "%.0f ms · over", init);
            }
            return String.format(java.util.Locale.ROOT, margin < 10 ? "%.0f ms · ×%.1f" : "%.0f ms · ×%.0f", init, margin);
        }
        return l.spawnMs() == null ? "" : "…";
    }

    /** What the tail's figures mean, in words: the margin factor is the timeout divided by the answer's time. */
    static String tailTip(Lane l) {
        if (l.initializedMs() == null) {
            return l.outcome().isEmpty() ? "not answered yet" : l.server() + ": " + l.outcome()
                    + (l.detail().isEmpty() ? "" : " — " + l.detail());
        }
        double init = l.initializedMs() - (l.spawnMs() == null ? 0 : l.spawnMs());
        double margin = l.timeoutMs() / Math.max(1, init);
        if (!l.inTime()) {
            return String.format(java.util.Locale.ROOT, "%s answered after %.0f ms, over its startup timeout of %s:"
                    + " a client would have given up on it", l.server(), init, seconds(l.timeoutMs()));
        }
        return String.format(java.util.Locale.ROOT, "%s answered %.0f ms after its spawn. ×%.1f is its margin: its startup"
                + " timeout (%s) divided by that time, how many times slower it could start before a client gives up.",
                l.server(), init, margin, seconds(l.timeoutMs()));
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
