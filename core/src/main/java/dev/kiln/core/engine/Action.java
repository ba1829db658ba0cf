package dev.kiln.core.engine;

import java.util.concurrent.CompletableFuture;

/**
 * A long action (a warm, a probe, a precompile) started on an engine: it has an id at once, reports progress as
 * events on {@link Engine#events()}, and ends in {@link #result()}.
 *
 * <p>Thread-safety: safe from any thread; {@link #cancel()} is idempotent.
 *
 * @param <T> what the action reports when it ends
 */
public interface Action<T> {
    /** The engine's id of this action; the same id names it in events and in the API. */
    String id();

    /**
     * Completes with the outcome, or exceptionally: {@link java.util.concurrent.CancellationException} when
     * cancelled before an outcome, {@link EngineException} when the engine failed or became unreachable.
     */
    CompletableFuture<T> result();

    /**
     * Ends the action on the engine's host, including every process it started (the whole process tree); the
     * result then completes (a warm with outcome {@code CANCELLED}, leaving the old seed in place).
     */
    void cancel();
}
