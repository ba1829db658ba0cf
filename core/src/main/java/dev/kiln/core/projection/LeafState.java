package dev.kiln.core.projection;

import dev.kiln.core.contract.LeafIds;
import java.time.Instant;
import java.util.List;

/** One leaf as projected into state.json; part of the stable content (equality decides "changed"). */
record LeafState(String leafId, String file, String declaredLeafId, LeafIds.Shape idShape, String title, String status,
        Instant deadline, boolean overdue, List<String> enclosure, Engine engine) {

    /** The projected engine: declared facts and liveness only (observed details are not stable content). */
    record Engine(long pid, String command, Instant startedAt, EngineFact.Liveness liveness) {
    }
}
