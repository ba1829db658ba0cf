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

    /** The counters by their JSON names, in a fixed order (for logs, metrics and the API). */
    public java.util.Map<String, Long> asMap() {
        java.util.Map<String, Long> m = new java.util.LinkedHashMap<>();
        m.put("enumerated", (long) enumerated);
        m.put("parsed", (long) parsed);
        m.put("reused", (long) reused);
        m.put("failed", (long) failed);
        m.put("pruned", (long) pruned);
        m.put("build_nanos", buildNanos);
        return java.util.Collections.unmodifiableMap(m);
    }
}
