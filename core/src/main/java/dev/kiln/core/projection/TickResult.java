package dev.kiln.core.projection;

import dev.kiln.core.snapshot.SnapshotStats;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What one projection tick did.
 *
 * @param reason why it ran
 * @param at when it ran (injected clock)
 * @param revision the projection's revision after the tick
 * @param changed whether the stable content changed (then state.json was written and the revision advanced)
 * @param leaves leaves projected
 * @param failures files and directories that failed this tick
 * @param stats what the snapshot build did
 * @param durationNanos wall time of the whole tick
 * @param driftPruned drift files removed because their leaf is gone
 * @param writeError why {@code observer/state.json} trails this revision ("cannot write …/state.json: No space left on
 *     device"), or {@code null}; said by every tick while it lasts. The daemon serves the revision from memory and
 *     retries the file about once a second; without a daemon the revision stays and the next tick tries again
 */
public record TickResult(WakeReason reason, Instant at, long revision, boolean changed, int leaves, int failures,
        SnapshotStats stats, long durationNanos, List<String> driftPruned, @Nullable String writeError) {

    public TickResult {
        driftPruned = List.copyOf(driftPruned);
    }

    public double durationMillis() {
        return durationNanos / 1e6;
    }
}
