package dev.kiln.core.snapshot;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.telemetry.Figures;

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

    /**
     * The one JSON rendering of these counters (state.json's {@code tick.counters}, {@code kiln project --json},
     * the API): {@code enumerated, parsed, reused, failed, pruned} and {@code build_ms}, milliseconds as a double
     * rounded to the microsecond. A fresh node each call, so callers may add to it.
     */
    public ObjectNode toJson() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("enumerated", enumerated).put("parsed", parsed).put("reused", reused).put("failed", failed)
                .put("pruned", pruned).put("build_ms", Figures.round(buildMillis(), 3));
        return o;
    }
}
