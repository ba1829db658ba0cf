package dev.kiln.ui.startup;

import dev.kiln.core.startup.SavedSweep;
import dev.kiln.core.startup.SweepReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javafx.geometry.Pos;
import javafx.scene.control.Label;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.GridPane;

/**
 * A saved sweep as a heat map: rows servers, columns share × before/after, each cell its seconds to the answer and
 * coloured by how much of its timeout it used (cool below a third, warm below two thirds, hot near it, red over it);
 * exact figures in tooltips, the verdict per column under it, a legend of the colours above it.
 */
final class SweepHeatMap extends javafx.scene.layout.VBox {
    private final GridPane grid = new GridPane();
    private final javafx.scene.layout.VBox verdicts = new javafx.scene.layout.VBox(2);

    SweepHeatMap() {
        super(8);
        getStyleClass().add("sweep-heatmap");
        grid.setHgap(3);
        grid.setVgap(3);
        legend.setId("startup-heat-legend");
        getChildren().addAll(legend, grid, verdicts);
        legend.setVisible(false);
        legend.setManaged(false);
    }

    /** What each colour means, in words (a cell's colour is its share of its timeout). */
    private final javafx.scene.layout.FlowPane legend = new javafx.scene.layout.FlowPane(6, 4,
            key("heat-0", "under ⅓ of its timeout"), key("heat-1", "⅓ to ⅔"), key("heat-2", "⅔ to 90 %"),
            key("heat-3", "90 % to the timeout"), key("heat-over", "over the timeout"),
            key("heat-failed", "failed in a run"), key("heat-missing", "– not run"));

    private static Label key(String heat, String text) {
        Label l = new Label(text);
        l.getStyleClass().addAll("heat-cell", "heat-key", heat);
        l.setMinWidth(USE_PREF_SIZE);
        return l;
    }

    private void add(javafx.scene.Node n, int col, int row) {
        grid.add(n, col, row);
    }

    /** A column of the matrix. */
    record Column(double share, SweepReport.Bytecode bytecode) {
        String label() {
            String s = share == Math.rint(share) ? Long.toString((long) share) : Double.toString(share);
            return s + " CPU" + (bytecode == SweepReport.Bytecode.AS_IS ? "" : "\n" + bytecode.label());
        }
    }

    /** The columns in the sweep's order (cells are stored column by column). */
    static List<Column> columns(List<SweepReport.Cell> cells) {
        List<Column> out = new ArrayList<>();
        for (SweepReport.Cell c : cells) {
            Column col = new Column(c.share(), c.bytecode());
            if (!out.contains(col)) {
                out.add(col);
            }
        }
        return out;
    }

    /** The heat class of a cell: {@code heat-0} (cool) … {@code heat-3} (hot), {@code heat-over}, {@code heat-failed}. */
    static String heat(SweepReport.Cell c) {
        if (c.overTimeout()) {
            return "heat-over";
        }
        if (c.initializeMs() == null || c.okRuns() < c.runs()) {
            return "heat-failed";
        }
        double used = c.initializeMs() / Math.max(1, c.timeoutMs());
        return used < 1.0 / 3 ? "heat-0" : used < 2.0 / 3 ? "heat-1" : used < 0.9 ? "heat-2" : "heat-3";
    }

    static String tooltip(SweepReport.Cell c) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%s at %s CPU, bytecode %s%n", c.server(),
                c.share(), c.bytecode().label()));
        if (c.initializeMs() != null) {
            b.append(String.format(Locale.ROOT, "answer after %.1f ms (median of %d ok of %d runs)%n", c.initializeMs(),
                    c.okRuns(), c.runs()));
        }
        b.append(String.format(Locale.ROOT, "outcome %s · timeout %.1f s", c.outcome(), c.timeoutMs() / 1000.0));
        if (!c.note().isEmpty()) {
            b.append('\n').append(c.note());
        }
        return b.toString();
    }

    void show(SavedSweep sweep) {
        grid.getChildren().clear();
        verdicts.getChildren().clear();
        legend.setVisible(sweep != null);
        legend.setManaged(sweep != null);
        if (sweep == null) {
            return;
        }
        List<SweepReport.Cell> cells = sweep.cells();
        List<String> servers = sweep.servers();
        List<Column> cols = columns(cells);
        Label corner = new Label(sweep.partial() ? "partial: cancelled in " + sweep.cancelledAt() : "seconds to answer");
        corner.getStyleClass().add(sweep.partial() ? "text-danger" : "text-muted");
        add(corner, 0, 0);
        for (int j = 0; j < cols.size(); j++) {
            Label h = new Label(cols.get(j).label());
            h.getStyleClass().add("heat-header");
            h.setAlignment(Pos.CENTER);
            h.setMaxWidth(Double.MAX_VALUE);
            add(h, j + 1, 0);
        }
        for (int i = 0; i < servers.size(); i++) {
            Label name = new Label(servers.get(i));
            name.getStyleClass().add("heat-name");
            add(name, 0, i + 1);
            for (int j = 0; j < cols.size(); j++) {
                SweepReport.Cell c = find(cells, servers.get(i), cols.get(j));
                Label cell = new Label(c == null ? "–" : c.text());
                cell.getStyleClass().addAll("heat-cell", c == null ? "heat-missing" : heat(c));
                cell.setAlignment(Pos.CENTER);
                cell.setMinWidth(78);
                cell.setMaxWidth(Double.MAX_VALUE);
                GridPane.setFillWidth(cell, true);
                if (c != null) {
                    Tooltip.install(cell, new Tooltip(tooltip(c)));
                }
                add(cell, j + 1, i + 1);
            }
        }
        for (SavedSweep.Verdict v : sweep.verdicts()) {
            Label l = new Label(String.format(Locale.ROOT, "%s CPU %s: slowest %s%s · recommend %s",
                    v.share(), v.bytecode().label(), v.slowest() == null ? "–" : v.slowest(),
                    v.slowestMs() != null ? String.format(Locale.ROOT, " %.1f s (×%.2f margin)",
                            v.slowestMs() / 1000, v.margin() == null ? 0.0 : v.margin()) : "",
                    v.recommendedStartupTimeoutSec() != null
                            ? v.recommendedStartupTimeoutSec() + " s" : "none: over the timeout"));
            l.getStyleClass().add("text-muted");
            verdicts.getChildren().add(l);
        }
    }

    private static SweepReport.Cell find(List<SweepReport.Cell> cells, String server, Column col) {
        for (SweepReport.Cell c : cells) {
            if (c.server().equals(server) && c.share() == col.share() && c.bytecode() == col.bytecode()) {
                return c;
            }
        }
        return null;
    }
}
