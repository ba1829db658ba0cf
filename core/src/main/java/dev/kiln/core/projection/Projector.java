package dev.kiln.core.projection;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.contract.Contract;
import dev.kiln.core.contract.ContractStore;
import dev.kiln.core.snapshot.ContractFile;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.snapshot.SnapshotBuilder;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.workspace.AtomicWrite;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs projection ticks over one workspace. One tick: build one {@link ContractSnapshot} (stat-keyed parse
 * cache) → every reader ({@link Enclosures}, {@link EngineFacts}, {@link DriftPruning}) reads it → project
 * each leaf → write {@code observer/state.json} atomically if, and only if, its stable content (leaves,
 * failures, meta) changed, advancing the revision → publish {@link TickFinished}.
 *
 * <p>Time-only fields ({@code generated_at}, the tick's counters) never advance the revision by themselves;
 * time-derived facts (overdue, engine liveness) do when they flip. The revision continues from an existing
 * state.json, so it only grows across restarts, and a restart over an unchanged tree writes nothing.
 *
 * <p>Concurrency: {@link #tick} and {@link #meta} are serialized on this object; the accessors may be read
 * from any thread.
 */
public final class Projector {
    private static final Logger LOG = LoggerFactory.getLogger(Projector.class);

    private final WorkspaceLayout layout;
    private final Clock clock;
    private final EventSink events;
    private final boolean parseCache;
    private final SnapshotBuilder snapshots;
    private final Supplier<? extends JsonNode> runtimeMeta;

    private volatile long revision;
    private StateDocument.Stable lastStable;
    private boolean loadedPrevious;
    private JsonNode meta = StateDocument.MAPPER.createObjectNode();
    private volatile TickResult lastTick;
    private volatile byte[] document;
    private volatile DocumentParts parts;
    private final StateDocument.LeafJsonCache leafJson = new StateDocument.LeafJsonCache();

    private Projector(Builder b) {
        this.layout = b.layout;
        this.clock = b.clock;
        this.events = b.events;
        this.parseCache = b.parseCache;
        this.snapshots = new SnapshotBuilder(layout.tasksDir(), b.maxContractBytes);
        this.runtimeMeta = b.runtimeMeta;
    }

    /** A projector of {@code layout}'s workspace, with the system clock and no events until configured. */
    public static Builder builder(WorkspaceLayout layout) {
        return new Builder(layout);
    }

    /** Runs one tick over a full build. Never throws for bad input: failures are in the result and the document. */
    public TickResult tick(WakeReason reason) {
        return tick(reason, SnapshotBuilder::build);
    }

    /**
     * Runs one tick whose snapshot comes from {@code step} applied to this projector's builder: the seam for an
     * incremental step (e.g. {@code b -> b.apply(changedPaths)}), which must give what a full build would.
     */
    public synchronized TickResult tick(WakeReason reason, Function<SnapshotBuilder, ContractSnapshot> step) {
        Objects.requireNonNull(reason, "reason");
        long t0 = System.nanoTime();
        Instant now = clock.instant();
        if (!parseCache) {
            snapshots.invalidateAll();
        }
        ContractSnapshot snapshot = Objects.requireNonNull(step.apply(snapshots), "the snapshot step returned null");
        Enclosures enclosures = Enclosures.of(snapshot);
        EngineFacts engines = EngineFacts.of(snapshot);
        DriftPruning drift = DriftPruning.prune(snapshot, layout.driftDir());
        drift.problems().forEach(p -> LOG.warn("Drift pruning in {}: {}", layout.driftDir(), p));

        StateDocument.Stable stable = new StateDocument.Stable(project(snapshot, enclosures, engines, now), snapshot.failures(), meta);
        boolean changed = !stable.equals(lastStable) && !sameAsPrevious(stable);
        long nextRevision = changed ? revision + 1 : revision;
        String writeError = null;
        TickResult result = result(reason, now, nextRevision, changed, snapshot, t0, drift, null);
        if (changed) {
            StateDocument.Rendered r = StateDocument.render(layout.root(), nextRevision, now, stable, result,
                    runtimeMeta == null ? null : runtimeMeta.get(), leafJson);
            byte[] bytes = r.bytes();
            try {
                AtomicWrite.write(layout.stateFile(), bytes);
                revision = nextRevision;
                lastStable = stable;
                document = bytes;
                parts = new DocumentParts(nextRevision, r.leaves(), r.failures(), r.meta());
            } catch (IOException e) {
                writeError = e.getClass().getSimpleName() + ": " + e.getMessage();
                LOG.error("Could not write {}: {}. The projection stays at revision {}; the next tick tries again.",
                        layout.stateFile(), writeError, revision);
            }
        } else {
            lastStable = stable;
        }
        result = result(reason, now, revision, changed && writeError == null, snapshot, t0, drift, writeError);
        lastTick = result;
        events.publish(new TickFinished(now, result));
        return result;
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

    /** The last tick's result, or {@code null} before the first tick. */
    public TickResult lastTick() {
        return lastTick;
    }

    /** The last snapshot built. */
    public ContractSnapshot snapshot() {
        return snapshots.current();
    }

    /** The snapshot builder (and its parse cache) this projector owns; for the watcher's incremental step. */
    public SnapshotBuilder snapshots() {
        return snapshots;
    }

    /**
     * The bytes of the current state document (the one this projector wrote, or the one it found unchanged at
     * startup), or {@code null} before the first tick or after a failed first write.
     */
    public byte[] document() {
        byte[] d = document;
        return d == null ? null : d.clone();
    }

    /**
     * The last written document in parts, as JSON text: each leaf's object by leaf id, the failures array and the
     * stable meta object. Lets a consumer (the SSE hub) compare and embed leaves without parsing the document.
     * Null before this projector wrote a document.
     *
     * @param revision the document's revision
     * @param leaves each leaf's JSON object by leaf id, in document order
     * @param failures the failures array
     * @param meta the stable meta object (without the volatile {@code meta.daemon})
     */
    public record DocumentParts(long revision, Map<String, String> leaves, String failures, String meta) {
    }

    /** The parts of the last written document, or null before the first write. */
    public DocumentParts parts() {
        return parts;
    }

    public WorkspaceLayout layout() {
        return layout;
    }

    private static List<LeafState> project(ContractSnapshot snapshot, Enclosures enclosures, EngineFacts engines, Instant now) {
        List<LeafState> leaves = new ArrayList<>(snapshot.contracts().size());
        for (ContractFile f : snapshot.contracts()) {
            Contract c = f.contract();
            EngineFact e = engines.byLeaf().get(f.leafId());
            boolean overdue = c.deadline() != null && now.isAfter(c.deadline()) && !"done".equalsIgnoreCase(c.status());
            leaves.add(new LeafState(f.leafId(), f.file(), c.leafId(), f.idShape(), c.title(), c.status(), c.deadline(), overdue,
                    enclosures.pathsOf(f.leafId()),
                    e == null ? null : new LeafState.Engine(e.pid(), e.command(), e.startedAt(), e.liveness())));
        }
        return leaves;
    }

    /**
     * On the first tick only: continue from an existing state.json — its revision, and whether its stable
     * content already says what this tick would write (then nothing is written).
     */
    private boolean sameAsPrevious(StateDocument.Stable stable) {
        if (loadedPrevious) {
            return false;
        }
        loadedPrevious = true;
        StateDocument.Existing previous;
        try {
            previous = StateDocument.readExisting(layout.stateFile());
        } catch (IOException e) {
            LOG.warn("Cannot read the previous {} ({}); starting a new revision sequence", layout.stateFile(), e.getMessage());
            return false;
        }
        if (previous == null) {
            return false;
        }
        revision = Math.max(revision, previous.tree().path("revision").asLong(0));
        if (StateDocument.stableTree(previous.tree()).equals(StateDocument.stableTree(stable))) {
            document = previous.bytes();
            return true;
        }
        return false;
    }

    private static TickResult result(WakeReason reason, Instant now, long revision, boolean changed, ContractSnapshot s,
            long t0, DriftPruning drift, String writeError) {
        return new TickResult(reason, now, revision, changed, s.contracts().size(), s.failures().size(), s.stats(),
                System.nanoTime() - t0, drift.removed(), writeError);
    }

    /** Configures a {@link Projector}; rejects bad options when they are set. */
    public static final class Builder {
        private final WorkspaceLayout layout;
        private Clock clock = Clock.systemUTC();
        private EventSink events = EventSink.none();
        private long maxContractBytes = ContractStore.DEFAULT_MAX_BYTES;
        private boolean parseCache = true;
        private Supplier<? extends JsonNode> runtimeMeta;

        private Builder(WorkspaceLayout layout) {
            this.layout = Objects.requireNonNull(layout, "layout");
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

        public Projector build() {
            return new Projector(this);
        }
    }
}
