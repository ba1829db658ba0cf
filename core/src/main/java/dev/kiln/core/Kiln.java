package dev.kiln.core;

import dev.kiln.core.api.DaemonFollower;
import dev.kiln.core.api.ProjectionDaemon;
import dev.kiln.core.api.ServeLock;
import dev.kiln.core.archive.ArchiveCache;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.watch.WatchStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerConfigs;
import dev.kiln.core.startup.StartupProbe;
import java.nio.file.Files;
import java.util.List;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import org.slf4j.LoggerFactory;

/**
 * One workspace, wired: its settings, one event bus every capability publishes to, and the capabilities
 * themselves. The console embeds one of these; the daemon and the CLI build the parts they need.
 *
 * <p>Nothing in {@code core} depends on this class, so it can see every capability without forming a cycle.
 */
public final class Kiln implements AutoCloseable {
    private final WorkspaceLayout layout;
    private final WorkspaceSettings settings;
    private final EventBus events;
    private final Clock clock;
    /** How long a console following another daemon waits before reconnecting to its events. */
    private static final Duration FOLLOW_RETRY = Duration.ofSeconds(2);
    private final Projector ownProjector;
    private volatile Projector follower;
    private volatile DaemonFollower following;
    private volatile ProjectionDaemon live;
    private final ArchiveCache archives;
    private final SeedCaches seeds;

    private Kiln(WorkspaceLayout layout, WorkspaceSettings settings, EventBus events, Clock clock) {
        this.layout = layout;
        this.settings = settings;
        this.events = events;
        this.clock = clock;
        this.ownProjector = Projector.builder(layout).clock(clock).events(events).build();
        this.archives = ArchiveCache.builder().maximumBytes(settings.archiveCacheMaxBytes()).eventSink(events).clock(clock).build();
        this.seeds = SeedCaches.builder(layout.root()).settings(settings).clock(clock).events(events).build();
    }

    /**
     * Opens {@code root}.
     *
     * @throws dev.kiln.core.workspace.WorkspaceException when {@code kiln.json} is malformed (the message names
     *     the file and the field)
     */
    public static Kiln open(Path root, EventBus events, Clock clock) {
        WorkspaceLayout layout = WorkspaceLayout.of(root);
        return new Kiln(layout, WorkspaceSettings.read(layout.root()), Objects.requireNonNull(events), Objects.requireNonNull(clock));
    }

    public WorkspaceLayout layout() {
        return layout;
    }

    public WorkspaceSettings settings() {
        return settings;
    }

    /** The bus every capability of this workspace publishes to. */
    public EventBus events() {
        return events;
    }

    public Clock clock() {
        return clock;
    }

    /**
     * The workspace's projector, on which ticks are serialized: the live daemon's once {@link #startLive} succeeded;
     * a read-only one while another process's {@code kiln serve} owns the workspace (two writers of state.json
     * would interleave two revision sequences); else this process's own.
     */
    public Projector projector() {
        ProjectionDaemon d = live;
        if (d != null) {
            return d.projector();
        }
        DaemonFollower following = this.following;
        if (follower != null && following != null && following.running()) {
            return follower; // known without looking at the lock file: this is called on the UI thread
        }
        if (follows().isPresent()) {
            Projector f = follower;
            if (f == null) {
                synchronized (this) {
                    if (follower == null) {
                        follower = Projector.builder(layout).clock(clock).events(events).readOnly().build();
                    }
                    f = follower;
                }
            }
            return f;
        }
        return ownProjector;
    }

    /** The {@code kiln serve} of another process that owns this workspace right now, if any. */
    public Optional<ServeLock.Holder> follows() {
        return live != null ? Optional.empty() : ServeLock.holder(layout);
    }

    /**
     * Starts the change-driven projector for this workspace (watcher, pacer, heartbeat, API on a free loopback
     * port), publishing to this bus. Returns why it could not. When another process's {@code kiln serve} owns the
     * workspace, this follows it instead ({@link DaemonFollower}: one read-only tick per revision it publishes) and
     * publishes {@link dev.kiln.core.api.FollowChanged} events; once that daemon stops, call this again to take over.
     */
    public synchronized Optional<String> startLive() {
        if (live != null) {
            return Optional.empty();
        }
        try {
            live = ProjectionDaemon.builder(layout).clock(clock).events(events)
                    .pacing(new ChangePacer.Settings(Duration.ofMillis(Math.min(100, settings.interval().toMillis())),
                            settings.interval(), settings.heartbeat()))
                    .reconcile(settings.reconcile()).bind(settings.apiBind()).port(0).start();
            if (following != null) {
                following.close();
                following = null;
            }
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            Optional<ServeLock.Holder> owner = ServeLock.holder(layout);
            if (owner.isPresent()) {
                if (following == null || !following.running()) {
                    following = DaemonFollower.start(layout, projector(), events, clock, FOLLOW_RETRY);
                }
                return Optional.of(owner.get().describe() + " owns this workspace; this console follows its revisions"
                        + " and writes nothing");
            }
            return Optional.of(e.getMessage());
        }
    }

    /**
     * Runs a manual projection and waits for it: through the live daemon's loop (so it is published like its other
     * ticks), or, while following another process's {@code kiln serve}, by asking that daemon (its revision then
     * reaches the follower as usual), else on this process's own projector. The tick arrives as a
     * {@link dev.kiln.core.projection.TickFinished} event either way.
     */
    public void projectNow() throws IOException, InterruptedException {
        ProjectionDaemon d;
        DaemonFollower f;
        synchronized (this) {
            d = live;
            f = d == null && following != null && following.running() ? following : null;
        }
        if (d != null) {
            try {
                d.projectNow();
            } catch (ExecutionException e) {
                throw new IOException("the projection failed: " + e.getCause(), e.getCause());
            } catch (TimeoutException e) {
                throw new IOException("the projection did not finish within 2 minutes", e);
            }
        } else if (f != null) {
            f.requestProjection();
        } else {
            projector().tick(WakeReason.MANUAL);
        }
    }

    /** The live projector's watch status, when it runs. */
    public Optional<WatchStatus> watchStatus() {
        ProjectionDaemon d = live;
        return d == null ? Optional.empty() : Optional.of(d.watchStatus());
    }

    /** Where the live projector's API listens, when it runs. */
    public Optional<String> apiUrl() {
        ProjectionDaemon d = live;
        return d == null ? Optional.empty() : Optional.of(d.url().toString());
    }

    /** The source archive cache (validated, bounded by {@code archive_cache_max_bytes}). */
    public ArchiveCache archives() {
        return archives;
    }

    /** The workspace's seed caches (targets under {@code targets/}). */
    public SeedCaches seeds() {
        return seeds;
    }

    /**
     * The MCP servers of {@code servers.json}; none when the file is absent.
     *
     * @throws dev.kiln.core.startup.ServerConfigException naming the file, server and field when it is malformed
     */
    public List<ServerConfig> servers() {
        return Files.exists(layout.serversFile()) ? ServerConfigs.read(layout.serversFile()) : List.of();
    }

    /** A startup probe publishing to this workspace's bus; the caller sets timeout, CPUs and bytecode mode. */
    public StartupProbe.Builder probe() {
        return StartupProbe.builder().events(events).clock(clock);
    }

    @Override
    public synchronized void close() {
        if (following != null) {
            following.close();
            following = null;
        }
        ProjectionDaemon d = live;
        live = null;
        if (d != null) {
            d.close();
        }
        try {
            ownProjector.flush(); // an on-demand tick's document becomes durable before the console exits
        } catch (IOException e) {
            LoggerFactory.getLogger(Kiln.class).error("{}", e.getMessage());
        }
    }
}
