package dev.kiln.core.startup;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A probe sweep: every server's time to its answer at each CPU share, before and after precompiling bytecode — the
 * table operators make by hand (rows servers, columns share × before/after) — with a verdict per column and the
 * {@code startup_timeout_sec} to configure at each share. Rendered as a text table, Markdown, CSV or JSON.
 *
 * @param startedAt when the sweep started
 * @param shares the shares asked for, in order
 * @param compareBytecode whether before/after columns were measured
 * @param repeat probe runs per cell (medians)
 * @param mechanism how the shares were enforced ({@link CpuQuota.Mechanism#label()})
 * @param servers the servers, in config order
 * @param cells the matrix, column by column; a cancelled sweep has fewer
 * @param runs the probe behind each column
 * @param notes what people must know (environments not precompiled, shares above the CPUs here)
 * @param cancelledAt the column the sweep was cancelled in, or null when it finished
 */
public record SweepReport(Instant startedAt, List<Double> shares, boolean compareBytecode, int repeat, String mechanism,
        List<String> servers, List<Cell> cells, List<Column> runs, List<String> notes, @Nullable String cancelledAt) {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Marks a cell over its timeout in text and Markdown. */
    public static final String OVER = "✗";
    /** Marks a cell whose environment could not be precompiled. */
    public static final String NOT_PRECOMPILED = "†";

    public SweepReport {
        shares = List.copyOf(shares);
        servers = List.copyOf(servers);
        cells = List.copyOf(cells);
        runs = List.copyOf(runs);
        notes = List.copyOf(notes);
    }

    /** Which bytecode a column's servers had. */
    public enum Bytecode {
        /** No usable bytecode: an empty {@code PYTHONPYCACHEPREFIX} and {@code PYTHONDONTWRITEBYTECODE=1}. */
        BEFORE,
        /** After {@code kiln bytecode compile} of each Python server's environment. */
        AFTER,
        /** As the servers are (no comparison asked for). */
        AS_IS;

        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        public static Bytecode parse(String s) {
            return valueOf(s.toUpperCase(Locale.ROOT).replace('-', '_'));
        }
    }

    /**
     * One server at one share and bytecode.
     *
     * @param server the server
     * @param share CPUs
     * @param bytecode before, after or as-is
     * @param initializeMs median spawn → answer over the ok runs, or null when none was ok
     * @param outcome the representative run's outcome ({@code ok}, {@code timeout}, {@code exited(1)}, …)
     * @param timeoutMs the timeout it was held to
     * @param okRuns how many runs were ok
     * @param runs how many runs
     * @param note why the cell is marked ({@code ""}: it is not), e.g. the environment could not be precompiled
     */
    public record Cell(String server, double share, Bytecode bytecode, @Nullable Double initializeMs, String outcome, long timeoutMs,
            int okRuns, int runs, String note) {
        public Cell {
            note = note == null ? "" : note;
        }

        /** Missed its timeout in some run. */
        public boolean overTimeout() {
            return outcome.equals(Outcome.TIMEOUT.label());
        }

        /** The cell for people: seconds, or what happened instead; marked over the timeout or not precompiled. */
        public String text() {
            String v;
            if (initializeMs != null && okRuns == runs) {
                v = String.format(Locale.ROOT, "%.1f", initializeMs / 1000);
            } else if (overTimeout()) {
                v = String.format(Locale.ROOT, ">%s%s", CpuQuota.format(timeoutMs / 1000.0), OVER);
            } else {
                v = outcome;
            }
            return v + (note.isEmpty() ? "" : NOT_PRECOMPILED);
        }
    }

    /** One column of the matrix: a share and a bytecode, and the probe that measured it. */
    public record Column(double share, Bytecode bytecode, ProbeReport report) {
        public String label() {
            return CpuQuota.format(share) + " CPU" + (bytecode == Bytecode.AS_IS ? "" : " " + bytecode.label());
        }
    }

    /**
     * A column's verdict.
     *
     * @param share CPUs
     * @param bytecode before, after or as-is
     * @param slowest the slowest ok server, or null
     * @param slowestMs its time, or null
     * @param timeoutMs its timeout (the smallest of the column when none was ok)
     * @param overTimeout servers that missed their timeout
     * @param failed servers that did not start for any reason
     * @param recommendedTimeoutSec the {@code startup_timeout_sec} that covers every server at this share, or null when
     *     some server missed its timeout (probe with a longer timeout to learn how long it needs)
     */
    public record Verdict(double share, Bytecode bytecode, @Nullable String slowest, @Nullable Double slowestMs, long timeoutMs,
            int overTimeout, int failed, @Nullable Integer recommendedTimeoutSec) {
        /** Timeout / slowest: below 1 some server misses it; null when none was ok. */
        public @Nullable Double margin() {
            return slowestMs == null || slowestMs == 0 ? null : timeoutMs / slowestMs;
        }

        public String text() {
            String head = CpuQuota.format(share) + " CPU" + (bytecode == Bytecode.AS_IS ? "" : " " + bytecode.label()) + ": ";
            if (slowest == null || slowestMs == null) { // both or neither (see verdicts())
                return head + "no server started";
            }
            String s = String.format(Locale.ROOT, "%sslowest %s %.1f s, margin %.2fx of %s s", head, slowest,
                    slowestMs / 1000, margin(), CpuQuota.format(timeoutMs / 1000.0));
            if (overTimeout > 0) {
                s += ", " + overTimeout + " over the timeout: no recommendation (probe with a longer --timeout)";
            } else {
                s += ", recommended startup_timeout_sec = " + recommendedTimeoutSec;
            }
            return failed > overTimeout ? s + ", " + (failed - overTimeout) + " failed otherwise" : s;
        }
    }

    /** True when the sweep was cancelled before every column was measured; its cells are kept. */
    public boolean partial() {
        return cancelledAt != null;
    }

    /** The columns measured, in order. */
    public List<Column> columns() {
        return runs;
    }

    /** The cell of {@code server} in {@code column}, or null when the column was not measured. */
    public @Nullable Cell cell(String server, double share, Bytecode bytecode) {
        for (Cell c : cells) {
            if (c.server().equals(server) && c.share() == share && c.bytecode() == bytecode) {
                return c;
            }
        }
        return null;
    }

    /** One verdict per measured column. */
    public List<Verdict> verdicts() {
        List<Verdict> out = new ArrayList<>();
        for (Column col : runs) {
            List<Cell> cs = cells.stream().filter(c -> c.share() == col.share() && c.bytecode() == col.bytecode()).toList();
            Cell slow = null;
            double slowMs = 0;
            double maxMs = 0;
            for (Cell c : cs) {
                Double ms = c.initializeMs();
                if (c.okRuns() == c.runs() && ms != null && (slow == null || ms > slowMs)) {
                    slow = c;
                    slowMs = ms;
                }
            }
            ProbeReport.ServerSummary slowestRun = col.report().slowest();
            Double slowestMax = slowestRun == null ? null : slowestRun.initializeMsMax(); // slowest() has one
            if (slowestMax != null) {
                maxMs = slowestMax;
            }
            int over = (int) cs.stream().filter(Cell::overTimeout).count();
            int failed = (int) cs.stream().filter(c -> c.okRuns() < c.runs()).count();
            long timeout = slow != null ? slow.timeoutMs() : cs.stream().mapToLong(Cell::timeoutMs).min().orElse(0);
            Integer rec = over > 0 || slowestRun == null ? null : ProbeReport.recommend(maxMs);
            out.add(new Verdict(col.share(), col.bytecode(), slow == null ? null : slow.server(),
                    slow == null ? null : slow.initializeMs(), timeout, over, failed, rec));
        }
        return out;
    }

    /**
     * after / before of the slowest server per share (below 1: precompiling helped), or null where either column is
     * missing or had no ok server.
     */
    public @Nullable Double ratio(double share) {
        Verdict before = null;
        Verdict after = null;
        for (Verdict v : verdicts()) {
            if (v.share() == share && v.bytecode() == Bytecode.BEFORE) {
                before = v;
            } else if (v.share() == share && v.bytecode() == Bytecode.AFTER) {
                after = v;
            }
        }
        if (before == null || after == null || before.slowestMs() == null || after.slowestMs() == null) {
            return null;
        }
        return after.slowestMs() / before.slowestMs();
    }

    // --- renderers ---

    private List<String> header() {
        List<String> h = new ArrayList<>(List.of("server"));
        runs.forEach(c -> h.add(c.label()));
        return h;
    }

    private List<List<String>> rows() {
        List<List<String>> out = new ArrayList<>();
        for (String s : servers) {
            List<String> row = new ArrayList<>(List.of(s));
            for (Column col : runs) {
                Cell c = cell(s, col.share(), col.bytecode());
                row.add(c == null ? "-" : c.text());
            }
            out.add(row);
        }
        return out;
    }

    private String legend() {
        StringBuilder b = new StringBuilder();
        b.append("cells: seconds from spawn to the answer (median of ").append(repeat).append(" run(s)); ")
                .append(OVER).append(" over the timeout");
        if (cells.stream().anyMatch(c -> !c.note().isEmpty())) {
            b.append("; ").append(NOT_PRECOMPILED).append(" environment not precompiled (see notes)");
        }
        b.append("; CPU limit: ").append(mechanism);
        return b.toString();
    }

    /** A fixed-width table for terminals, then the verdicts and notes. */
    public String text() {
        List<String> h = header();
        List<List<String>> rows = rows();
        int[] w = new int[h.size()];
        for (int i = 0; i < h.size(); i++) {
            w[i] = h.get(i).length();
            for (List<String> r : rows) {
                w[i] = Math.max(w[i], r.get(i).length());
            }
        }
        StringBuilder b = new StringBuilder();
        if (partial()) {
            b.append("PARTIAL: the sweep was cancelled in ").append(cancelledAt).append("; the columns measured are kept\n");
        }
        line(b, h, w);
        for (List<String> r : rows) {
            line(b, r, w);
        }
        b.append(legend()).append('\n').append('\n');
        for (Verdict v : verdicts()) {
            b.append(v.text()).append('\n');
        }
        for (double s : shares) {
            Double r = ratio(s);
            if (r != null) {
                b.append(String.format(Locale.ROOT, "%s CPU: after / before (slowest) = %.2f%n", CpuQuota.format(s), r));
            }
        }
        for (String n : notes) {
            b.append("note: ").append(n).append('\n');
        }
        return b.toString();
    }

    private static void line(StringBuilder b, List<String> cells, int[] w) {
        for (int i = 0; i < cells.size(); i++) {
            String c = cells.get(i);
            if (i == 0) {
                b.append(c).append(" ".repeat(w[i] - c.length()));
            } else {
                b.append("  ").append(" ".repeat(w[i] - c.length())).append(c);
            }
        }
        b.append('\n');
    }

    /** Markdown, to paste into a pull request: the matrix, the verdicts, the notes. */
    public String markdown() {
        StringBuilder b = new StringBuilder();
        if (partial()) {
            b.append("**Partial:** the sweep was cancelled in ").append(cancelledAt).append("; the columns measured are kept.\n\n");
        }
        List<String> h = header();
        b.append("| ").append(String.join(" | ", h.stream().map(SweepReport::md).toList())).append(" |\n");
        b.append("|").append(" --- |".repeat(1));
        b.append(" ---: |".repeat(h.size() - 1)).append('\n');
        for (List<String> r : rows()) {
            b.append("| ").append(String.join(" | ", r.stream().map(SweepReport::md).toList())).append(" |\n");
        }
        b.append('\n').append(md(legend())).append("\n\n");
        for (Verdict v : verdicts()) {
            b.append("- ").append(md(v.text())).append('\n');
        }
        for (String n : notes) {
            b.append("- note: ").append(md(n)).append('\n');
        }
        return b.toString();
    }

    private static String md(String s) {
        return s.replace("|", "\\|");
    }

    /** CSV (RFC 4180), one line per cell. */
    public String csv() {
        StringBuilder b = new StringBuilder("server,share,bytecode,initialize_ms,outcome,ok_runs,runs,timeout_ms,note\r\n");
        for (Cell c : cells) {
            b.append(csv(c.server())).append(',').append(CpuQuota.format(c.share())).append(',').append(c.bytecode().label())
                    .append(',').append(c.initializeMs() == null ? "" : String.format(Locale.ROOT, "%.1f", c.initializeMs()))
                    .append(',').append(csv(c.outcome())).append(',').append(c.okRuns()).append(',').append(c.runs())
                    .append(',').append(c.timeoutMs()).append(',').append(csv(c.note())).append("\r\n");
        }
        return b.toString();
    }

    private static String csv(String s) {
        return s.contains(",") || s.contains("\"") || s.contains("\n") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    /**
     * The sweep as JSON: {@code matrix} (cells {@code {server, share, bytecode, initialize_ms, outcome, …}}),
     * {@code mechanism}, {@code verdicts}, {@code ratios}, {@code partial}, {@code notes} and each column's probe
     * report under {@code runs}.
     */
    public ObjectNode toJson() {
        ObjectNode root = JSON.createObjectNode();
        root.put("kind", "sweep");
        root.put("started_at", startedAt.toString());
        root.put("mechanism", mechanism);
        ArrayNode sh = root.putArray("shares");
        shares.forEach(sh::add);
        root.put("compare_bytecode", compareBytecode);
        root.put("repeat", repeat);
        root.put("partial", partial());
        root.put("cancelled_at", cancelledAt);
        ArrayNode sv = root.putArray("servers");
        servers.forEach(sv::add);
        ArrayNode matrix = root.putArray("matrix");
        for (Cell c : cells) {
            ObjectNode n = matrix.addObject();
            n.put("server", c.server());
            n.put("share", c.share());
            n.put("bytecode", c.bytecode().label());
            if (c.initializeMs() == null) {
                n.putNull("initialize_ms");
            } else {
                n.put("initialize_ms", Math.round(c.initializeMs() * 10) / 10.0);
            }
            n.put("outcome", c.outcome());
            n.put("over_timeout", c.overTimeout());
            n.put("ok_runs", c.okRuns());
            n.put("runs", c.runs());
            n.put("timeout_ms", c.timeoutMs());
            n.put("note", c.note());
        }
        ArrayNode verdicts = root.putArray("verdicts");
        for (Verdict v : verdicts()) {
            ObjectNode n = verdicts.addObject();
            n.put("share", v.share());
            n.put("bytecode", v.bytecode().label());
            n.put("slowest", v.slowest());
            Double slowestMs = v.slowestMs();
            Double margin = v.margin(); // null too for a slowest of 0 ms (a saved sweep may say so)
            if (slowestMs == null) {
                n.putNull("slowest_ms");
            } else {
                n.put("slowest_ms", Math.round(slowestMs * 10) / 10.0);
            }
            if (margin == null) {
                n.putNull("margin");
            } else {
                n.put("margin", Math.round(margin * 100) / 100.0);
            }
            n.put("timeout_ms", v.timeoutMs());
            n.put("over_timeout", v.overTimeout());
            n.put("failed", v.failed());
            if (v.recommendedTimeoutSec() == null) {
                n.putNull("recommended_startup_timeout_sec");
            } else {
                n.put("recommended_startup_timeout_sec", v.recommendedTimeoutSec());
            }
        }
        ArrayNode ratios = root.putArray("ratios");
        for (double s : shares) {
            Double r = ratio(s);
            if (r != null) {
                ratios.addObject().put("share", s).put("after_over_before", Math.round(r * 1000) / 1000.0);
            }
        }
        ArrayNode ns = root.putArray("notes");
        notes.forEach(ns::add);
        ArrayNode rs = root.putArray("runs");
        for (Column c : runs) {
            ObjectNode n = rs.addObject();
            n.put("share", c.share());
            n.put("bytecode", c.bytecode().label());
            n.set("report", c.report().toJson());
        }
        return root;
    }
}
