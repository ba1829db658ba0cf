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
 * order. Immutable.
 */
final class Enclosures {
    private final Map<String, List<String>> byLeaf;

    private Enclosures(Map<String, List<String>> byLeaf) {
        this.byLeaf = Collections.unmodifiableMap(byLeaf);
    }

    /** Reads a shared snapshot. */
    public static Enclosures of(ContractSnapshot snapshot) {
        Map<String, List<String>> m = new LinkedHashMap<>(snapshot.contracts().size() * 4 / 3 + 16);
        for (ContractFile c : snapshot.contracts()) {
            m.put(c.leafId(), c.contract().enclosure());
        }
        return new Enclosures(m);
    }

    /** Standalone: builds its own snapshot of {@code tasksDir}; the same answer as {@link #of} on a shared one. */
    public static Enclosures read(Path tasksDir) {
        return of(new SnapshotBuilder(tasksDir).build());
    }

    /** Leaf id → declared paths, in enumeration order. */
    public Map<String, List<String>> byLeaf() {
        return byLeaf;
    }

    /** The paths {@code leafId} declares, or none for an unknown leaf. */
    public List<String> pathsOf(String leafId) {
        return byLeaf.getOrDefault(leafId, List.of());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Enclosures e && byLeaf.equals(e.byLeaf) && List.copyOf(byLeaf.keySet()).equals(List.copyOf(e.byLeaf.keySet()));
    }

    @Override
    public int hashCode() {
        return byLeaf.hashCode();
    }

    @Override
    public String toString() {
        return "Enclosures" + byLeaf;
    }
}
