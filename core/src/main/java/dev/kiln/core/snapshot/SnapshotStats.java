package dev.kiln.core.snapshot;

/**
 * What one build did.
 *
 * @param enumerated contract files found by the walk
 * @param parsed files read and parsed
 * @param reused files whose stat identity was unchanged, so the cached parse was reused
 * @param failed files and directories that failed (see {@link ContractSnapshot#failures()})
 * @param pruned cache entries dropped because their file is gone
 * @param buildNanos wall time of the build
 */
public record SnapshotStats(int enumerated, int parsed, int reused, int failed, int pruned, long buildNanos) {

    public static SnapshotStats empty() {
        return new SnapshotStats(0, 0, 0, 0, 0, 0);
    }

    public double buildMillis() {
        return buildNanos / 1e6;
    }
}
