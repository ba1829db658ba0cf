package dev.kiln.core.projection;

import dev.kiln.core.snapshot.ContractFile;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.snapshot.SnapshotBuilder;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The enclosures reader: which paths each leaf declares it may touch, by canonical leaf id, in enumeration
 * order.
 *
 * @param byLeaf leaf id → declared paths
 */
public record Enclosures(Map<String, List<String>> byLeaf) {

    public Enclosures {
        byLeaf = Collections.unmodifiableMap(new LinkedHashMap<>(byLeaf));
    }

    /** Reads a shared snapshot. */
    public static Enclosures of(ContractSnapshot snapshot) {
        Map<String, List<String>> m = new LinkedHashMap<>(snapshot.contracts().size() * 2);
        for (ContractFile c : snapshot.contracts()) {
            m.put(c.leafId(), c.contract().enclosure());
        }
        return new Enclosures(m);
    }

    /** Standalone: builds its own snapshot of {@code tasksDir}; the same answer as {@link #of} on a shared one. */
    public static Enclosures read(Path tasksDir) {
        return of(new SnapshotBuilder(tasksDir).build());
    }

    /** The paths {@code leafId} declares, or none for an unknown leaf. */
    public List<String> pathsOf(String leafId) {
        return byLeaf.getOrDefault(leafId, List.of());
    }
}
