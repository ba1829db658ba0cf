package dev.kiln.core.projection;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One tick of a daemon's projection loop, as its history records it and as {@code POST /api/project} answers (the
 * wire shape is {@code Wire.tick}; a tick read back from the wire has its duration rounded to the microsecond).
 *
 * @param seq 1-based projection number
 * @param reason why it woke
 * @param full whether it enumerated everything
 * @param at when it started
 * @param durationNanos how long it took
 * @param changedPaths paths the watcher named for it
 * @param revision revision after it (-1 if it failed)
 * @param changed whether the revision advanced
 * @param counters its parse counters (enumerated, parsed, reused, failed, pruned, build_us, leaves)
 * @param error why it failed, or empty
 */
public record TickRecord(long seq, WakeReason reason, boolean full, Instant at, long durationNanos, int changedPaths,
        long revision, boolean changed, Map<String, Long> counters, String error) {
    public TickRecord {
        counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters)); // in the order the tick named them
    }

    public double durationMillis() {
        return durationNanos / 1e6;
    }

    /** A counter of {@link #counters()}, 0 when absent. */
    public long counter(String name) {
        return counters.getOrDefault(name, 0L);
    }
}
