package dev.kiln.core.startup;

import dev.kiln.core.telemetry.Ticker;
import dev.kiln.core.telemetry.EventSink;
import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Collects one server's timeline as its threads observe steps, and publishes each step once.
 *
 * <p>Concurrency: written by the handshake thread, the stdout and stderr readers and the process-exit callback;
 * every step is a write-once {@link AtomicLong} (ticker nanos, {@link #UNSET} until seen).
 */
final class Recorder {
    static final long UNSET = Long.MIN_VALUE;

    final String server;
    final int run;
    private final long origin;
    private final Ticker ticker;
    private final Clock clock;
    private final EventSink events;
    final AtomicLong spawn = new AtomicLong(UNSET);
    final AtomicLong firstStdout = new AtomicLong(UNSET);
    final AtomicLong firstStderr = new AtomicLong(UNSET);
    final AtomicLong initialized = new AtomicLong(UNSET);
    final AtomicLong toolsListed = new AtomicLong(UNSET);
    final AtomicLong exit = new AtomicLong(UNSET);
    /** A fetching launcher handed off to the server (see {@link FetchWatch}). */
    final AtomicLong fetchEnd = new AtomicLong(UNSET);

    Recorder(String server, int run, long origin, Ticker ticker, Clock clock, EventSink events) {
        this.server = server;
        this.run = run;
        this.origin = origin;
        this.ticker = ticker;
        this.clock = clock;
        this.events = events;
    }

    long now() {
        return ticker.read();
    }

    void spawned(long pid) {
        spawned(pid, now());
    }

    /** The spawn happened at {@code at}: taken before the OS call, as a client's timeout window starts there. */
    void spawned(long pid, long at) {
        if (spawn.compareAndSet(UNSET, at)) {
            publish(new ProbeEvent.Spawned(clock.instant(), server, run, offsetOfSet(spawn), pid));
        }
    }

    void firstOutput(boolean stderr) {
        firstOutput(stderr, now());
    }

    void firstOutput(boolean stderr, long at) {
        AtomicLong step = stderr ? firstStderr : firstStdout;
        if (step.get() == UNSET && step.compareAndSet(UNSET, at)) {
            publish(new ProbeEvent.FirstOutput(clock.instant(), server, run, offsetOfSet(step), stderr));
        }
    }

    void fetchEnded(long at) {
        fetchEnd.compareAndSet(UNSET, at);
    }

    void initialized(String protocolVersion, long at) {
        if (initialized.compareAndSet(UNSET, at)) {
            publish(new ProbeEvent.Initialized(clock.instant(), server, run, offsetOfSet(initialized),
                    Objects.requireNonNull(sinceSpawn(initialized), "an answer comes after the spawn (stdio) or the first request (HTTP)"),
                    protocolVersion));
        }
    }

    void toolsListed(int tools, long at) {
        if (toolsListed.compareAndSet(UNSET, at)) {
            publish(new ProbeEvent.ToolsListed(clock.instant(), server, run, offsetOfSet(toolsListed), tools));
        }
    }

    /** Synchronized with {@link #finished}: the exit seen by the process callback is published before the outcome. */
    synchronized void exited(int code) {
        if (exit.compareAndSet(UNSET, now())) {
            publish(new ProbeEvent.Exited(clock.instant(), server, run, offsetOfSet(exit), code));
        }
    }

    synchronized void finished(ServerResult result) {
        publish(new ProbeEvent.Finished(clock.instant(), server, run, result));
    }

    /** {@link #offset} of a step this thread has just set. */
    private double offsetOfSet(AtomicLong step) {
        return (step.get() - origin) / 1e6;
    }

    @Nullable Double offset(AtomicLong step) {
        long v = step.get();
        return v == UNSET ? null : (v - origin) / 1e6;
    }

    @Nullable Double sinceSpawn(AtomicLong step) {
        long v = step.get();
        long s = spawn.get();
        return v == UNSET || s == UNSET ? null : (v - s) / 1e6;
    }

    Timeline timeline() {
        return new Timeline(offset(spawn), offset(firstStdout), offset(firstStderr), offset(initialized),
                offset(toolsListed), offset(exit), offset(fetchEnd));
    }

    private void publish(ProbeEvent e) {
        try {
            events.publish(e);
        } catch (RuntimeException ignored) {
            // A broken listener must not change a server's outcome; EventBus already logs its subscribers' failures.
        }
    }
}
