package dev.kiln.core.serve.client;

import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
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
 * <p>Concurrency: the {@link EventStream}'s reader thread reads the stream and ticks; {@link #close()} (any thread)
 * sets {@code closed} and closes the reader, which unblocks the read and joins (a tick in progress finishes: the
 * thread is not interrupted, since an interrupt closes the file channels a tick reads through). {@code onEnded} runs
 * on the follow thread, so
 * whoever closes this must not hold a lock that {@code onEnded} takes.
 */
public final class DaemonFollower implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DaemonFollower.class);

    private final WorkspaceLayout layout;
    private final Projector projector;
    private final EventSink events;
    private final Clock clock;
    private final Runnable onEnded;
    private volatile boolean closed;
    private volatile @Nullable EventStream reader;
    private boolean announced; // confined to the reader's thread
    private @Nullable WakeReason due; // confined to the reader's thread
    private volatile ServeLock.@Nullable Holder followed;

    private DaemonFollower(WorkspaceLayout layout, Projector projector, EventSink events, Clock clock, Runnable onEnded) {
        if (!projector.readOnly()) {
            throw new IllegalArgumentException("a follower ticks a read-only projector: the daemon owns state.json");
        }
        this.layout = layout;
        this.projector = projector;
        this.events = events;
        this.clock = clock;
        this.onEnded = onEnded;
    }

    /**
     * Starts following the daemon that owns {@code layout}'s workspace.
     *
     * @param projector a {@linkplain Projector.Builder#readOnly() read-only} projector of that workspace
     * @param retry how long to wait before reconnecting after the stream broke
     * @param onEnded run on the follow thread once no process holds the lock any more, before {@link FollowChanged}
     */
    public static DaemonFollower start(WorkspaceLayout layout, Projector projector, EventSink events, Clock clock,
            Duration retry, Runnable onEnded) {
        DaemonFollower f = new DaemonFollower(Objects.requireNonNull(layout), Objects.requireNonNull(projector),
                Objects.requireNonNull(events), Objects.requireNonNull(clock), Objects.requireNonNull(onEnded));
        Objects.requireNonNull(retry, "retry");
        // A tick's data only (a snapshot's is the whole state); the stream's other events (warm lines, probe steps)
        // are not this follower's concern. The lock is read anew at each connection: a restarted daemon may listen
        // on another port.
        f.reader = EventStream.of(f::open).backoff(retry, retry).name("kiln-follow")
                .keepData(event -> Wire.eventType(event) == TickFinished.class).start(f.new Listener());
        return f;
    }

    /** One connection to whoever holds the lock now; {@link EventStream.Ended} once nobody does. */
    private EventStream.Opened open(@Nullable String lastEventId, boolean backfill) throws IOException, InterruptedException {
        Optional<ServeLock.Holder> owner = ServeLock.holder(layout);
        if (owner.isEmpty()) {
            throw new EventStream.Ended("kiln serve stopped; nobody owns " + layout.root() + " now");
        }
        ServeLock.Holder h = owner.get();
        followed = h;
        if (h.url() == null) {
            throw new IOException(h.describe() + " holds the lock but its API is not listening yet");
        }
        // a daemon bound beyond loopback wants the token for reads too; on loopback it is optional (ServeClient's)
        return EventStream.open(ServeClient.of(layout).orElseThrow(() -> new EventStream.Ended(
                "kiln serve stopped; nobody owns " + layout.root() + " now")), lastEventId, backfill, "");
    }

    /**
     * One read-only tick per tick of the daemon, with the daemon's reason: one that made a revision and one that
     * changed nothing (a heartbeat, a manual request) alike, so that this process's view ages with the daemon's
     * projections and shows the tick a "Project now" caused there. A delta waits for its tick's frame, which follows
     * it; a snapshot (at connect) is looked at at once. Frames already waiting are covered by one tick. Every frame
     * is bounded: a daemon that sends no newline breaks the stream, which reconnects.
     */
    private final class Listener implements EventStream.Listener {
        @Override
        public void frame(EventStream.Frame f) {
            if (f.event().equals(Wire.SNAPSHOT) && due == null) {
                due = WakeReason.CHANGE;
            } else if (Wire.eventType(f.event()) == TickFinished.class) {
                due = reasonOf(f.text());
            }
            WakeReason d = due;
            if (d != null && !f.more() && !closed) { // several ticks already waiting: one tick covers them all
                tick(d);
                due = null;
            }
        }

        @Override
        public void connected(boolean first) {
            due = null;
            ServeLock.Holder h = followed;
            if (!announced && h != null) {
                announced = true;
                events.publish(new FollowChanged(clock.instant(), true, false, "following " + h.name()
                        + ": it owns state.json; each of its ticks is mirrored here, read-only"));
            }
        }

        @Override
        public void broke(String why, Duration retryIn) {
            LOG.debug("Lost the followed daemon's events: {}", why);
            ServeLock.Holder h = followed;
            if (!closed && announced) {
                announced = false;
                events.publish(new FollowChanged(clock.instant(), false, false,
                        "lost " + (h == null ? "the daemon" : h.describe()) + "; reconnecting"));
            }
        }

        @Override
        public void ended(String why) {
            onEnded.run();
            events.publish(new FollowChanged(clock.instant(), false, true, why));
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

    /**
     * Asks the followed daemon for a manual projection and waits for its answer; its revision then arrives here like
     * any other. See {@link ServeClient#project()}.
     */
    public void requestProjection() throws IOException, InterruptedException {
        ServeClient.of(layout).orElseThrow(() -> new IOException("no kiln serve owns " + layout.root() + " any more"))
                .project();
    }

    /** Whether it still follows (or reconnects); false once the daemon stopped or this was closed. */
    public boolean running() {
        EventStream r = reader;
        return r != null && r.running() && !closed;
    }

    /**
     * Stops following; returns once the follow thread is done (a tick in progress finishes: the thread is not
     * interrupted, since an interrupt closes the file channels a tick reads through).
     */
    @Override
    public void close() {
        closed = true;
        EventStream r = reader;
        if (r != null) {
            r.close();
        }
    }
}
