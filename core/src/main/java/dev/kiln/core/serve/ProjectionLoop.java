package dev.kiln.core.serve;

import dev.kiln.core.projection.DaemonMetrics;
import dev.kiln.core.projection.TickRecord;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.watch.ChangeDomain;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.watch.ChangeWatcher;
import dev.kiln.core.telemetry.Ticker;
import dev.kiln.core.watch.WatchStatus;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's projector thread: a {@link ChangePacer} decides when, this loop sleeps until then, drains what the
 * {@link ChangeWatcher} reported and runs one {@link Projection} tick — incremental (only the named paths) while
 * the watch is live, a full enumeration at start, after the watch is (re)established, whenever events may have
 * been lost, on manual request, and at least every {@code reconcile} interval. It keeps the instrumentation:
 * projection count, count per wake reason, the last tick, and a bounded history.
 *
 * <p>Concurrency: watcher threads call the {@link ChangeWatcher.Listener} methods, HTTP threads call
 * {@link #requestManual()} and {@link #metrics()}; pacer and pending changes are guarded by one lock, and the
 * tick itself runs outside it on the loop thread, one at a time.
 */
final class ProjectionLoop implements ChangeWatcher.Listener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProjectionLoop.class);
    /** Ticks kept in the history. */
    static final int HISTORY = 500;

    /** One projection tick, as the loop asks for it. */
    @FunctionalInterface
    interface Projection {
        /**
         * Projects.
         *
         * @param reason why it runs
         * @param changes what the watcher named since the last tick
         * @param full whether to enumerate everything instead of applying {@code changes}
         */
        TickOutcome project(WakeReason reason, ChangeSet changes, boolean full) throws Exception;
    }

    /**
     * What a tick reports back.
     *
     * @param revision the projection's revision after the tick
     * @param changed whether the revision advanced
     * @param counters the tick's parse counters (enumerated, parsed, reused, …)
     */
    record TickOutcome(long revision, boolean changed, Map<String, Long> counters) {
        public TickOutcome {
            counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters));
        }
    }

    private final Ticker ticker;
    private final Clock clock;
    private final ChangePacer pacer;
    private final long reconcileNanos;
    private final Projection projection;
    /** Told of every finished tick, on the loop thread, outside the lock (the daemon's Prometheus metrics). */
    private final java.util.function.Consumer<TickRecord> onTick;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private final ChangeSet.Builder pending = new ChangeSet.Builder();
    private final List<CompletableFuture<TickRecord>> manualWaiters = new ArrayList<>();
    private final EnumMap<WakeReason, Long> byReason = new EnumMap<>(WakeReason.class);
    private final ArrayDeque<TickRecord> history = new ArrayDeque<>();
    private final Thread thread;
    private volatile boolean closed;
    private long projections;
    private long lastFull = Long.MIN_VALUE;
    private boolean everFull;

    ProjectionLoop(Ticker ticker, Clock clock, ChangePacer.Settings settings, Duration reconcile, Projection projection) {
        this(ticker, clock, settings, reconcile, projection, r -> { });
    }

    ProjectionLoop(Ticker ticker, Clock clock, ChangePacer.Settings settings, Duration reconcile, Projection projection,
            java.util.function.Consumer<TickRecord> onTick) {
        this.onTick = Objects.requireNonNull(onTick, "onTick");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.pacer = new ChangePacer(ticker, settings);
        if (reconcile.isNegative() || reconcile.isZero()) {
            throw new IllegalArgumentException("reconcile interval must be positive, got " + reconcile);
        }
        this.reconcileNanos = reconcile.toNanos();
        this.projection = Objects.requireNonNull(projection, "projection");
        for (WakeReason r : WakeReason.values()) {
            byReason.put(r, 0L);
        }
        this.thread = new Thread(this::run, "kiln-projector");
        this.thread.setDaemon(true);
    }

    /** Starts the loop thread; the first tick (startup, full) runs at once. */
    ProjectionLoop start() {
        thread.start();
        return this;
    }

    @Override
    public void onChange(ChangeDomain domain, Path path) {
        lock.lock();
        try {
            pending.add(domain, path);
            pacer.onChange();
            wake.signal();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void onLive(WatchStatus status) {
        lock.lock();
        try {
            pacer.onLive();
            wake.signal();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void onDegraded(WatchStatus status) {
        lock.lock();
        try {
            pacer.onDegraded();
            pending.everything(); // events may have been lost
            wake.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Asks for a projection (full); the future completes with the tick that covered the request. */
    CompletableFuture<TickRecord> requestManual() {
        CompletableFuture<TickRecord> f = new CompletableFuture<>();
        lock.lock();
        try {
            if (closed) {
                f.completeExceptionally(new IllegalStateException("the projector is shutting down"));
                return f;
            }
            manualWaiters.add(f);
            pacer.requestManual();
            wake.signal();
        } finally {
            lock.unlock();
        }
        return f;
    }

    DaemonMetrics metrics() {
        lock.lock();
        try {
            return new DaemonMetrics(projections, Collections.unmodifiableMap(new EnumMap<>(byReason)),
                    Optional.ofNullable(history.peekLast()), List.copyOf(history), pacer.isLive());
        } finally {
            lock.unlock();
        }
    }

    /** Stops the loop; a tick in progress finishes first, so the state file is never left half-written. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            wake.signal();
        } finally {
            lock.unlock();
        }
        if (thread.isAlive() && Thread.currentThread() != thread) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        lock.lock();
        try {
            manualWaiters.forEach(f -> f.completeExceptionally(new IllegalStateException("the projector shut down")));
            manualWaiters.clear();
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        while (true) {
            WakeReason reason;
            ChangeSet changes;
            boolean full;
            List<CompletableFuture<TickRecord>> waiters;
            lock.lock();
            try {
                if (closed) {
                    return;
                }
                long wait = pacer.nanosUntilDue();
                if (wait > 0) {
                    wake.awaitNanos(wait);
                    continue;
                }
                Optional<WakeReason> due = pacer.poll();
                if (due.isEmpty()) {
                    continue;
                }
                reason = due.get();
                changes = pending.drain();
                long now = ticker.read();
                full = !everFull || (reason != WakeReason.CHANGE && reason != WakeReason.HEARTBEAT) || changes.everything()
                        || !pacer.isLive() || now - lastFull >= reconcileNanos;
                waiters = new ArrayList<>(manualWaiters);
                manualWaiters.clear();
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            TickRecord rec = tick(reason, changes, full);
            try {
                onTick.accept(rec);
            } catch (RuntimeException e) {
                LOG.warn("A tick listener failed; the projection goes on", e);
            }
            waiters.forEach(f -> f.complete(rec));
        }
    }

    /** The last tick's error ("" when it did not fail), touched only by the loop's thread. */
    private String lastSaid = "";

    private TickRecord tick(WakeReason reason, ChangeSet changes, boolean full) {
        Instant at = clock.instant();
        long t0 = ticker.read();
        TickOutcome out = null;
        String error = "";
        try {
            out = projection.project(reason, changes, full);
        } catch (dev.kiln.core.workspace.WorkspaceException e) {
            // a named condition of the workspace (its root gone): its message says what to do; no stack, said once
            error = e.getMessage() == null ? e.toString() : e.getMessage();
            if (!error.equals(lastSaid)) {
                LOG.error("Projection tick ({}) failed: {}", reason.jsonName(), error);
            }
        } catch (Exception | Error e) {
            error = e.toString();
            LOG.error("Projection tick ({}) failed: {}. The next tick re-enumerates everything.", reason.jsonName(), e, e);
        }
        lastSaid = error;
        long t1 = ticker.read();
        lock.lock();
        try {
            if (out != null && full) {
                lastFull = t0;
                everFull = true;
            } else if (out == null) {
                everFull = false; // after a failure, trust nothing incremental
            }
            projections++;
            byReason.merge(reason, 1L, Long::sum);
            TickRecord rec = new TickRecord(projections, reason, full, at, t1 - t0, changes.size(),
                    out == null ? -1 : out.revision(), out != null && out.changed(), out == null ? Map.of() : out.counters(), error);
            history.addLast(rec);
            while (history.size() > HISTORY) {
                history.removeFirst();
            }
            return rec;
        } finally {
            lock.unlock();
        }
    }
}
