package dev.kiln.ui.projection;

import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.ui.chart.SampleHistory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The ticks behind the Projection page's charts, folded into {@link ChartWindow#BUCKETS} buckets over the chosen
 * window. Keeps only what the longest window shows (and at most {@link #MAX_SAMPLES}), so an hour of ticks, or a
 * burst of them, holds bounded memory.
 *
 * <p>Concurrency: FX thread only, like the view model that feeds it.
 */
public final class ChartSeries {
    /** Samples kept at most: an hour at 10 ticks a second. */
    public static final int MAX_SAMPLES = 36_000;
    private static final Duration KEEP = ChartWindow.ONE_HOUR.span();

    /** What a chart needs of one tick: a few numbers, not the tick's lists. */
    private record Sample(Instant at, double millis, int parsed, int reused, WakeReason reason, boolean changed) {
    }

    /**
     * One bucket of the window.
     *
     * @param secondsAgo where the bucket ends, in seconds before now (0 is the newest; the x axis)
     * @param ticks ticks in the bucket
     * @param maxMillis the slowest tick's duration, 0 without ticks
     * @param parsed contracts parsed, summed over its ticks
     * @param reused contracts reused from the parse cache, summed
     * @param reasons ticks per wake reason
     * @param revisions ticks that advanced the revision
     */
    public record Bucket(double secondsAgo, int ticks, double maxMillis, int parsed, int reused, Map<WakeReason, Integer> reasons,
            int revisions) {
        public Bucket {
            reasons = Collections.unmodifiableMap(new EnumMap<>(reasons.isEmpty() ? new EnumMap<>(WakeReason.class) : reasons));
        }

        public int reason(WakeReason r) {
            return reasons.getOrDefault(r, 0);
        }
    }

    private final SampleHistory<Sample> samples = new SampleHistory<>(KEEP, MAX_SAMPLES);

    /** Adds a finished tick and drops what no window shows any more. */
    public void add(TickResult r) {
        samples.add(r.at(), new Sample(r.at(), r.durationMillis(), r.stats().parsed(), r.stats().reused(), r.reason(), r.changed()));
    }

    /** Since when ticks were watched for (see {@link SampleHistory#observedFrom}); null before. */
    public Instant observedFrom() {
        return samples.observedFrom();
    }

    /** Ticks were watched for from {@code at} on. */
    public void observeFrom(Instant at) {
        samples.observeFrom(at);
    }

    /** Samples held (for the memory bound). */
    public int size() {
        return samples.size();
    }

    /**
     * The window ending at {@code now} as {@link ChartWindow#BUCKETS} buckets, oldest first; a tick exactly a
     * bucket's width old falls in the older bucket, a tick after {@code now} (clock skew) in the newest.
     */
    public List<Bucket> buckets(ChartWindow window, Instant now) {
        int n = ChartWindow.BUCKETS;
        List<List<Sample>> in = samples.buckets(window.span(), n, now);
        List<Bucket> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int ticks = 0;
            double max = 0;
            int parsed = 0;
            int reused = 0;
            int revisions = 0;
            Map<WakeReason, Integer> reasons = new EnumMap<>(WakeReason.class);
            for (Sample s : in.get(i)) {
                ticks++;
                max = Math.max(max, s.millis());
                parsed += s.parsed();
                reused += s.reused();
                revisions += s.changed() ? 1 : 0;
                reasons.merge(s.reason(), 1, Integer::sum);
            }
            out.add(new Bucket(SampleHistory.secondsAgo(window.span(), n, i), ticks, max, parsed, reused, reasons, revisions));
        }
        return out;
    }
}
