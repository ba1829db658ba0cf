package dev.kiln.core.projection;

import dev.kiln.core.contract.LeafIds;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One leaf as projected into state.json; part of the stable content (equality decides "changed"). What the contract
 * does not declare (its leaf id, title, status, deadline, engine) is null, and null in the document.
 */
record LeafState(String leafId, String file, @Nullable String declaredLeafId, LeafIds.Shape idShape, @Nullable String title,
        @Nullable String status, @Nullable Instant deadline, boolean overdue, List<String> enclosure, @Nullable Engine engine) {

    /** The projected engine: declared facts and liveness only (observed details are not stable content). */
    record Engine(long pid, @Nullable String command, @Nullable Instant startedAt, EngineFact.Liveness liveness) {

    }
}
