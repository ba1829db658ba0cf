package dev.kiln.core.projection;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What the host says about a leaf's declared engine process.
 *
 * @param leafId canonical leaf id
 * @param pid declared pid
 * @param liveness whether the declared process still runs
 * @param command declared command, or {@code null}
 * @param startedAt declared start, or {@code null}
 * @param observedCommand the command the host reports for the pid, or {@code null} when gone or hidden
 * @param observedStart when the host says the pid's process started, or {@code null}
 */
record EngineFact(String leafId, long pid, Liveness liveness, @Nullable String command, @Nullable Instant startedAt,
        @Nullable String observedCommand, @Nullable Instant observedStart) {

    /** Whether a declared process runs. */
    public enum Liveness {
        /** A process with the declared pid runs and is not younger than the declaration. */
        ALIVE,
        /** No process has the declared pid. */
        GONE,
        /** The pid runs, but started after the declared start: the engine died and its pid was reused. */
        PID_REUSED
    }
}
