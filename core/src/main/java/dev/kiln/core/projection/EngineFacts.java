package dev.kiln.core.projection;

import dev.kiln.core.contract.Contract;
import dev.kiln.core.snapshot.ContractFile;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.snapshot.SnapshotBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The engine process facts reader: for every leaf that declares an engine, whether its pid is alive, gone,
 * or reused by a younger process (via {@link ProcessHandle}). Only declared engines are looked up.
 *
 * @param byLeaf leaf id → fact, in enumeration order
 */
record EngineFacts(Map<String, EngineFact> byLeaf) {
    // A record: engines are few (one lookup each), so copying the map costs nothing worth avoiding.
    /** A process that started this much later than declared is another process that got the pid. */
    static final Duration REUSE_TOLERANCE = Duration.ofSeconds(2);

    public EngineFacts {
        byLeaf = Collections.unmodifiableMap(new LinkedHashMap<>(byLeaf));
    }

    /** Reads a shared snapshot. */
    public static EngineFacts of(ContractSnapshot snapshot) {
        Map<String, EngineFact> m = new LinkedHashMap<>();
        for (ContractFile c : snapshot.contracts()) {
            Contract.Engine e = c.contract().engine();
            if (e != null) {
                m.put(c.leafId(), look(c.leafId(), e));
            }
        }
        return new EngineFacts(m);
    }

    /** Standalone: builds its own snapshot of {@code tasksDir}; the same answer as {@link #of} on a shared one. */
    public static EngineFacts read(Path tasksDir) {
        return of(new SnapshotBuilder(tasksDir).build());
    }

    static EngineFact look(String leafId, Contract.Engine e) {
        Optional<ProcessHandle> h = ProcessHandle.of(e.pid());
        if (h.isEmpty() || !h.get().isAlive()) {
            return new EngineFact(leafId, e.pid(), EngineFact.Liveness.GONE, e.command(), e.startedAt(), null, null);
        }
        ProcessHandle.Info info = h.get().info();
        Instant observedStart = info.startInstant().orElse(null);
        String observedCommand = info.commandLine().or(info::command).orElse(null);
        boolean reused = e.startedAt() != null && observedStart != null
                && observedStart.isAfter(e.startedAt().plus(REUSE_TOLERANCE));
        return new EngineFact(leafId, e.pid(), reused ? EngineFact.Liveness.PID_REUSED : EngineFact.Liveness.ALIVE,
                e.command(), e.startedAt(), observedCommand, observedStart);
    }
}
