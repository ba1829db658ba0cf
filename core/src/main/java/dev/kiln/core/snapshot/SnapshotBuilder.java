package dev.kiln.core.snapshot;

import dev.kiln.core.contract.Contract;
import dev.kiln.core.contract.ContractCodec;
import dev.kiln.core.contract.ContractReadException;
import dev.kiln.core.contract.ContractStore;
import dev.kiln.core.contract.LeafIds;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds {@link ContractSnapshot}s of one {@code tasks/} directory, backed by a parse cache keyed by stat
 * identity: a file whose identity (size, mtime, ctime, inode) is unchanged since the last build is not read
 * again; any change re-parses it. Failures are never cached. Every build keeps in the cache exactly the
 * files it enumerated, so memory follows the tree.
 *
 * <p>Concurrency: not thread-safe; one build at a time (the projector serializes its ticks).
 * {@link #current()} may be read from any thread.
 *
 * <p>Design note for the incremental step: {@link #build()} is the one full build (walk → {@link #resolve}
 * per file → {@link #publish}). A step that applies only the paths a watcher reported can reuse
 * {@link #current()} for everything else, pass the changed files through the same {@code resolve}, and must
 * produce a snapshot equal to a full build of the same tree. The projector runs such a step through
 * {@code Projector.tick(reason, builder -> builder.apply(paths))}.
 */
public final class SnapshotBuilder {
    private final Path tasksDir;
    private final long maxBytes;
    /** Relative path → the file as last parsed. Replaced whole by each build. */
    private Map<String, ContractFile> cache = new HashMap<>();
    private volatile ContractSnapshot current;

    public SnapshotBuilder(Path tasksDir) {
        this(tasksDir, ContractStore.DEFAULT_MAX_BYTES);
    }

    /** @param maxBytes contract files larger than this fail as {@code TOO_LARGE} without being read */
    public SnapshotBuilder(Path tasksDir, long maxBytes) {
        if (maxBytes < 2) {
            throw new IllegalArgumentException("the contract size limit must be at least 2 bytes, got " + maxBytes);
        }
        this.tasksDir = tasksDir.toAbsolutePath().normalize();
        this.maxBytes = maxBytes;
        this.current = new ContractSnapshot(this.tasksDir, List.of(), List.of(), SnapshotStats.empty());
    }

    public Path tasksDir() {
        return tasksDir;
    }

    /** The last snapshot built (an empty one before the first build). */
    public ContractSnapshot current() {
        return current;
    }

    /** Files the parse cache holds: after a build, exactly the parsed live files. */
    public int cacheSize() {
        return cache.size();
    }

    /** Forgets every parse, so the next build reads every file (after doubt, and for the benchmark's no-cache run). */
    public void invalidateAll() {
        cache = new HashMap<>();
    }

    /** A full build: enumerate, reuse what is unchanged, parse the rest. */
    public ContractSnapshot build() {
        long t0 = System.nanoTime();
        Build b = new Build(cache);
        TreeWalk.walk(tasksDir, b);
        return publish(b, t0);
    }

    /**
     * The floor of a build: the same enumeration and attribute reads, no cache and no parsing.
     *
     * @return contract files seen
     */
    public int statWalk() {
        int[] n = {0};
        TreeWalk.walk(tasksDir, new TreeWalk.Visitor() {
            @Override
            public void contract(String relativeFile, Path file, StatIdentity identity) {
                n[0]++;
            }

            @Override
            public void failure(SnapshotFailure failure) {
            }
        });
        return n[0];
    }

    private ContractSnapshot publish(Build b, long t0) {
        int pruned = b.old.size() - b.seenOld;
        cache = b.next;
        SnapshotStats stats = new SnapshotStats(b.enumerated, b.parsed, b.reused, b.failures.size(), pruned, System.nanoTime() - t0);
        ContractSnapshot s = new ContractSnapshot(tasksDir, b.contracts, b.failures, stats);
        current = s;
        return s;
    }

    /** Turns one enumerated file into a cached, reused or freshly parsed contract, or a failure. */
    private void resolve(Build b, String rel, Path file, StatIdentity id) {
        b.enumerated++;
        ContractFile prev = b.old.get(rel);
        if (prev != null) {
            b.seenOld++;
            if (prev.identity().equals(id)) {
                b.reused++;
                b.next.put(rel, prev);
                b.contracts.add(prev);
                return;
            }
        }
        String leaf = LeafIds.ofContractFile(rel);
        if (leaf.isEmpty()) {
            b.failures.add(new SnapshotFailure(rel, SnapshotFailure.Kind.INVALID,
                    "a contract directly in tasks/ belongs to no leaf; move it into a leaf directory"));
            return;
        }
        if (id.size() > maxBytes) {
            b.failures.add(new SnapshotFailure(rel, SnapshotFailure.Kind.TOO_LARGE, "larger than the contract size limit ("
                    + id.size() + " > " + maxBytes + " bytes); not read. Shrink the file; it is retried every tick"));
            return;
        }
        try {
            Contract c = ContractCodec.read(ContractStore.readBounded(file, maxBytes));
            ContractFile cf = new ContractFile(rel, leaf, id, c);
            b.parsed++;
            b.next.put(rel, cf);
            b.contracts.add(cf);
        } catch (ContractReadException e) {
            b.failures.add(new SnapshotFailure(rel, SnapshotFailure.Kind.valueOf(e.kind().name()),
                    e.getMessage() + "; skipped this tick and retried next tick"));
        }
    }

    /** The state of one build in progress. */
    private final class Build implements TreeWalk.Visitor {
        final Map<String, ContractFile> old;
        final Map<String, ContractFile> next;
        final List<ContractFile> contracts;
        final List<SnapshotFailure> failures = new ArrayList<>();
        int enumerated;
        int parsed;
        int reused;
        int seenOld;

        Build(Map<String, ContractFile> old) {
            this.old = old;
            this.next = new HashMap<>(Math.max(16, old.size() * 4 / 3 + 16));
            this.contracts = new ArrayList<>(old.size() + 16);
        }

        @Override
        public void contract(String relativeFile, Path file, StatIdentity identity) {
            resolve(this, relativeFile, file, identity);
        }

        @Override
        public void failure(SnapshotFailure failure) {
            failures.add(failure);
        }
    }
}
