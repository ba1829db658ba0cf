package dev.kiln.ui.chart;

import java.util.Optional;

/**
 * A zoomed chart's window, in epoch milliseconds: what a drag across the plot selected. It stays on those times
 * while the live chart moves on, until reset.
 *
 * @param from the window's start
 * @param to its end, after {@code from}
 */
public record ChartZoom(long from, long to) {
    /** A zoom window is at least a second wide: narrower, a bucketed chart has nothing left to show. */
    public static final long MIN_MILLIS = 1000;

    public ChartZoom {
        if (to - from < MIN_MILLIS) {
            throw new IllegalArgumentException("a zoom window spans at least " + MIN_MILLIS + " ms, not " + (to - from));
        }
    }

    /** The window a drag from {@code a} to {@code b} (either way round) selects; empty when it is too narrow. */
    public static Optional<ChartZoom> dragged(long a, long b) {
        long from = Math.min(a, b);
        long to = Math.max(a, b);
        return to - from < MIN_MILLIS ? Optional.empty() : Optional.of(new ChartZoom(from, to));
    }

    public long span() {
        return to - from;
    }
}
