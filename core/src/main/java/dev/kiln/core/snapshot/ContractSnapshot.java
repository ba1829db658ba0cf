package dev.kiln.core.snapshot;

import java.nio.file.Path;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One immutable view of a workspace's contracts, made by one build: the contracts in enumeration order
 * (sorted by path, depth first), the failures with their reasons, and what the build did. Every reader of a
 * tick reads the same snapshot, so they agree with each other.
 *
 * <p>Concurrency: immutable and safe to share; the by-leaf-id index is built lazily, and a racing build only
 * computes the same map twice ({@code byLeafId} is volatile, the map unmodifiable).
 */
public final class ContractSnapshot {
    private final Path tasksDir;
    private final List<ContractFile> contracts;
    private final List<SnapshotFailure> failures;
    private final SnapshotStats stats;
    private volatile @org.jspecify.annotations.Nullable Map<String, ContractFile> byLeafId;
    private static final java.util.concurrent.atomic.AtomicLong SEQ = new java.util.concurrent.atomic.AtomicLong();
    private final long seq = SEQ.incrementAndGet();
    /** The snapshot this one was made from by replacing contracts in place, or 0. */
    private final long parentSeq;
    /** Positions replaced relative to the parent (sorted), or null. */
    private final int @org.jspecify.annotations.Nullable [] replaced;

    ContractSnapshot(Path tasksDir, List<ContractFile> contracts, List<SnapshotFailure> failures, SnapshotStats stats) {
        this(tasksDir, contracts, failures, stats, null, null);
    }

    ContractSnapshot(Path tasksDir, List<ContractFile> contracts, List<SnapshotFailure> failures, SnapshotStats stats,
            @org.jspecify.annotations.Nullable ContractSnapshot parent, int @org.jspecify.annotations.Nullable [] replaced) {
        this.tasksDir = tasksDir;
        this.contracts = Collections.unmodifiableList(contracts);
        this.failures = Collections.unmodifiableList(failures);
        this.stats = stats;
        this.parentSeq = parent == null || replaced == null ? 0 : parent.seq;
        this.replaced = parent == null ? null : replaced;
    }

    /**
     * A snapshot made elsewhere: a remote engine's view of a daemon's published state (its contracts as the state
     * document carries them). {@code contracts} in enumeration order.
     */
    public static ContractSnapshot of(Path tasksDir, List<ContractFile> contracts, List<SnapshotFailure> failures,
            SnapshotStats stats) {
        return new ContractSnapshot(tasksDir, List.copyOf(contracts), List.copyOf(failures), stats);
    }

    /**
     * When this snapshot was made from {@code previous} by replacing contracts in place (an incremental step that saw
     * only edits: the same files in the same order), the positions that may hold another instance, sorted; every
     * other position holds the very instance of {@code previous}. Otherwise null: compare everything. Lets a
     * consumer of consecutive snapshots do work in proportion to the change, not to the tree.
     */
    public int @org.jspecify.annotations.Nullable [] replacedSince(ContractSnapshot previous) {
        return replaced != null && previous.seq == parentSeq ? replaced.clone() : null;
    }

    /** The {@code tasks/} directory this snapshot is of. */
    public Path tasksDir() {
        return tasksDir;
    }

    /** Parsed contracts in enumeration order. */
    public List<ContractFile> contracts() {
        return contracts;
    }

    /** Files and directories that could not be used this build, in enumeration order. */
    public List<SnapshotFailure> failures() {
        return failures;
    }

    public SnapshotStats stats() {
        return stats;
    }

    /** The parsed contracts by canonical leaf id (computed on first use). */
    public Map<String, ContractFile> byLeafId() {
        Map<String, ContractFile> m = byLeafId;
        if (m == null) {
            Map<String, ContractFile> built = new LinkedHashMap<>(contracts.size() * 2);
            for (ContractFile c : contracts) {
                built.put(c.leafId(), c);
            }
            byLeafId = m = Collections.unmodifiableMap(built);
        }
        return m;
    }

    /**
     * Every leaf that exists on disk in this snapshot: the parsed ones and those whose contract failed to
     * parse (a malformed contract does not make its leaf disappear).
     */
    public Set<String> existingLeafIds() {
        Set<String> s = new HashSet<>(byLeafId().keySet());
        for (SnapshotFailure f : failures) {
            if (!f.isDirectory()) {
                int slash = f.path().lastIndexOf('/');
                s.add(slash < 0 ? "" : f.path().substring(0, slash));
            }
        }
        return s;
    }

    @Override
    public String toString() {
        return "ContractSnapshot[" + contracts.size() + " contracts, " + failures.size() + " failures, " + stats + "]";
    }
}
