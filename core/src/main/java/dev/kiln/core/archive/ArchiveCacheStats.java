package dev.kiln.core.archive;

import java.time.Duration;

/**
 * Counters of an {@link ArchiveCache} at one moment: an immutable value. {@link #minus} gives the activity
 * between two readings (the console shows per-tick deltas); the gauges ({@code bytesHeld}, {@code entriesHeld},
 * {@code lastBuildNanos}) keep this reading's value.
 *
 * @param hits requests served from the cache (validated, or trusted under {@code SNAPSHOT})
 * @param misses requests that found no usable archive: absent, changed, or joining another thread's build
 * @param builds archives built (each miss that built; joiners do not)
 * @param changesFound validations that found a change in the member set (each led to a rebuild)
 * @param evictions archives dropped to stay under the byte bound
 * @param buildFailures builds that failed (failures are never cached)
 * @param bytesHeld bytes of the archives held now
 * @param entriesHeld archives held now
 * @param totalBuildNanos time spent building, all builds
 * @param lastBuildNanos time of the last build, 0 before the first
 */
public record ArchiveCacheStats(long hits, long misses, long builds, long changesFound, long evictions, long buildFailures,
        long bytesHeld, long entriesHeld, long totalBuildNanos, long lastBuildNanos) {

    private static final ArchiveCacheStats EMPTY = new ArchiveCacheStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    public ArchiveCacheStats {
        if (hits < 0 || misses < 0 || builds < 0 || changesFound < 0 || evictions < 0 || buildFailures < 0
                || bytesHeld < 0 || entriesHeld < 0 || totalBuildNanos < 0 || lastBuildNanos < 0) {
            throw new IllegalArgumentException("archive cache counters must not be negative");
        }
    }

    /** All zero. */
    public static ArchiveCacheStats empty() {
        return EMPTY;
    }

    /** Requests: hits + misses. */
    public long requests() {
        return hits + misses;
    }

    /** Hits per request, 1.0 when there were none (Caffeine's convention). */
    public double hitRate() {
        long r = requests();
        return r == 0 ? 1.0 : (double) hits / r;
    }

    /** Mean build time, zero before the first build. */
    public Duration averageBuildTime() {
        return builds == 0 ? Duration.ZERO : Duration.ofNanos(totalBuildNanos / builds);
    }

    /** Total build time. */
    public Duration totalBuildTime() {
        return Duration.ofNanos(totalBuildNanos);
    }

    /** Last build time. */
    public Duration lastBuildTime() {
        return Duration.ofNanos(lastBuildNanos);
    }

    /**
     * Activity since {@code earlier}: counters subtracted (never below zero, as after a reset), gauges kept
     * from this reading.
     */
    public ArchiveCacheStats minus(ArchiveCacheStats earlier) {
        return new ArchiveCacheStats(
                Math.max(0, hits - earlier.hits), Math.max(0, misses - earlier.misses), Math.max(0, builds - earlier.builds),
                Math.max(0, changesFound - earlier.changesFound), Math.max(0, evictions - earlier.evictions),
                Math.max(0, buildFailures - earlier.buildFailures), bytesHeld, entriesHeld,
                Math.max(0, totalBuildNanos - earlier.totalBuildNanos), lastBuildNanos);
    }
}
