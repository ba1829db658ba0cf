package dev.kiln.core.serve;

import dev.kiln.core.http.BoundedRead;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a read-only {@link Projector} in step with another process's {@code kiln serve}: it listens to the daemon's
 * {@code /api/events} and runs one read-only tick per tick the daemon runs (with its reason: a heartbeat, a manual
 * request, a change), so a console beside the daemon stays live, and ages with the daemon's projections, without
 * writing anything or watching the tree a second time.
 *
 * <p>When the stream breaks it reconnects (the daemon may have restarted on another port: the lock file says
 * where). When no process holds the workspace's lock any more it publishes {@link FollowChanged} with
 * {@code ended} and stops: whoever started it may take the workspace over (it is told first, through
 * {@code onEnded}, so that by the time the event is seen the owner knows).
 *
 * <p>Concurrency: one thread of its own reads the stream and ticks; {@link #close()} (any thread) sets
 * {@code closed}, closes the stream to unblock the read and joins. {@code onEnded} runs on the follow thread, so
 * whoever closes this must not hold a lock that {@code onEnded} takes.
 */
final class DaemonFollower implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DaemonFollower.class);

    private final WorkspaceLayout layout;
    private final Projector projector;
    private final EventSink events;
    private final Clock clock;
    private final Duration retry;
    private final Thread thread;
    private final Runnable onEnded;
    private volatile boolean closed;
    private volatile InputStream stream;

    private DaemonFollower(WorkspaceLayout layout, Projector projector, EventSink events, Clock clock, Duration retry,
            Runnable onEnded) {
        if (!projector.readOnly()) {
            throw new IllegalArgumentException("a follower ticks a read-only projector: the daemon owns state.json");
        }
        this.layout = layout;
        this.projector = projector;
        this.events = events;
        this.clock = clock;
        this.retry = retry;
        this.onEnded = onEnded;
        this.thread = new Thread(this::run, "kiln-follow");
        this.thread.setDaemon(true);
    }

    /**
     * Starts following the daemon that owns {@code layout}'s workspace.
     *
     * @param projector a {@linkplain Projector.Builder#readOnly() read-only} projector of that workspace
     * @param retry how long to wait before reconnecting after the stream broke
     * @param onEnded run on the follow thread once no process holds the lock any more, before {@link FollowChanged}
     */
    static DaemonFollower start(WorkspaceLayout layout, Projector projector, EventSink events, Clock clock,
            Duration retry, Runnable onEnded) {
        DaemonFollower f = new DaemonFollower(Objects.requireNonNull(layout), Objects.requireNonNull(projector),
                Objects.requireNonNull(events), Objects.requireNonNull(clock), Objects.requireNonNull(retry),
                Objects.requireNonNull(onEnded));
        f.thread.start();
        return f;
    }

    private void run() {
        boolean announced = false;
        while (!closed) {
            Optional<ServeLock.Holder> owner = ServeLock.holder(layout);
            if (owner.isEmpty()) {
                onEnded.run();
                events.publish(new FollowChanged(clock.instant(), false, true,
                        "kiln serve stopped; nobody owns " + layout.root() + " now"));
                return;
            }
            ServeLock.Holder h = owner.get();
            if (h.url() == null) {
                pause(); // it holds the lock but its API is not listening yet
                continue;
            }
            try {
                // the timeout bounds the wait for the answer's head (a daemon that accepted but stopped), not the stream
                HttpRequest.Builder rb = HttpRequest.newBuilder(h.url().resolve(Wire.EVENTS))
                        .header("Accept", Wire.EVENT_STREAM).GET();
                try { // a daemon bound beyond loopback wants the token for reads too; on loopback it is optional
                    rb.header(Wire.AUTHORIZATION, Wire.bearer(ApiToken.read(layout.apiTokenFile()).value()));
                } catch (IOException e) {
                    LOG.debug("No readable API token ({}); following without one", e.getMessage());
                }
                HttpResponse<InputStream> r = BoundedRead.head(ServeClient.httpFor(h), rb, "GET /" + Wire.EVENTS,
                        Duration.ofSeconds(10));
                if (r.statusCode() != 200) {
                    r.body().close();
                    throw new IOException("GET /" + Wire.EVENTS + " answered " + r.statusCode());
                }
                stream = r.body();
                if (!announced) {
                    announced = true;
                    events.publish(new FollowChanged(clock.instant(), true, false, "following " + h.name()
                            + ": it owns state.json; each of its ticks is mirrored here, read-only"));
                }
                read(r.body());
            } catch (IOException e) {
                if (!closed) {
                    LOG.debug("Lost {}'s events: {}", h.describe(), e.getMessage());
                }
            } catch (InterruptedException e) {
                return;
            }
            stream = null;
            if (!closed && announced) {
                announced = false;
                events.publish(new FollowChanged(clock.instant(), false, false,
                        "lost " + h.describe() + "; reconnecting"));
            }
            pause();
        }
    }

    /**
     * One read-only tick per tick of the daemon, with the daemon's reason: one that made a revision and one that
     * changed nothing (a heartbeat, a manual request) alike, so that this process's view ages with the daemon's
     * projections and shows the tick a "Project now" caused there. A delta waits for its tick's frame, which follows
     * it; a snapshot (at connect) is looked at at once. Frames already waiting are covered by one tick. The stream's
     * other events (warm lines, probe steps) are not this follower's concern. Only a tick's data is kept (a
     * snapshot's is the whole state), and every frame is bounded: a daemon that sends no newline breaks the stream,
     * which reconnects.
     */
    private void read(InputStream body) throws IOException {
        try (BoundedRead.Frames in = new BoundedRead.Frames(body, "GET /" + Wire.EVENTS, BoundedRead.STATE,
                event -> Wire.eventType(event) == TickFinished.class, () -> { })) {
            WakeReason due = null;
            for (BoundedRead.Frames.Frame f = in.next(); f != null && !closed; f = in.next()) {
                if (f.event().equals(Wire.SNAPSHOT) && due == null) {
                    due = WakeReason.CHANGE;
                } else if (Wire.eventType(f.event()) == TickFinished.class) {
                    due = reasonOf(new String(f.data(), StandardCharsets.UTF_8));
                }
                if (due != null && !in.ready()) { // several ticks already waiting: one tick covers them all
                    tick(due);
                    due = null;
                }
            }
        }
    }

    /** Why the daemon's tick woke, from its {@code tick} frame; a change when the frame does not say. */
    private static WakeReason reasonOf(String data) {
        try {
            return Wire.read(Wire.JSON.readTree(data), TickFinished.class).result().reason();
        } catch (IOException | RuntimeException e) {
            LOG.debug("A tick frame without a readable reason ({}); mirrored as a change", e.getMessage());
            return WakeReason.CHANGE;
        }
    }

    private void tick(WakeReason reason) {
        try {
            projector.tick(reason);
        } catch (RuntimeException e) {
            LOG.error("A follow tick failed: {}", e.toString());
        }
    }

    private synchronized void pause() {
        try {
            if (!closed) {
                wait(retry.toMillis());
            }
        } catch (InterruptedException e) {
            closed = true;
        }
    }

    /**
     * Asks the followed daemon for a manual projection and waits for its answer; its revision then arrives here like
     * any other. See {@link ServeClient#project()}.
     */
    void requestProjection() throws IOException, InterruptedException {
        ServeClient.of(layout).orElseThrow(() -> new IOException("no kiln serve owns " + layout.root() + " any more"))
                .project();
    }

    /** Whether it still follows (or reconnects); false once the daemon stopped or this was closed. */
    boolean running() {
        return thread.isAlive() && !closed;
    }

    /**
     * Stops following; returns once the follow thread is done (a tick in progress finishes: the thread is not
     * interrupted, since an interrupt closes the file channels a tick reads through).
     */
    @Override
    public void close() {
        closed = true;
        InputStream s = stream;
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // closing is all we wanted
            }
        }
        synchronized (this) {
            notifyAll();
        }
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
