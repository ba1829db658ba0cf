package dev.kiln.core.serve;

import dev.kiln.core.telemetry.Ticker;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API server's executor: a fixed number of threads, a bounded queue, and a deadline for reading a request's
 * head.
 *
 * <p>Why: the JDK server reads a request's line and headers on the executor's thread, before any handler runs, and
 * with no deadline of its own (its {@code sun.net.httpserver.maxReqTime} is JVM-wide and off by default). A client
 * that sends half a request and waits holds that thread for good; a thousand of them made a thousand threads.
 *
 * <ul>
 *   <li>A task that has not reached the handler ({@link #headRead()}) within the request timeout is interrupted.
 *       Its thread is blocked reading an interruptible channel, so the interrupt closes the channel: the read fails
 *       and the server closes the connection.
 *   <li>While tasks wait in the queue, the deadline shortens to {@code shedAfter}: under a flood of half-sent
 *       requests a real one (whose head arrives at once) still gets a thread soon.
 *   <li>A task the full queue cannot take is refused; the JDK server then closes that connection at once
 *       ({@code Dispatcher.handle} catches the {@link RejectedExecutionException}), so no thread is made for it.
 * </ul>
 *
 * <p>Concurrency: each task has a {@link Slot}, shared by its worker and the thread that calls {@link #sweep()}. The slot's monitor
 * orders "the head was read" against "the deadline passed": the sweeper interrupts a worker only while that worker
 * is still reading the same request's head, never a later task of the same thread.
 */
final class RequestPool implements Executor, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RequestPool.class);
    private static final ThreadLocal<Slot> CURRENT = new ThreadLocal<>();

    /** One task's progress: reading its head until {@link #headRead()} or the deadline. */
    private static final class Slot {
        private final Thread worker;
        private final long since;
        private boolean reading = true;
        private boolean expired;

        Slot(Thread worker, long since) {
            this.worker = worker;
            this.since = since;
        }

        /** The head was read: from now on the request is the handler's. False when the deadline came first. */
        synchronized boolean headRead() {
            reading = false;
            return !expired;
        }

        synchronized void finish() {
            reading = false;
        }

        synchronized boolean expire() {
            if (!reading) {
                return false;
            }
            reading = false;
            expired = true;
            worker.interrupt();
            return true;
        }
    }

    private final ThreadPoolExecutor pool;
    private final Ticker ticker;
    private final long timeoutNanos;
    private final long shedNanos;
    private final Set<Slot> reading = ConcurrentHashMap.newKeySet();
    private final AtomicLong timedOut = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    /**
     * @param threads worker threads (at most this many ever exist)
     * @param queue tasks that may wait for a worker
     * @param timeout time to read a request's head
     * @param shedAfter that time while tasks wait for a worker
     */
    RequestPool(int threads, int queue, Duration timeout, Duration shedAfter, Ticker ticker, ThreadFactory factory) {
        this.ticker = ticker;
        this.timeoutNanos = timeout.toNanos();
        this.shedNanos = Math.min(timeoutNanos, shedAfter.toNanos());
        this.pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queue), factory,
                (task, executor) -> {
                    throw new RejectedExecutionException("busy");
                });
        pool.allowCoreThreadTimeOut(true); // idle workers go away; the bound is what matters
    }

    /** How often {@link #sweep()} should run for the deadlines to hold. */
    Duration sweepPeriod() {
        return Duration.ofNanos(Math.max(TimeUnit.MILLISECONDS.toNanos(20), Math.min(shedNanos / 2, TimeUnit.SECONDS.toNanos(1))));
    }

    /**
     * Called by the handler first: the request's head was read in time. False when its deadline passed (the
     * connection is being closed; the handler must not answer).
     */
    static boolean headRead() {
        Slot s = CURRENT.get();
        return s == null || s.headRead();
    }

    @Override
    public void execute(Runnable task) {
        try {
            pool.execute(() -> run(task));
        } catch (RejectedExecutionException e) {
            refused.incrementAndGet();
            LOG.debug("API busy: refused a connection ({} queued)", pool.getQueue().size());
            throw e;
        }
    }

    private void run(Runnable task) {
        Slot s = new Slot(Thread.currentThread(), ticker.read());
        CURRENT.set(s);
        reading.add(s);
        try {
            task.run();
        } finally {
            s.finish();
            reading.remove(s);
            CURRENT.remove();
            Thread.interrupted(); // an interrupt meant for this task must not reach the next one
        }
    }

    /** Interrupts the tasks whose head did not arrive in time; run every {@link #sweepPeriod()}. */
    void sweep() {
        long now = ticker.read();
        long limit = pool.getQueue().isEmpty() ? timeoutNanos : shedNanos;
        for (Slot s : reading) {
            if (now - s.since >= limit && s.expire()) {
                timedOut.incrementAndGet();
                LOG.debug("API request head not read within {} ms: connection closed", limit / 1_000_000);
            }
        }
    }

    /** Requests closed because their head did not arrive in time. */
    long timedOut() {
        return timedOut.get();
    }

    /** Connections refused because every worker was busy and the queue full. */
    long refused() {
        return refused.get();
    }

    @Override
    public void close() {
        pool.shutdownNow();
        try {
            pool.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
