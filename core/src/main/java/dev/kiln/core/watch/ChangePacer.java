package dev.kiln.core.watch;

import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.telemetry.Ticker;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Decides <em>when</em> the projector runs (docs/ARCHITECTURE.md, "When to tick"); a loop asks it and sleeps until it is due.
 *
 * <ul>
 *   <li>A burst of changes is projected {@code settle} after its last event, but never later than {@code interval}
 *       after its first event (a continuous stream still gets projected).
 *   <li>Two projections are never closer than {@code interval}, whatever woke them.
 *   <li>With no change, a heartbeat projection runs {@code heartbeat} after the last one (time-derived fields).
 *   <li>Until the watch is live — at start, and after any watcher failure — it is <em>degraded</em>: it projects
 *       every {@code interval} instead of waiting for events. When the watch comes (back) after a tick already
 *       ran, one reconciling projection runs, because inotify has no replay.
 * </ul>
 *
 * <p>Concurrency: every method is {@code synchronized}; the watcher thread reports events while the loop thread
 * polls. Time comes only from the injected {@link Ticker}.
 */
public final class ChangePacer {

    /**
     * The pacing knobs.
     *
     * @param settle quiet time after the last event of a burst
     * @param interval the bound on a burst's delay, the minimum spacing, and the degraded fixed interval
     * @param heartbeat projection period when nothing changes
     */
    public record Settings(Duration settle, Duration interval, Duration heartbeat) {
        public Settings {
            requirePositive(settle, "settle");
            requirePositive(interval, "interval");
            requirePositive(heartbeat, "heartbeat");
            if (settle.compareTo(interval) > 0) {
                throw new IllegalArgumentException("settle (" + settle.toMillis() + " ms) must not exceed interval ("
                        + interval.toMillis() + " ms): a burst is projected at most interval after its first event");
            }
        }

        /** settle 100 ms, interval 1 s, heartbeat 15 s. */
        public static Settings defaults() {
            return new Settings(Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(15));
        }

        public Settings withInterval(Duration d) {
            return new Settings(settle.compareTo(d) > 0 ? d : settle, d, heartbeat);
        }

        public Settings withHeartbeat(Duration d) {
            return new Settings(settle, interval, d);
        }

        private static void requirePositive(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be a positive duration, got " + d);
            }
        }
    }

    private final Ticker ticker;
    private final long settle;
    private final long interval;
    private final long heartbeat;

    // guarded by this (every field below)
    private boolean live;
    private boolean started;
    private long lastTick;
    private boolean burst;
    private long burstFirst;
    private long burstLast;
    private boolean manual;
    private boolean reconcile;

    public ChangePacer(Ticker ticker, Settings settings) {
        this.ticker = ticker;
        this.settle = settings.settle().toNanos();
        this.interval = settings.interval().toNanos();
        this.heartbeat = settings.heartbeat().toNanos();
    }

    /** The watcher reported a change. Ignored while degraded: the fixed interval covers it. */
    public synchronized void onChange() {
        if (!live) {
            return;
        }
        long now = ticker.read();
        if (!burst) {
            burst = true;
            burstFirst = now;
        }
        burstLast = now;
    }

    /** The watch is established; if a projection already ran, the next one reconciles what may have been missed. */
    public synchronized void onLive() {
        if (!live) {
            live = true;
            if (started) {
                reconcile = true;
            }
        }
    }

    /** The watch failed: project on the fixed interval until {@link #onLive()}. */
    public synchronized void onDegraded() {
        live = false;
        burst = false;
    }

    /** An operator asked for a projection; it still honours the minimum spacing. */
    public synchronized void requestManual() {
        manual = true;
    }

    /** Something (a new root, lost events) calls for a full projection soon; it honours the minimum spacing. */
    public synchronized void requestReconcile() {
        reconcile = true;
    }

    public synchronized boolean isLive() {
        return live;
    }

    /** Nanoseconds until the next projection is due; zero or less means now. */
    public synchronized long nanosUntilDue() {
        if (!started) {
            return 0;
        }
        return nextDue() - ticker.read();
    }

    /**
     * If a projection is due now, records it as started and returns why; otherwise empty. Whatever was pending
     * (burst, manual, reconcile) is consumed: the projection that starts now covers it.
     */
    public synchronized Optional<WakeReason> poll() {
        long now = ticker.read();
        WakeReason reason = dueReason(now);
        if (reason == null) {
            return Optional.empty();
        }
        started = true;
        lastTick = now;
        burst = false;
        manual = false;
        reconcile = false;
        return Optional.of(reason);
    }

    private long nextDue() {
        long spaced = lastTick + interval;
        long due = lastTick + heartbeat;
        if (manual || reconcile || !live) {
            due = Math.min(due, spaced);
        }
        if (burst) {
            due = Math.min(due, burstDue(spaced));
        }
        return due;
    }

    private long burstDue(long spaced) {
        return Math.max(Math.min(burstLast + settle, burstFirst + interval), spaced);
    }

    /** The most specific reason due at {@code now}, or null. */
    private @Nullable WakeReason dueReason(long now) {
        if (!started) {
            return WakeReason.STARTUP;
        }
        long spaced = lastTick + interval;
        boolean spacingOk = now - spaced >= 0;
        if (manual && spacingOk) {
            return WakeReason.MANUAL;
        }
        if (reconcile && spacingOk) {
            return WakeReason.RECONCILE;
        }
        if (burst && now - burstDue(spaced) >= 0) {
            return WakeReason.CHANGE;
        }
        if (!live && spacingOk) {
            return WakeReason.DEGRADED;
        }
        if (now - (lastTick + heartbeat) >= 0) {
            return WakeReason.HEARTBEAT;
        }
        return null;
    }
}
