package dev.kiln.core.doctor;

import dev.kiln.core.http.BoundedRead;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How long one diagnosis may wait for its daemon, all its questions together: each answer spends the time it took,
 * while the doctor's own projection (which runs beside the read of the published state) spends none. A daemon that
 * drips its answers therefore ends the diagnosis after the doctor's timeout, however many questions it asks.
 *
 * <p>Concurrency: thread-safe (the published state is read on a thread of its own).
 */
final class Patience {
    /** One question to the daemon, given the time it may take. */
    @FunctionalInterface
    interface Question<T> {
        T ask(Duration within) throws IOException, InterruptedException;
    }

    private final Duration total;
    private final AtomicLong spentNanos = new AtomicLong();

    Patience(Duration total) {
        this.total = total;
    }

    /**
     * Asks {@code q} with what is left of the patience, and spends the time it took.
     *
     * @throws IOException when nothing is left (naming the daemon at {@code base}), or what {@code q} threw
     */
    <T> T ask(URI base, Question<T> q) throws IOException, InterruptedException {
        Duration left = total.minusNanos(spentNanos.get());
        if (left.isNegative() || left.isZero()) {
            throw new IOException("the daemon at " + base + " took all of " + BoundedRead.seconds(total)
                    + " to answer the doctor's questions");
        }
        long t0 = System.nanoTime();
        try {
            return q.ask(left);
        } catch (IOException e) {
            BoundedRead.Exceeded x = BoundedRead.Exceeded.in(e);
            if (x != null && x.bound() == BoundedRead.Exceeded.Bound.DEADLINE) { // the bound was the whole, not what was left
                throw new IOException("the daemon at " + base + " did not finish answering the doctor within "
                        + BoundedRead.seconds(total) + " (" + x.getMessage() + "); it is overloaded, its network"
                        + " stalls, or it is no kiln serve: retry, or allow it longer (--timeout)", e);
            }
            throw e;
        } finally {
            spentNanos.addAndGet(System.nanoTime() - t0);
        }
    }
}
