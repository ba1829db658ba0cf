package dev.kiln.core.serve;

import dev.kiln.core.engine.OwnershipChanged;
import dev.kiln.core.engine.OwnershipChanged.Mode;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.serve.client.DaemonFollower;
import dev.kiln.core.serve.client.ServeLock;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.watch.WatchStatus;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * Who writes this workspace, as seen from one process (a console): one small state machine, so that exactly one
 * process writes {@code observer/state.json} and everybody else follows it.
 *
 * <pre>
 *   IDLE, UNWATCHED, VACANT ──start()──▶ OWN        this process's daemon runs (lock, watcher, loop, API)
 *                                     ├─▶ FOLLOW     another process's kiln serve holds the lock: a read-only
 *                                     │              projector ticks once per tick of that daemon
 *                                     └─▶ UNWATCHED  no daemon here, nobody else: own projector, ticks when asked
 *   IDLE ──onDemand()──▶ UNWATCHED                   no watch wanted (read-only if another process owns it)
 *   FOLLOW ──the followed daemon stops──▶ VACANT     nobody owns it; start() takes it over
 *   any ──close()──▶ CLOSED
 * </pre>
 *
 * Every change of mode is published as an {@link OwnershipChanged} event; nothing here takes over by itself — the
 * owner of this object (the console's view model) calls {@link #start()} again when it sees {@link Mode#VACANT}.
 *
 * <p>Concurrency: transitions ({@link #start()}, {@link #onDemand()}, the follower's end, {@link #close()}) are
 * serialized on this object's monitor and may do file and lock I/O, so call them off the UI thread. Readers
 * ({@link #state()}, {@link #projector()}, {@link #watchStatus()}) read one volatile, immutable {@link State} and
 * never block or touch a file: they are safe on the UI thread. A daemon or follower being replaced is closed
 * outside the monitor, because a follower reports its end on its own thread through that monitor.
 */
public final class WorkspaceOwnership implements AutoCloseable {
    /**
     * One moment of the machine.
     *
     * @param mode who writes
     * @param text what to tell the user (the watch line)
     * @param holder the other process that owns the workspace, in {@link Mode#FOLLOW} (and read-only
     *     {@link Mode#UNWATCHED})
     * @param apiUrl where the owning daemon's API listens (this process's or the followed one), or empty
     */
    public record State(Mode mode, String text, Optional<ServeLock.Holder> holder, String apiUrl) {
        public State {
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(text, "text");
            Objects.requireNonNull(holder, "holder");
            Objects.requireNonNull(apiUrl, "apiUrl");
        }
    }

    private final WorkspaceLayout layout;
    private final Projector own;
    private final Supplier<ProjectionDaemon.Builder> daemons;
    private final EventSink events;
    private final Clock clock;
    private final Duration followRetry;

    // Written only under the monitor, read without it (hence volatile): @GuardedBy("this") for writes.
    /** What readers see; replaced (never mutated) by transitions. */
    private volatile State state;
    /** The projector reads and ticks go to; replaced with {@link #state}. */
    private volatile Projector current;
    /** This process's daemon, in {@link Mode#OWN}. */
    private volatile @Nullable ProjectionDaemon daemon;
    /** The follower, in {@link Mode#FOLLOW}. */
    private volatile @Nullable DaemonFollower follower;
    private @Nullable Projector readOnly; // @GuardedBy("this"); made on first need, kept for every later follow
    /** Tries to own before settling without a watch: an owner that refused us may stop at that very moment. */
    private static final int START_ATTEMPTS = 3;

    private WorkspaceOwnership(WorkspaceLayout layout, Projector own, Supplier<ProjectionDaemon.Builder> daemons,
            EventSink events, Clock clock, Duration followRetry) {
        if (own.readOnly()) {
            throw new IllegalArgumentException("the own projector must be able to write: it is used when nobody else owns the workspace");
        }
        this.layout = layout;
        this.own = own;
        this.daemons = daemons;
        this.events = events;
        this.clock = clock;
        this.followRetry = followRetry;
        this.state = new State(Mode.IDLE, "starting…", Optional.empty(), "");
        this.current = own;
    }

    /**
     * A machine in {@link Mode#IDLE}.
     *
     * @param own this process's projector of the workspace (used when no daemon runs and nobody else owns it)
     * @param daemons a fresh, configured daemon builder per attempt to own the workspace
     * @param followRetry how long a follower waits before reconnecting to the owner's events
     */
    public static WorkspaceOwnership of(WorkspaceLayout layout, Projector own, Supplier<ProjectionDaemon.Builder> daemons,
            EventSink events, Clock clock, Duration followRetry) {
        return new WorkspaceOwnership(Objects.requireNonNull(layout), Objects.requireNonNull(own),
                Objects.requireNonNull(daemons), Objects.requireNonNull(events), Objects.requireNonNull(clock),
                Objects.requireNonNull(followRetry));
    }

    /** The state now (never blocks). */
    public State state() {
        return state;
    }

    /**
     * The projector reads and ticks go to now (never blocks): the own daemon's in {@link Mode#OWN}, a read-only one
     * while another process owns the workspace (two writers of state.json would interleave two revision sequences),
     * else this process's own.
     */
    public Projector projector() {
        return current;
    }

    /** The own daemon's watch status, in {@link Mode#OWN}. */
    public Optional<WatchStatus> watchStatus() {
        ProjectionDaemon d = daemon;
        return d == null ? Optional.empty() : Optional.of(d.watchStatus());
    }

    /**
     * Tries to own the workspace: starts this process's daemon, or, when another process's {@code kiln serve} holds
     * the lock, follows it. Does nothing in {@link Mode#OWN}. Blocks while the daemon starts (lock, token, API,
     * watch): not for the UI thread.
     *
     * @return why this process does not own the workspace now, or empty when it does
     */
    public Optional<String> start() {
        DaemonFollower stale = null;
        try {
            synchronized (this) {
                switch (state.mode()) {
                    case OWN:
                        return Optional.empty();
                    case CLOSED:
                        return Optional.of("closed");
                    default:
                        break;
                }
                for (int attempt = 1;; attempt++) {
                    try {
                        ProjectionDaemon d = daemons.get().start();
                        stale = follower;
                        follower = null;
                        daemon = d;
                        move(new State(Mode.OWN, d.watchStatus().toString(), Optional.empty(), d.url().toString()), d.projector());
                        return Optional.empty();
                    } catch (IOException | RuntimeException e) {
                        Optional<ServeLock.Holder> owner = ServeLock.holder(layout);
                        if (owner.isPresent()) {
                            ServeLock.Holder h = owner.get();
                            if (follower == null || !follower.running()) {
                                stale = follower;
                                DaemonFollower f = DaemonFollower.start(layout, readOnly(), events, clock, followRetry,
                                        this::followEnded);
                                follower = f;
                            }
                            move(new State(Mode.FOLLOW, "following " + h.name()
                                    + ": it owns state.json; each of its ticks is mirrored here, read-only", owner,
                                    h.url() == null ? "" : h.url().toString()), readOnly());
                            return Optional.of(h.describe() + " owns this workspace; this console follows its revisions"
                                    + " and writes nothing");
                        }
                        if (attempt < START_ATTEMPTS) {
                            continue; // refused by an owner that is gone now (it stopped meanwhile): try again
                        }
                        String why = e.getMessage() == null ? e.toString() : e.getMessage();
                        move(new State(Mode.UNWATCHED, "not watching (" + why + "); ticks run when you ask",
                                Optional.empty(), ""), own);
                        return Optional.of(why);
                    }
                }
            }
        } finally {
            if (stale != null) {
                stale.close(); // outside the monitor: its thread may be waiting for it in followEnded
            }
        }
    }

    /**
     * Settles without a watch: ticks run when asked, read-only when another process owns the workspace. Does
     * nothing unless {@link Mode#IDLE}. Reads the lock file: not for the UI thread.
     */
    public synchronized State onDemand() {
        if (state.mode() != Mode.IDLE) {
            return state;
        }
        Optional<ServeLock.Holder> owner = ServeLock.holder(layout);
        if (owner.isPresent()) {
            move(new State(Mode.UNWATCHED, owner.get().describe() + " owns this workspace; ticks here are read-only",
                    owner, owner.get().url() == null ? "" : owner.get().url().toString()), readOnly());
        } else {
            move(new State(Mode.UNWATCHED, "not watching; ticks run when you ask", Optional.empty(), ""), own);
        }
        return state;
    }

    /**
     * Runs a manual projection and waits for it: through the own daemon's loop (so it is published like its other
     * ticks), or, while following, by asking the followed daemon (its revision then reaches the follower as usual),
     * else on {@link #projector()}. In {@link Mode#IDLE} it first settles ({@link #onDemand()}), so that it never
     * writes a workspace another process owns.
     */
    public void projectNow() throws IOException, InterruptedException {
        if (state.mode() == Mode.IDLE) {
            onDemand();
        }
        ProjectionDaemon d = daemon;
        DaemonFollower f = follower;
        if (d != null) {
            try {
                d.projectNow();
            } catch (ExecutionException e) {
                throw new IOException("the projection failed: " + e.getCause(), e.getCause());
            } catch (TimeoutException e) {
                throw new IOException("the projection did not finish within 2 minutes", e);
            }
        } else if (f != null && f.running()) {
            f.requestProjection();
        } else {
            Projector p = current;
            if (!p.readOnly() && ServeLock.holder(layout).isPresent()) {
                p = readOnlyNow(); // a daemon started since this console settled: it is the writer now
            }
            p.tick(WakeReason.MANUAL);
        }
    }

    /** Stops what runs (daemon: lock released, token removed; follower) and flushes the own projector. */
    @Override
    public void close() {
        ProjectionDaemon d;
        DaemonFollower f;
        synchronized (this) {
            if (state.mode() == Mode.CLOSED) {
                return;
            }
            d = daemon;
            f = follower;
            daemon = null;
            follower = null;
            move(new State(Mode.CLOSED, "closed", Optional.empty(), ""), own);
        }
        if (f != null) {
            f.close();
        }
        if (d != null) {
            d.close();
        }
        try {
            own.flush(); // an on-demand tick's document becomes durable before the process exits
        } catch (IOException e) {
            LoggerFactory.getLogger(WorkspaceOwnership.class).error("{}", e.getMessage());
        }
    }

    /** The follower saw no process holding the lock any more (on the follow thread). */
    private void followEnded() {
        synchronized (this) {
            if (state.mode() != Mode.FOLLOW) {
                return; // taken over or closed meanwhile: this end is old news
            }
            follower = null;
            // read-only until start() holds the lock: a new kiln serve may take it first, and must be the only writer
            move(new State(Mode.VACANT, "kiln serve stopped; nobody owns " + layout.root() + " now", Optional.empty(), ""),
                    readOnly());
        }
    }

    /** Settles read-only: another process took the lock after this console settled on its own projector. */
    private synchronized Projector readOnlyNow() {
        Optional<ServeLock.Holder> owner = ServeLock.holder(layout);
        if (state.mode() == Mode.UNWATCHED && owner.isPresent() && !current.readOnly()) {
            move(new State(Mode.UNWATCHED, owner.get().describe() + " owns this workspace; ticks here are read-only",
                    owner, owner.get().url() == null ? "" : owner.get().url().toString()), readOnly());
        }
        return readOnly();
    }

    // @GuardedBy("this")
    private Projector readOnly() {
        if (readOnly == null) {
            readOnly = Projector.builder(layout).clock(clock).events(events).readOnly().build();
        }
        return readOnly;
    }

    // @GuardedBy("this")
    private void move(State next, Projector projector) {
        Mode from = state.mode();
        current = projector;
        state = next;
        events.publish(new OwnershipChanged(clock.instant(), from, next.mode(), next.text(), next.apiUrl()));
    }
}
