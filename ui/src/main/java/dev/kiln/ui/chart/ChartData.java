package dev.kiln.ui.chart;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one chart shows, as plain numbers: where each point ends (epoch milliseconds, oldest first) and each series'
 * value there, NaN where nothing was seen (a gap, never a 0). Answers the questions a person asks of the chart
 * without a window: the point under the pointer ({@link #nearest}), what it holds ({@link #describe}), the unbroken
 * runs a line is drawn in ({@link #runs}) and the top of the y axis over a zoomed window ({@link #max}).
 *
 * <p>Immutable.
 */
public final class ChartData {
    private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT);
    private static final DateTimeFormatter MINUTES = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT);
    private static final DateTimeFormatter FULL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);
    /** Seconds between wall-clock ticks, in 1-2-5 steps a person reads at a glance. */
    private static final long[] TICK_SECONDS = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400};

    private final long[] at;
    private final double[][] values;

    private ChartData(long[] at, double[][] values) {
        this.at = at;
        this.values = values;
    }

    /** Nothing to show. */
    public static ChartData empty(int series) {
        return new ChartData(new long[0], new double[series][0]);
    }

    /**
     * {@code values[s][i]} is series {@code s} at the point ending at {@code at[i]} (oldest first); copied.
     *
     * @throws IllegalArgumentException when a series has another length than {@code at}, or {@code at} goes back
     */
    public static ChartData of(long[] at, double[][] values) {
        for (int i = 1; i < at.length; i++) {
            if (at[i] < at[i - 1]) {
                throw new IllegalArgumentException("chart points must be oldest first, but point " + i + " is before point " + (i - 1));
            }
        }
        double[][] copy = new double[values.length][];
        for (int s = 0; s < values.length; s++) {
            if (values[s].length != at.length) {
                throw new IllegalArgumentException("series " + s + " has " + values[s].length + " values for " + at.length + " points");
            }
            copy[s] = values[s].clone();
        }
        return new ChartData(at.clone(), copy);
    }

    public int size() {
        return at.length;
    }

    public int seriesCount() {
        return values.length;
    }

    /** Where point {@code i} ends, epoch milliseconds. */
    public long at(int i) {
        return at[i];
    }

    /** Series {@code s} at point {@code i}; NaN for nothing seen. */
    public double value(int s, int i) {
        return values[s][i];
    }

    /** Series {@code s}, oldest first (a copy). */
    public double[] series(int s) {
        return values[s].clone();
    }

    /** The point nearest {@code t} among those in [{@code from}, {@code to}]; -1 when none lies there. */
    public int nearest(long t, long from, long to) {
        int best = -1;
        long bestDistance = Long.MAX_VALUE;
        for (int i = 0; i < at.length; i++) {
            if (at[i] < from || at[i] > to) {
                continue;
            }
            long d = Math.abs(at[i] - t);
            if (d < bestDistance) {
                best = i;
                bestDistance = d;
            }
        }
        return best;
    }

    /**
     * The unbroken runs of series {@code s} among the points in [{@code from}, {@code to}], each {first, last}
     * index (inclusive): a NaN ends a run, so a line is never drawn through a time nothing was seen.
     */
    public List<int[]> runs(int s, long from, long to) {
        List<int[]> out = new ArrayList<>();
        int start = -1;
        for (int i = 0; i <= at.length; i++) {
            boolean in = i < at.length && at[i] >= from && at[i] <= to && !Double.isNaN(values[s][i]);
            if (in && start < 0) {
                start = i;
            } else if (!in && start >= 0) {
                out.add(new int[] {start, i - 1});
                start = -1;
            }
        }
        return out;
    }

    /**
     * The largest value shown in [{@code from}, {@code to}] of the series {@code shown}; stacked, the largest sum
     * of them at a point. 0 when nothing is shown there.
     */
    public double max(boolean[] shown, boolean stacked, long from, long to) {
        double max = 0;
        for (int i = 0; i < at.length; i++) {
            if (at[i] < from || at[i] > to) {
                continue;
            }
            double sum = 0;
            for (int s = 0; s < values.length; s++) {
                double v = values[s][i];
                if (s < shown.length && shown[s] && !Double.isNaN(v)) {
                    sum += v;
                    max = Math.max(max, stacked ? sum : v);
                }
            }
        }
        return max;
    }

    /**
     * What point {@code i} holds, for the hover box: its time (wall clock, {@code zone}) then one line per shown
     * series, its exact value or "no data".
     */
    public String describe(int i, List<String> names, boolean[] shown, ZoneId zone) {
        StringBuilder b = new StringBuilder(FULL.format(Instant.ofEpochMilli(at[i]).atZone(zone)));
        for (int s = 0; s < values.length; s++) {
            if (s < shown.length && !shown[s]) {
                continue;
            }
            double v = values[s][i];
            b.append('\n').append(names.get(s)).append(": ").append(Double.isNaN(v) ? "no data" : exact(v));
        }
        return b.toString();
    }

    /** A value as it is, with thousands grouped and up to three decimals: "1,234", "0.125", "12.5". */
    public static String exact(double v) {
        java.text.DecimalFormat f = new java.text.DecimalFormat("#,##0.###", java.text.DecimalFormatSymbols.getInstance(Locale.ROOT));
        f.setRoundingMode(java.math.RoundingMode.HALF_UP);
        return f.format(v);
    }

    /** Seconds between wall-clock ticks over a window of {@code spanMillis}: the smallest 1-2-5 step giving at most six. */
    public static long tickSeconds(long spanMillis) {
        for (long t : TICK_SECONDS) {
            if (spanMillis / 1000.0 / t <= 6) {
                return t;
            }
        }
        return TICK_SECONDS[TICK_SECONDS.length - 1];
    }

    /** The wall-clock ticks in [{@code from}, {@code to}]: whole multiples of {@link #tickSeconds} in {@code zone}. */
    public static long[] ticks(long from, long to, ZoneId zone) {
        long step = tickSeconds(to - from) * 1000;
        long offset = zone.getRules().getOffset(Instant.ofEpochMilli(to)).getTotalSeconds() * 1000L;
        long first = Math.floorDiv(from + offset + step - 1, step) * step - offset;
        List<Long> out = new ArrayList<>();
        for (long t = first; t <= to; t += step) {
            out.add(t);
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    /** A tick's label: "14:02" when ticks are whole minutes apart, else "14:02:30". */
    public static String tickLabel(long t, long spanMillis, ZoneId zone) {
        return (tickSeconds(spanMillis) % 60 == 0 ? MINUTES : SECONDS).format(Instant.ofEpochMilli(t).atZone(zone));
    }
}
