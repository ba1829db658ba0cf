package dev.kiln.core.seed;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A cancel handle for a long action (the console's Cancel button). Thread-safe: {@link #cancel()} may be called
 * from any thread; the action notices within a fraction of a second, kills what it started and reports
 * {@link WarmOutcome#CANCELLED}.
 *
 * <p>Concurrency: one atomic flag, set by any thread (the FX thread's Cancel), read by the warm's thread.
 */
public final class Cancellation {
    private final AtomicBoolean cancelled = new AtomicBoolean();

    /** A fresh, not yet cancelled handle. */
    public static Cancellation create() {
        return new Cancellation();
    }

    public void cancel() {
        cancelled.set(true);
    }

    public boolean isCancelled() {
        return cancelled.get();
    }
}
