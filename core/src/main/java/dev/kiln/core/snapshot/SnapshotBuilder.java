package dev.kiln.core.snapshot;

import dev.kiln.core.contract.Contract;
import dev.kiln.core.contract.ContractCodec;
import dev.kiln.core.contract.ContractReadException;
import dev.kiln.core.contract.ContractStore;
import dev.kiln.core.contract.LeafIds;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

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
    /**
     * The current snapshot's entries (contracts and failures) by relative path, in enumeration order; what the
     * incremental step edits. Built from the snapshot on the first {@link #apply} after a full build.
     */
    private @Nullable TreeMap<String, Object> index;

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
        index = null;
    }

    /**
     * The incremental step: re-enumerates only {@code changed} (absolute paths a watcher reported — files, and
     * directories that were created, deleted, moved or modified) and reuses the rest of {@link #current()}. A
     * changed contract file is re-stat'ed (and re-parsed if its identity moved); a changed directory is re-listed
     * with everything below it (unchanged files still come from the stat-keyed cache); a path that is gone takes
     * its entries with it. The result equals what {@link #build()} would give for the same tree, provided
     * {@code changed} names every path that changed since the last snapshot; {@code tasks/} itself changing, or a
     * failure on {@code tasks/}, falls back to a full build. Paths outside {@code tasks/} are ignored.
     *
     * <p>The stats count only what this step enumerated ({@code enumerated}, {@code parsed}, {@code reused});
     * {@code failed} is the snapshot's total.
     */
    public ContractSnapshot apply(Collection<Path> changed) {
        long t0 = System.nanoTime();
        TreeMap<String, Object> index = this.index != null ? this.index : indexOf(current);
        this.index = index;
        List<String> rels = new ArrayList<>(changed.size());
        for (Path p : changed) {
            Path abs = p.toAbsolutePath().normalize();
            if (!abs.startsWith(tasksDir)) {
                continue;
            }
            if (abs.equals(tasksDir) || index.containsKey(".")) {
                return build();
            }
            rels.add(tasksDir.relativize(abs).toString().replace('\\', '/'));
        }
        rels.sort(ENUMERATION_ORDER);
        Map<String, ContractFile> removed = new HashMap<>();
        Build b = new Build(removed, cache);
        int[] removedEntries = {0};
        String lastRegion = null;
        for (String rel : rels) {
            if (lastRegion != null && (rel.equals(lastRegion) || rel.startsWith(lastRegion + "/"))) {
                continue; // inside a region already re-enumerated
            }
            if (belowFailedDirectory(index, rel)) {
                continue; // a full walk does not get below it either; its own failure stays
            }
            lastRegion = rel;
            removedEntries[0] += removeRegion(index, rel, removed);
            TreeWalk.walkEntry(tasksDir, rel, b);
        }
        for (ContractFile c : b.contracts) {
            index.put(c.file(), c);
        }
        for (SnapshotFailure f : b.failures) {
            index.put(f.path(), f);
        }
        List<ContractFile> contracts = null;
        List<SnapshotFailure> failures = List.of(); // set below with the contracts
        int[] replaced = null;
        if (b.failures.isEmpty() && removedEntries[0] == removed.size() && sameFiles(b.contracts, removed)) {
            // the common case, edits only: the same files in the same order, so the last list with the edited
            // contracts swapped in, rather than a walk of the whole index
            contracts = new ArrayList<>(current.contracts());
            failures = new ArrayList<>(current.failures()); // small; a copy keeps wrappers from nesting
            replaced = new int[b.contracts.size()];
            int k = 0;
            for (ContractFile c : b.contracts) {
                int at = Collections.binarySearch(contracts, c, BY_FILE);
                if (at < 0) {
                    contracts = null; // not where the order says: take the long way
                    replaced = null;
                    break;
                }
                contracts.set(at, c);
                replaced[k++] = at;
            }
            if (replaced != null) {
                Arrays.sort(replaced);
            }
        }
        if (contracts == null) {
            contracts = new ArrayList<>(index.size());
            failures = new ArrayList<>();
            for (Object o : index.values()) {
                if (o instanceof ContractFile c) {
                    contracts.add(c);
                } else {
                    failures.add((SnapshotFailure) o);
                }
            }
        }
        SnapshotStats stats = new SnapshotStats(b.enumerated, b.parsed, b.reused, failures.size(),
                removed.size() - b.seenOld, System.nanoTime() - t0);
        ContractSnapshot s = new ContractSnapshot(tasksDir, contracts, failures, stats, current, replaced);
        current = s;
        return s;
    }

    /**
     * The order of a full walk: depth first, entries sorted by name — i.e. relative paths compared segment by
     * segment, so a directory's path sorts right before everything below it. {@code .} (tasks/ itself) comes first.
     */
    static final Comparator<String> ENUMERATION_ORDER = (a, b) -> {
        if (a.equals(b)) {
            return 0;
        }
        if (a.equals(".")) {
            return -1;
        }
        if (b.equals(".")) {
            return 1;
        }
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                if (x == '/') {
                    return -1; // a's segment ended first: a shorter name sorts first
                }
                if (y == '/') {
                    return 1;
                }
                return Character.compare(x, y);
            }
        }
        return Integer.compare(a.length(), b.length());
    };

    private static TreeMap<String, Object> indexOf(ContractSnapshot s) {
        TreeMap<String, Object> m = new TreeMap<>(ENUMERATION_ORDER);
        for (ContractFile c : s.contracts()) {
            m.put(c.file(), c);
        }
        for (SnapshotFailure f : s.failures()) {
            m.put(f.path(), f);
        }
        return m;
    }

    private static boolean belowFailedDirectory(TreeMap<String, Object> index, String rel) {
        for (int i = rel.indexOf('/'); i > 0; i = rel.indexOf('/', i + 1)) {
            if (index.get(rel.substring(0, i)) instanceof SnapshotFailure f && f.isDirectory()) {
                return true;
            }
        }
        return false;
    }

    private static final Comparator<ContractFile> BY_FILE = (a, b) -> ENUMERATION_ORDER.compare(a.file(), b.file());

    /** Whether the re-enumerated contracts are exactly the files that were removed (content may differ). */
    private static boolean sameFiles(List<ContractFile> found, Map<String, ContractFile> removed) {
        if (found.size() != removed.size()) {
            return false;
        }
        for (ContractFile c : found) {
            if (!removed.containsKey(c.file())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Drops {@code rel} and everything below it from the index, and their parses from the cache into {@code removed}.
     *
     * @return index entries dropped (contracts and failures)
     */
    private int removeRegion(TreeMap<String, Object> index, String rel, Map<String, ContractFile> removed) {
        int dropped = 0;
        String below = rel + "/";
        for (Iterator<Map.Entry<String, Object>> it = index.tailMap(rel, true).entrySet().iterator(); it.hasNext();) {
            Map.Entry<String, Object> e = it.next();
            String key = e.getKey();
            Object value = e.getValue(); // read before remove(): TreeMap may recycle the removed node for its successor
            if (!key.equals(rel) && !key.startsWith(below)) {
                break;
            }
            it.remove();
            dropped++;
            if (value instanceof ContractFile c) {
                cache.remove(c.file());
                removed.put(c.file(), c);
            }
        }
        return dropped;
    }

    /** A full build: enumerate, reuse what is unchanged, parse the rest. */
    public ContractSnapshot build() {
        long t0 = System.nanoTime();
        Build b = new Build(cache, null);
        TreeWalk.walk(tasksDir, b);
        index = null;
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
        // No size check from the walk's (symlink-following) stat here: readBounded refuses a symlink before it
        // says anything about the file behind it, and checks the size itself without reading.
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

        /** @param next where resolved parses go; null for a fresh map (a full build replaces the cache whole) */
        Build(Map<String, ContractFile> old, @Nullable Map<String, ContractFile> next) {
            this.old = old;
            this.next = next != null ? next : new HashMap<>(Math.max(16, old.size() * 4 / 3 + 16));
            this.contracts = new ArrayList<>(next != null ? 16 : old.size() + 16);
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
