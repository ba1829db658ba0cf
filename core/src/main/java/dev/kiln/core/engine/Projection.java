package dev.kiln.core.engine;

import dev.kiln.core.contract.HealReport;
import dev.kiln.core.doctor.Diagnosis;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.watch.WatchStatus;
import java.util.Optional;

/**
 * An engine's projection: the snapshot its ticks deliver, the watch, the staleness doctor and the heal of the
 * contracts' leaf ids. Each engine implements it itself (the in-process one over its {@code Kiln}, the remote one
 * over the daemon's state and event stream, a replay over its recording).
 *
 * <p>Thread-safety: thread-safe. Methods documented "from memory" never block and are safe on a UI thread; the
 * others may block on disk, processes or the network.
 */
public interface Projection {
    /**
     * Starts delivering the projection: {@code live} runs the change-driven projector here (or follows the daemon
     * that owns the workspace), {@code false} ticks only on demand; a remote engine connects its event stream and
     * loads the daemon's state. Blocks while it starts. A remote engine's events arrive on its bus once this (or an
     * action) opened the stream: subscribe, then start.
     *
     * @return why this engine does not run the live projector itself (it follows, ticks on demand, or is attached),
     *     empty when it does
     */
    Optional<String> start(boolean live);

    /** The latest snapshot, from memory; an empty one before the first tick. */
    ContractSnapshot snapshot();

    /** Runs a tick now and waits for it; the tick also arrives as a {@code TickFinished} event. */
    void projectNow();

    /** How the workspace is watched, when a live projector runs. From memory. */
    Optional<WatchStatus> watchStatus();

    /** Where the projecting daemon's API listens, when there is one (the URL of a remote engine). From memory. */
    Optional<String> apiUrl();

    /** "Why is this stale?": the staleness doctor run against this engine's published state. */
    Diagnosis diagnose();

    /**
     * Sweeps the contracts' leaf ids: {@code apply} false previews and writes nothing. An applied heal sent twice with
     * one idempotency key (a retry) runs once and answers the first report.
     */
    HealReport heal(boolean apply, String idempotencyKey);
}
