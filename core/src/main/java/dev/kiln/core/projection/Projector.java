package dev.kiln.core.projection;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.contract.Contract;
import dev.kiln.core.contract.ContractStore;
import dev.kiln.core.snapshot.ContractFile;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.snapshot.SnapshotBuilder;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.telemetry.Ticker;
import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs projection ticks over one workspace. One tick: build one {@link ContractSnapshot} (stat-keyed parse
 * cache) → project each leaf from it (its enclosure, its engine's liveness as {@link EngineFacts} reads it,
 * whether it is overdue) and prune drift ({@link DriftPruning}) → write {@code observer/state.json} atomically
 * if, and only if, its stable content (leaves, failures, meta) changed, advancing the revision → publish
 * {@link TickFinished}. Readers see the new document when the tick returns; its fsync follows on a background
 * thread ({@link #flush} waits for it). With {@link Builder#writeBehind} (the daemon) a large document is served from
 * memory ({@link #parts()}) when the tick returns and written behind it, coalesced.
 *
 * <p>Work follows change: a leaf whose {@link ContractFile} is the very instance of the last tick (the snapshot
 * keeps it while the file is unchanged) keeps its last projection, and only its time-derived facts (overdue,
 * engine liveness) are recomputed; an unchanged leaf keeps its rendered JSON too, and chunks of unchanged leaves
 * are shared with the last document. When the snapshot names the positions it replaced
 * ({@link ContractSnapshot#replacedSince}), only those are visited, by the projection and by the renderer.
 *
 * <p>Time-only fields ({@code generated_at}, the tick's counters) never advance the revision by themselves;
 * time-derived facts (overdue, engine liveness) do when they flip. The revision continues from an existing
 * state.json, so it only grows across restarts, and a restart over an unchanged tree writes nothing.
 *
 * <p>Concurrency: {@link #tick} and {@link #meta} are serialized on this object (one tick at a time, whatever
 * thread drives it: the watch loop, a manual request, the CLI); the accessors may be read from any thread and see
 * the last completed tick through volatile fields. The state file's fsync runs on its own background thread.
 */
public final class Projector {
    private static final Logger LOG = LoggerFactory.getLogger(Projector.class);

    private final WorkspaceLayout layout;
    private final Clock clock;
    private final Ticker ticker;
    private final EventSink events;
    private final boolean parseCache;
    private final SnapshotBuilder snapshots;
    private final @Nullable Supplier<? extends JsonNode> runtimeMeta;
    private final StateFile stateFile;
    private final boolean readOnly;

    // Written only inside tick (synchronized); the volatile ones are also read without the lock by the accessors.
    private volatile long revision;
    // guarded by this (the rest of this block)
    private StateDocument.@Nullable Stable lastStable;
    private boolean loadedPrevious;
    private JsonNode meta = StateDocument.MAPPER.createObjectNode();
    private volatile @Nullable TickResult lastTick;
    private volatile @Nullable DocumentParts parts;
    private final StateDocument.LeafJsonCache leafJson = new StateDocument.LeafJsonCache();
    /** The last tick's contracts and their projections, position for position: what an unchanged file reuses. */
    private List<ContractFile> lastFiles = List.of();
    private List<LeafState> lastLeaves = List.of();
    /** The latest deadline among the last projection's overdue leaves, the earliest among its pending ones. */
    private @Nullable Instant maxOverdueDeadline;
    private @Nullable Instant minPendingDeadline;
    /** The snapshot {@link #lastFiles} came from: consecutive snapshots say which positions they replaced. */
    private @Nullable ContractSnapshot lastSnapshot;
    /**
     * Positions whose leaf may be another instance than in the last render, accumulated over the ticks since; null
     * when unknown (a full pass, a leaf added or removed): then the renderer compares every position.
     */
    private @Nullable BitSet sinceRender;
    /** Positions in {@link #lastLeaves} of leaves that declare an engine: liveness is looked up every tick. */
    private final BitSet engines = new BitSet();

    private Projector(Builder b) {
        this.layout = b.layout;
        this.clock = b.clock;
        this.ticker = b.ticker;
        this.events = b.events;
        this.parseCache = b.parseCache;
        this.snapshots = new SnapshotBuilder(layout.tasksDir(), b.maxContractBytes);
        this.runtimeMeta = b.runtimeMeta;
        this.stateFile = b.writeBehindAbove < 0 ? new StateFile(layout.stateFile())
                : StateFile.writtenBehind(layout.stateFile(), b.writeBehindAbove, b.writeSpacing);
        this.readOnly = b.readOnly;
    }

    /** A projector of {@code layout}'s workspace, with the system clock and no events until configured. */
    public static Builder builder(WorkspaceLayout layout) {
        return new Builder(layout);
    }

    /**
     * Runs one tick over a full build. Never throws for bad input: failures are in the result and the document; the
     * one exception is a workspace root that is gone ({@link WorkspaceException}), see {@link #rootGone}.
     */
    public TickResult tick(WakeReason reason) {
        return tick(reason, SnapshotBuilder::build);
    }

    /**
     * Runs one incremental tick: only {@code changedContracts} (paths under the tasks directory that were created,
     * changed or deleted) are looked at again; it gives what a full build would. The watcher's step.
     */
    public TickResult tick(WakeReason reason, Collection<Path> changedContracts) {
        Objects.requireNonNull(changedContracts, "changedContracts");
        return tick(reason, b -> b.apply(changedContracts));
    }

    /** Runs one tick whose snapshot comes from {@code step} applied to this projector's builder. */
    private synchronized TickResult tick(WakeReason reason, Function<SnapshotBuilder, ContractSnapshot> step) {
        Objects.requireNonNull(reason, "reason");
        if (!Files.isDirectory(layout.root())) {
            throw rootGone(layout.root());
        }
        long t0 = ticker.read();
        Instant now = clock.instant();
        if (!parseCache) {
            snapshots.invalidateAll();
        }
        ContractSnapshot snapshot = Objects.requireNonNull(step.apply(snapshots), "the snapshot step returned null");
        if (readOnly) {
            return followTick(reason, now, snapshot, t0);
        }
        DriftPruning drift = DriftPruning.prune(snapshot, layout.driftDir());
        drift.problems().forEach(p -> LOG.warn("Drift pruning in {}: {}", layout.driftDir(), p));

        StateDocument.Stable stable = new StateDocument.Stable(project(snapshot, now), snapshot.failures(), meta);
        boolean changed = !stable.equals(lastStable) && !sameAsPrevious(stable, now, snapshot, t0, drift, reason);
        long nextRevision = changed ? revision + 1 : revision;
        boolean advanced = false;
        TickResult result = result(reason, now, nextRevision, changed, snapshot, t0, drift, null);
        if (changed) {
            leafJson.hint(sinceRender);
            StateDocument.Rendered r = StateDocument.render(layout.root(), nextRevision, now, stable, result,
                    runtimeMeta == null ? null : runtimeMeta.get(), leafJson);
            sinceRender = new BitSet();
            try {
                // in place, or (the daemon's mode: written behind, or retried behind after a failure) served from memory
                stateFile.write(r.segments());
                revision = nextRevision;
                lastStable = stable;
                parts = new DocumentParts(nextRevision, r.segments(), r.leafIds(), r.leafJson(), r.failures(), r.meta());
                advanced = true;
            } catch (IOException e) {
                // a plain state file (no daemon): the revision stays, lastStable too, so the next tick tries again;
                // the state file said why, once
            }
        } else {
            lastStable = stable;
        }
        String writeError = stateFile.failure(); // while it lasts, every tick says the file trails the projection
        result = result(reason, now, revision, advanced, snapshot, t0, drift, writeError);
        lastTick = result;
        events.publish(new TickFinished(now, result));
        return result;
    }

    /**
     * A read-only tick: the snapshot and its projection for this process's own view; the revision is the one of the
     * state document on disk (whoever owns the workspace wrote it), and it counts as changed when that advanced.
     * Nothing is written or pruned.
     */
    private TickResult followTick(WakeReason reason, Instant now, ContractSnapshot snapshot, long t0) {
        project(snapshot, now);
        long onDisk = Math.max(0, StateDocument.revisionOf(layout.stateFile())); // none yet: 0
        boolean advanced = loadedPrevious && onDisk > revision; // the first look finds where the owner is, no change
        loadedPrevious = true;
        if (onDisk > revision) {
            revision = onDisk;
        }
        TickResult result = result(reason, now, revision, advanced, snapshot, t0, new DriftPruning(List.of(), List.of()), null);
        lastTick = result;
        events.publish(new TickFinished(now, result));
        return result;
    }

    /**
     * A deleted or moved root is not an empty workspace: a tick then publishes nothing and writes nothing (writing
     * would re-create {@code observer/} where the user removed everything), so the last document stays what is served.
     */
    static WorkspaceException rootGone(Path root) {
        return new WorkspaceException("the workspace root " + root + " is gone (deleted or moved): nothing is projected"
                + " or written until it is back, and the last projection is what is served; if it moved, start kiln"
                + " serve on its new path");
    }

    /** Whether this projector only reads (see {@link Builder#readOnly()}). */
    public boolean readOnly() {
        return readOnly;
    }

    /**
     * Sets the {@code meta} object of the state document (the daemon puts watch status there). It is stable
     * content: a different meta makes the next tick write and advance the revision, so put only what should.
     */
    public synchronized void meta(ObjectNode meta) {
        this.meta = meta.deepCopy();
    }

    /** The current revision (0 before anything was written). */
    public long revision() {
        return revision;
    }

    /**
     * The revision a state document on disk says it is ({@code observer/state.json}), read from its head without
     * parsing the rest; -1 when the file is missing or is no state document. Reads only, takes no lock.
     */
    public static long publishedRevision(Path stateFile) {
        return StateDocument.revisionOf(stateFile);
    }

    /** The last tick's result, or {@code null} before the first tick. */
    public @Nullable TickResult lastTick() {
        return lastTick;
    }

    /**
     * What the last tick projected, in the state document's shape: {@code {"leaves": […], "failures": […]}}. Also for a
     * read-only projector, which writes no document: it is how a reader (the staleness doctor) compares a fresh
     * projection with a published one. Null before the first tick.
     */
    public synchronized @Nullable ObjectNode projection() {
        if (lastTick == null) {
            return null;
        }
        ObjectNode o = StateDocument.MAPPER.createObjectNode();
        com.fasterxml.jackson.databind.node.ArrayNode leaves = o.putArray("leaves");
        for (LeafState l : lastLeaves) {
            leaves.add(StateDocument.leafNode(l));
        }
        com.fasterxml.jackson.databind.node.ArrayNode failures = o.putArray("failures");
        for (dev.kiln.core.snapshot.SnapshotFailure f : snapshots.current().failures()) {
            failures.addObject().put("path", f.path()).put("kind", f.kind().name().toLowerCase(java.util.Locale.ROOT))
                    .put("reason", f.reason());
        }
        return o;
    }

    /** The last snapshot built. */
    public ContractSnapshot snapshot() {
        return snapshots.current();
    }

    /**
     * The bytes of the current state document (the one this projector wrote, or the one it found unchanged at
     * startup), or {@code null} before the first tick or after a failed first write.
     */
    public byte @Nullable [] document() {
        DocumentParts p = parts;
        return p == null ? null : p.bytes();
    }

    /**
     * The last written document in parts, as JSON text: each leaf's object in document order, the failures array
     * and the stable meta object. Lets a consumer (the SSE hub) compare and embed leaves without parsing the
     * document: an unchanged leaf keeps the very same text instance from one revision to the next.
     */
    public static final class DocumentParts {
        private final long revision;
        private final StateDocument.Segments segments;
        private final List<String> leafIds;
        private final List<String> leafJson;
        private final String failures;
        private final String meta;
        private volatile @Nullable Map<String, String> leaves; // built on first use

        DocumentParts(long revision, StateDocument.Segments segments, List<String> leafIds, List<String> leafJson,
                String failures, String meta) {
            if (leafIds.size() != leafJson.size()) {
                throw new IllegalArgumentException("one JSON object per leaf id");
            }
            this.revision = revision;
            this.segments = segments;
            this.leafIds = leafIds;
            this.leafJson = leafJson;
            this.failures = failures;
            this.meta = meta;
        }

        /** The document's revision. */
        public long revision() {
            return revision;
        }

        /**
         * The whole document, UTF-8 JSON, as a new array (assembled on each call from chunks shared between
         * revisions: a consumer that needs the bytes of a revision pays for them, the tick never does).
         */
        public byte[] bytes() {
            return segments.bytes();
        }

        /** The document's size in bytes. */
        public long length() {
            return segments.length();
        }

        /** Leaf ids in document order. */
        public List<String> leafIds() {
            return leafIds;
        }

        /** Each leaf's JSON object, position for position with {@link #leafIds()}. */
        public List<String> leafJson() {
            return leafJson;
        }

        /** The failures array. */
        public String failures() {
            return failures;
        }

        /** The stable meta object (without the volatile {@code meta.daemon}). */
        public String meta() {
            return meta;
        }

        /** Each leaf's JSON object by leaf id, in document order; built on first use. */
        public Map<String, String> leaves() {
            Map<String, String> m = leaves;
            if (m == null) {
                Map<String, String> b = new java.util.LinkedHashMap<>(leafIds.size() * 2);
                for (int i = 0; i < leafIds.size(); i++) {
                    b.put(leafIds.get(i), leafJson.get(i));
                }
                leaves = m = java.util.Collections.unmodifiableMap(b);
            }
            return m;
        }
    }

    /** The parts of the last written document, or null before the first write. */
    public @Nullable DocumentParts parts() {
        return parts;
    }

    /**
     * Waits until the last written state document is durable on disk. A tick returns once readers can see the
     * document; its fsync follows in the background (see {@code StateFile}), so call this before a process that
     * wrote one exits.
     *
     * @throws IOException when the background sync failed: the document is in place, but a power cut could lose it
     */
    public void flush() throws IOException {
        stateFile.flush();
    }

    /**
     * The background syncs of the state document so far.
     *
     * @param syncs documents made durable (several written before one sync count once)
     * @param totalMillis time spent in those syncs, off the ticks
     */
    public record StateSyncs(long syncs, double totalMillis) {
    }

    public StateSyncs stateSyncs() {
        return new StateSyncs(stateFile.syncs(), stateFile.syncNanos() / 1e6);
    }

    /**
     * The documents written behind the tick so far (see {@link Builder#writeBehind}).
     *
     * @param writes documents written (coalesced revisions count once)
     * @param totalMillis time spent writing, syncing and renaming them, off the ticks
     * @param failure the last write's failure while the file trails the projection because of it, else null
     */
    public record BehindWrites(long writes, double totalMillis, @Nullable String failure) {
    }

    /**
     * Why {@code observer/state.json} trails the projection now ("cannot write /w/observer/state.json: No space left
     * on device"), or null when the newest revision was written. Cleared as soon as a write succeeds again (the
     * daemon retries about once a second; without it, the next tick does). Read from any thread.
     */
    public @Nullable String stateFileError() {
        return stateFile.failure();
    }

    public BehindWrites behindWrites() {
        return new BehindWrites(stateFile.behindWrites(), stateFile.behindNanos() / 1e6, stateFile.failure());
    }

    public WorkspaceLayout layout() {
        return layout;
    }

    /**
     * Projects every leaf, reusing the last tick's projection of each contract file instance that is still in the
     * snapshot: its declared content cannot have changed, so only overdue and engine liveness can differ. Gives
     * exactly what projecting every leaf from scratch would.
     *
     * <p>When every file kept its position and {@code now} lies in the window where no overdue flag of the last
     * projection flips, only the changed positions and the leaves with engines are visited; otherwise every leaf.
     */
    private List<LeafState> project(ContractSnapshot snapshot, Instant now) {
        List<ContractFile> files = snapshot.contracts();
        List<ContractFile> prevFiles = lastFiles;
        List<LeafState> prevLeaves = lastLeaves;
        List<LeafState> leaves;
        int[] replaced = lastSnapshot == null ? null : snapshot.replacedSince(lastSnapshot);
        lastSnapshot = snapshot;
        if (prevFiles.size() == files.size() && !prevFiles.isEmpty() && overdueSettled(now)) {
            leaves = new ArrayList<>(prevLeaves);
            BitSet touched = sinceRender;
            if (replaced != null) {
                // the snapshot says which positions it replaced: work follows the change, not the tree
                for (int i : replaced) {
                    replace(files.get(i), i, prevFiles.get(i), leaves, now, touched);
                }
            } else {
                for (int i = 0; i < files.size(); i++) {
                    replace(files.get(i), i, prevFiles.get(i), leaves, now, touched);
                }
            }
            for (int i = engines.nextSetBit(0); i >= 0; i = engines.nextSetBit(i + 1)) {
                if (prevFiles.get(i) == files.get(i)) {
                    LeafState before = leaves.get(i);
                    LeafState after = refreshed(before, files.get(i), now);
                    leaves.set(i, after);
                    if (after != before && touched != null) {
                        touched.set(i);
                    }
                }
            }
        } else {
            sinceRender = null; // a full pass: the renderer compares everything once
            leaves = new ArrayList<>(files.size());
            Map<ContractFile, LeafState> moved = null; // built only when a file was added or removed before this position
            maxOverdueDeadline = null;
            minPendingDeadline = null;
            engines.clear();
            for (int i = 0; i < files.size(); i++) {
                ContractFile f = files.get(i);
                LeafState prev = null;
                if (i < prevFiles.size() && prevFiles.get(i) == f) {
                    prev = prevLeaves.get(i);
                } else if (!prevFiles.isEmpty()) {
                    if (moved == null) {
                        moved = new IdentityHashMap<>(prevFiles.size() * 2);
                        for (int k = 0; k < prevFiles.size(); k++) {
                            moved.put(prevFiles.get(k), prevLeaves.get(k));
                        }
                    }
                    prev = moved.get(f);
                }
                LeafState l = prev == null ? leaf(f, now) : refreshed(prev, f, now);
                leaves.add(l);
                bound(f.contract(), l.overdue());
                engines.set(i, l.engine() != null);
            }
        }
        lastFiles = files;
        lastLeaves = leaves;
        return leaves;
    }

    /** Position {@code i} of the fast path: a new instance of the file there is projected again. */
    private void replace(ContractFile f, int i, ContractFile prev, List<LeafState> leaves, Instant now,
            @Nullable BitSet touched) {
        if (prev != f) { // an identity check: a changed file is a new instance
            LeafState l = leaf(f, now);
            leaves.set(i, l);
            bound(f.contract(), l.overdue());
            engines.set(i, l.engine() != null);
            if (touched != null) {
                touched.set(i);
            }
        }
    }

    /**
     * Whether every overdue flag of the last projection is still right at {@code now}: overdue leaves have
     * deadlines before it, pending ones deadlines at or after it. The bounds only ever widen between full passes
     * (a replaced leaf's deadline stays in them), which can only make this answer no more often.
     */
    private boolean overdueSettled(Instant now) {
        return (maxOverdueDeadline == null || now.isAfter(maxOverdueDeadline))
                && (minPendingDeadline == null || !now.isAfter(minPendingDeadline));
    }

    private void bound(Contract c, boolean overdue) {
        if (c.deadline() == null || "done".equalsIgnoreCase(c.status())) {
            return; // never overdue, whatever the time
        }
        if (overdue) {
            if (maxOverdueDeadline == null || c.deadline().isAfter(maxOverdueDeadline)) {
                maxOverdueDeadline = c.deadline();
            }
        } else if (minPendingDeadline == null || c.deadline().isBefore(minPendingDeadline)) {
            minPendingDeadline = c.deadline();
        }
    }

    /** A leaf projected from scratch. */
    private static LeafState leaf(ContractFile f, Instant now) {
        Contract c = f.contract();
        // Leaf ids are unique per snapshot (one contract file per directory), so the leaf's own enclosure is
        // what the Enclosures reader maps its id to.
        return new LeafState(f.leafId(), f.file(), c.leafId(), f.idShape(), c.title(), c.status(), c.deadline(),
                overdue(c, now), c.enclosure(), engine(f, c));
    }

    /** {@code prev} (the projection of the same file instance) with its time-derived facts brought up to date. */
    private static LeafState refreshed(LeafState prev, ContractFile f, Instant now) {
        Contract c = f.contract();
        boolean overdue = overdue(c, now);
        LeafState.Engine engine = c.engine() == null ? null : engine(f, c);
        if (overdue == prev.overdue() && Objects.equals(engine, prev.engine())) {
            return prev; // the same instance: equality and the JSON cache are identity checks
        }
        return new LeafState(prev.leafId(), prev.file(), prev.declaredLeafId(), prev.idShape(), prev.title(), prev.status(),
                prev.deadline(), overdue, prev.enclosure(), engine);
    }

    private static boolean overdue(Contract c, Instant now) {
        return c.deadline() != null && now.isAfter(c.deadline()) && !"done".equalsIgnoreCase(c.status());
    }

    private static LeafState.@Nullable Engine engine(ContractFile f, Contract c) {
        if (c.engine() == null) {
            return null;
        }
        EngineFact e = EngineFacts.look(f.leafId(), c.engine());
        return new LeafState.Engine(e.pid(), e.command(), e.startedAt(), e.liveness());
    }

    /**
     * On the first tick only: continue from an existing state.json — its revision, and whether its stable
     * content already says what this tick would write (then nothing is written and the document on disk is the
     * current one). Compares bytes against the rendered leaves (no tree of the old document is built), so it costs
     * about one read of the file at 100,000 leaves.
     */
    private boolean sameAsPrevious(StateDocument.Stable stable, Instant now, ContractSnapshot snapshot, long t0,
            DriftPruning drift, WakeReason reason) {
        if (loadedPrevious) {
            return false;
        }
        loadedPrevious = true;
        byte[] previous;
        try {
            previous = Files.readAllBytes(layout.stateFile());
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            LOG.warn("Cannot read the previous {} ({}); starting a new revision sequence", layout.stateFile(), e.getMessage());
            return false;
        }
        long onDisk = StateDocument.revisionOf(previous);
        if (onDisk < 0) {
            return false;
        }
        revision = Math.max(revision, onDisk);
        TickResult result = result(reason, now, revision, false, snapshot, t0, drift, null);
        StateDocument.Rendered r = StateDocument.render(layout.root(), revision, now, stable, result,
                runtimeMeta == null ? null : runtimeMeta.get(), leafJson);
        if (StateDocument.sameStable(previous, r, stable)) {
            parts = new DocumentParts(revision, StateDocument.Segments.of(previous), r.leafIds(), r.leafJson(),
                    r.failures(), r.meta());
            return true;
        }
        return false;
    }

    private TickResult result(WakeReason reason, Instant now, long revision, boolean changed, ContractSnapshot s,
            long t0, DriftPruning drift, @Nullable String writeError) {
        return new TickResult(reason, now, revision, changed, s.contracts().size(), s.failures().size(), s.stats(),
                ticker.read() - t0, drift.removed(), writeError);
    }

    /** Configures a {@link Projector}; rejects bad options when they are set. */
    public static final class Builder {
        private final WorkspaceLayout layout;
        private Clock clock = Clock.systemUTC();
        private Ticker ticker = Ticker.systemTicker();
        private EventSink events = EventSink.none();
        private long maxContractBytes = ContractStore.DEFAULT_MAX_BYTES;
        private boolean parseCache = true;
        private @Nullable Supplier<? extends JsonNode> runtimeMeta;
        private boolean readOnly;
        private long writeBehindAbove = -1;
        private java.time.Duration writeSpacing = java.time.Duration.ZERO;

        private Builder(WorkspaceLayout layout) {
            this.layout = Objects.requireNonNull(layout, "layout");
        }

        /** The ticker that times each tick (default {@link Ticker#systemTicker()}). */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder events(EventSink events) {
            this.events = Objects.requireNonNull(events, "events");
            return this;
        }

        public Builder maxContractBytes(long bytes) {
            if (bytes < 2) {
                throw new IllegalArgumentException("the contract size limit must be at least 2 bytes, got " + bytes);
            }
            this.maxContractBytes = bytes;
            return this;
        }

        /** Whether unchanged files reuse their parse (default); off, every tick parses every file (benchmark baseline). */
        public Builder parseCache(boolean enabled) {
            this.parseCache = enabled;
            return this;
        }

        /**
         * Runtime instrumentation (the daemon's projection counts, wake reasons, last tick) rendered as
         * {@code meta.daemon} whenever the document is written. Volatile: it never advances the revision by itself.
         */
        public Builder runtimeMeta(Supplier<? extends JsonNode> supplier) {
            this.runtimeMeta = Objects.requireNonNull(supplier, "supplier");
            return this;
        }

        /**
         * A projector that never writes: for a process that follows a workspace another one owns (a console beside a
         * running {@code kiln serve}). Its ticks build the snapshot and projection for its own view, write no
         * state.json and prune no drift, and report the revision of the state document on disk.
         */
        public Builder readOnly() {
            this.readOnly = true;
            return this;
        }

        /**
         * Writes state documents larger than {@code aboveBytes} behind the tick instead of in it (the daemon's
         * mode): the tick returns once the new revision is in memory ({@link #parts()}, what the API serves), and
         * a background thread writes the newest revision durably (temp file, fsync, rename, fsync of the
         * directory), at most once per {@code spacing}; revisions in between are coalesced (the latest wins).
         * {@code observer/state.json} then trails the projection by at most one write plus {@code spacing}.
         * Smaller documents are written in the tick, as by default. {@link Projector#flush()} waits for the newest.
         */
        public Builder writeBehind(long aboveBytes, java.time.Duration spacing) {
            if (aboveBytes < 0) {
                throw new IllegalArgumentException("the write-behind threshold must not be negative, got " + aboveBytes);
            }
            if (spacing.isNegative()) {
                throw new IllegalArgumentException("the write spacing must not be negative, got " + spacing);
            }
            this.writeBehindAbove = aboveBytes;
            this.writeSpacing = spacing;
            return this;
        }

        public Projector build() {
            return new Projector(this);
        }
    }
}
