package dev.kiln.ui.chart;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Timestamped samples behind a live chart, kept for {@code keep} and at most {@code maxSamples}, so an hour of
 * them, or a burst, holds bounded memory; read back as a fixed number of buckets over a window.
 *
 * <p>Concurrency: one thread (the FX thread, like the view models that feed it).
 *
 * @param <S> what one sample carries: a few numbers, not the event it came from
 */
public final class SampleHistory<S> {
    private record Timed<S>(Instant at, S sample) {
    }

    private final Duration keep;
    private final int maxSamples;
    private final ArrayDeque<Timed<S>> samples = new ArrayDeque<>();
    private Instant observedFrom;

    public SampleHistory(Duration keep, int maxSamples) {
        if (keep.isNegative() || keep.isZero()) {
            throw new IllegalArgumentException("a history must keep samples for a positive time, got " + keep);
        }
        if (maxSamples < 1) {
            throw new IllegalArgumentException("a history must keep at least one sample, got " + maxSamples);
        }
        this.keep = keep;
        this.maxSamples = maxSamples;
    }

    /** Adds a sample taken at {@code at} (in time order) and drops what is older than {@code keep} before it. */
    public void add(Instant at, S sample) {
        if (observedFrom == null) {
            observedFrom = at;
        }
        samples.addLast(new Timed<>(at, sample));
        Instant oldest = at.minus(keep);
        while (samples.size() > maxSamples || samples.peekFirst().at().isBefore(oldest)) {
            samples.removeFirst();
        }
    }

    /**
     * Since when samples were watched for: set by {@link #observeFrom}, else the first sample's time; null before
     * either. A chart draws the time before it as a gap: nothing was seen there, which is not 0.
     */
    public Instant observedFrom() {
        return observedFrom;
    }

    /** Samples were watched for from {@code at} on (the console opened, a page started listening). */
    public void observeFrom(Instant at) {
        if (observedFrom == null || at.isBefore(observedFrom)) {
            observedFrom = at;
        }
    }

    /** Samples held (for the memory bound). */
    public int size() {
        return samples.size();
    }

    /** The newest sample, or {@code null}. */
    public S latest() {
        Timed<S> t = samples.peekLast();
        return t == null ? null : t.sample();
    }

    /**
     * The {@code span} ending at {@code now} as {@code n} buckets, oldest first, each with its samples in time order.
     * A sample exactly a bucket's width old falls in the older bucket; one after {@code now} (clock skew) in the
     * newest; one at or before the window's start in none.
     */
    public List<List<S>> buckets(Duration span, int n, Instant now) {
        long width = span.toNanos() / n;
        List<List<S>> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new ArrayList<>(2));
        }
        Instant start = now.minus(span);
        for (Iterator<Timed<S>> it = samples.descendingIterator(); it.hasNext(); ) {
            Timed<S> s = it.next();
            if (!s.at().isAfter(start)) {
                break; // older than the window; samples are in time order
            }
            long age = Math.max(0, Duration.between(s.at(), now).toNanos());
            int i = n - 1 - (int) Math.min(n - 1, age / width);
            out.get(i).add(0, s.sample());
        }
        return out;
    }

    /** Where bucket {@code i} of {@code n} over {@code span} ends, in seconds before now (the x axis). */
    public static double secondsAgo(Duration span, int n, int i) {
        return (n - 1 - i) * (span.toNanos() / n) / 1e9;
    }
}
