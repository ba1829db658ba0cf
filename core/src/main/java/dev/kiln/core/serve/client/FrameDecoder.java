package dev.kiln.core.serve.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.snapshot.ContractFile;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.snapshot.SnapshotFailure;
import dev.kiln.core.snapshot.SnapshotStats;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.watch.WatchChanged;
import dev.kiln.core.watch.WatchStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads the API's SSE frames back (what {@code FrameFeed} gives and a recording keeps): {@code snapshot} and
 * {@code delta} into the contracts they describe, every other frame into the core event it stands for, with the
 * same readers the remote engine uses ({@link Wire#read}, its contract and failure readers), so a replayed
 * contract is what an attached console shows.
 *
 * <p>Built for replay speed: a delta changes the held map in place, and the {@link ContractSnapshot} is built only
 * when asked for after a change. {@link #copy} forks the state (a seek point).
 *
 * <p>Concurrency: not thread-safe; one thread applies frames (a replay engine guards it with its own lock).
 */
public final class FrameDecoder {
    private final Path tasksDir;
    private Map<String, ContractFile> leaves = new LinkedHashMap<>();
    private List<SnapshotFailure> failures = List.of();
    private SnapshotStats stats = SnapshotStats.empty();
    private @Nullable WatchStatus watch;
    private long revision;
    private boolean reorder;
    private @Nullable ContractSnapshot snapshot;
    private boolean seen;

    /** A decoder of a workspace whose contracts live under {@code tasksDir} (as its host names it). */
    public FrameDecoder(Path tasksDir) {
        this.tasksDir = tasksDir;
    }

    /** A decoder holding what this one holds now; the two then go separate ways. */
    public FrameDecoder copy() {
        FrameDecoder d = new FrameDecoder(tasksDir);
        d.leaves = new LinkedHashMap<>(leaves);
        d.failures = failures;
        d.stats = stats;
        d.watch = watch;
        d.revision = revision;
        d.reorder = reorder;
        d.snapshot = snapshot;
        d.seen = seen;
        return d;
    }

    /**
     * Applies one frame.
     *
     * @return the core event it stands for (to publish), empty for the state's own frames and names this build
     *     does not know
     * @throws IOException when its data is not what its name says (naming the frame)
     */
    public Optional<KilnEvent> apply(String event, String data) throws IOException {
        JsonNode n = Wire.JSON.readTree(data);
        if (n == null || n.isMissingNode()) {
            throw new IOException("the " + event + " frame has no data");
        }
        if (event.equals(Wire.SNAPSHOT)) {
            Map<String, ContractFile> next = new LinkedHashMap<>();
            for (JsonNode leaf : n.path("leaves")) {
                ContractFile f = RemoteEngine.contract(leaf);
                ContractFile same = leaves.get(f.leafId());
                next.put(f.leafId(), same != null && same.equals(f) ? same : f);
            }
            leaves = next;
            failures = RemoteEngine.failures(n.path("failures"));
            stats = RemoteEngine.stats(n.path("tick").path("counters"));
            watch = RemoteEngine.watch(n.path("meta").path("watch"), watch);
            revision = n.path("revision").asLong();
            reorder = true;
            snapshot = null;
            seen = true;
            return Optional.empty();
        }
        if (event.equals(Wire.DELTA)) {
            long r = n.path("revision").asLong();
            if (!seen || r <= revision) {
                return Optional.empty();
            }
            n.path("removed").forEach(id -> leaves.remove(id.asText()));
            if (n.path("added").size() > 0) {
                reorder = true;
            }
            n.path("added").fields().forEachRemaining(e -> leaves.put(e.getKey(), RemoteEngine.contract(e.getValue())));
            n.path("changed").fields().forEachRemaining(e -> leaves.put(e.getKey(), RemoteEngine.contract(e.getValue())));
            if (n.has("failures")) {
                failures = RemoteEngine.failures(n.path("failures"));
            }
            if (n.path("meta").has("watch")) {
                watch = RemoteEngine.watch(n.path("meta").path("watch"), watch);
            }
            revision = r;
            snapshot = null;
            return Optional.empty();
        }
        Class<? extends KilnEvent> type = Wire.eventType(event);
        if (type == null) {
            return Optional.empty();
        }
        KilnEvent e = Wire.read(n, type);
        if (e instanceof WatchChanged w) {
            watch = w.status();
        } else if (e instanceof TickFinished t && t.result().revision() >= revision) {
            stats = t.result().stats();
            snapshot = null;
        }
        return Optional.of(e);
    }

    /** The contracts as the frames so far describe them; an empty snapshot before the first. */
    public ContractSnapshot snapshot() {
        ContractSnapshot s = snapshot;
        if (s == null) {
            List<ContractFile> ordered = new ArrayList<>(leaves.values());
            if (reorder) { // the enumeration's order (depth first, names sorted), as the daemon's snapshot has it
                ordered.sort(RemoteEngine.ENUMERATION);
                Map<String, ContractFile> byOrder = new LinkedHashMap<>();
                ordered.forEach(f -> byOrder.put(f.leafId(), f));
                leaves = byOrder;
                reorder = false;
            }
            s = ContractSnapshot.of(tasksDir, ordered, failures, stats);
            snapshot = s;
        }
        return s;
    }

    /** The revision the frames reached; 0 before the first snapshot. */
    public long revision() {
        return revision;
    }

    /** The watch the frames last described, if any. */
    public Optional<WatchStatus> watch() {
        return Optional.ofNullable(watch);
    }

    /** Whether a snapshot frame has been applied (a delta before one means nothing). */
    public boolean hasState() {
        return seen;
    }

    /** Whether {@code event} is a frame of the state itself (a snapshot or a delta), not a core event. */
    public static boolean isState(String event) {
        return event.equals(Wire.SNAPSHOT) || event.equals(Wire.DELTA);
    }

    /** The name of the frame that carries the whole state. */
    public static String snapshotName() {
        return Wire.SNAPSHOT;
    }
}
