package dev.kiln.core;

import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.serve.client.ServeLock;
import dev.kiln.core.engine.OwnershipChanged;
import dev.kiln.core.serve.WorkspaceOwnership;
import dev.kiln.core.archive.ArchiveCache;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.watch.WatchStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import dev.kiln.core.projection.Projector;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One workspace, wired: its settings, one event bus every capability publishes to, and the capabilities
 * themselves. The console embeds one of these; the daemon and the CLI build the parts they need.
 *
 * <p>Nothing in {@code core} depends on this class, so it can see every capability without forming a cycle.
 *
 * <p>Concurrency: the capabilities are made once and are thread-safe themselves; who writes the workspace (own
 * daemon, follower, neither) is {@link WorkspaceOwnership}'s alone, whose readers never block.
 */
public final class Kiln implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Kiln.class);
    private final WorkspaceLayout layout;
    private final WorkspaceSettings settings;
    private final EventBus events;
    private final Clock clock;
    /** How long a console following another daemon waits before reconnecting to its events. */
    private static final Duration FOLLOW_RETRY = Duration.ofSeconds(2);
    private final WorkspaceOwnership ownership;
    private final ArchiveCache archives;
    private final SeedCaches seeds;
    private final dev.kiln.core.engine.WorkspaceActions actions;
    private final dev.kiln.core.engine.Engine engine;

    private Kiln(WorkspaceLayout layout, WorkspaceSettings settings, EventBus events, Clock clock) {
        this.layout = layout;
        this.settings = settings;
        this.events = events;
        this.clock = clock;
        Projector own = Projector.builder(layout).clock(clock).events(events).build();
        this.ownership = WorkspaceOwnership.of(layout, own, () -> ProjectionDaemon.builder(layout).clock(clock).events(events)
                .holder(ServeLock.Kind.CONSOLE)
                .pacing(new ChangePacer.Settings(Duration.ofMillis(Math.min(100, settings.interval().toMillis())),
                        settings.interval(), settings.heartbeat()))
                .reconcile(settings.reconcile()).bind(settings.apiBindFor(null, layout.root(), LOG::warn)).port(0)
                .archiveStats(() -> archives().stats()).actions(actions(), events), events, clock, FOLLOW_RETRY);
        this.archives = ArchiveCache.builder().maximumBytes(settings.archiveCacheMaxBytes()).eventSink(events).clock(clock).build();
        this.seeds = SeedCaches.builder(layout.root()).settings(settings).clock(clock).events(events).build();
        this.actions = new dev.kiln.core.engine.WorkspaceActions(layout, settings, archives, seeds, events, clock);
        this.engine = new LocalEngine(this, actions);
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

    /**
     * This workspace as an {@link dev.kiln.core.engine.Engine} in this process: what the console's view models use,
     * exactly as they use a daemon's. Closing it closes this {@code Kiln}.
     */
    public dev.kiln.core.engine.Engine engine() {
        return engine;
    }

    /**
     * The environment the object store's AWS credential chain is read from (default: this process's). Tests and tools
     * that run a store of their own give one; nothing reads credentials from a workspace file.
     */
    public Kiln storeEnvironment(java.util.Map<String, String> environment) {
        actions.storeEnvironment(environment);
        return this;
    }

    /** The actions an owned daemon's API runs: the same as this process's engine, so both see one archive cache. */
    private dev.kiln.core.engine.WorkspaceActions actions() {
        return actions;
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

    /** Who writes this workspace: the console drives it (off the UI thread) and renders its events. */
    public WorkspaceOwnership ownership() {
        return ownership;
    }

    /**
     * The workspace's projector, on which ticks are serialized (see {@link WorkspaceOwnership#projector()}): answers
     * from memory, so it is safe on the UI thread.
     */
    public Projector projector() {
        return ownership.projector();
    }

    /** The {@code kiln serve} of another process this one follows right now, if any (from memory: no file read). */
    public Optional<ServeLock.Holder> follows() {
        WorkspaceOwnership.State s = ownership.state();
        return s.mode() == OwnershipChanged.Mode.FOLLOW ? s.holder() : Optional.empty();
    }

    /**
     * Starts the change-driven projector for this workspace (watcher, pacer, heartbeat, API on a free loopback
     * port), or follows another process's {@code kiln serve} that owns it; see {@link WorkspaceOwnership#start()}.
     * Blocks while the daemon starts: not for the UI thread.
     *
     * @return why this process does not own the workspace, or empty when it does
     */
    public Optional<String> startLive() {
        return ownership.start();
    }

    /**
     * Runs a manual projection and waits for it (see {@link WorkspaceOwnership#projectNow()}). The tick arrives as a
     * {@link dev.kiln.core.projection.TickFinished} event either way.
     */
    public void projectNow() throws IOException, InterruptedException {
        ownership.projectNow();
    }

    /** The live projector's watch status, when it runs. */
    public Optional<WatchStatus> watchStatus() {
        return ownership.watchStatus();
    }

    /** Where the live projector's API listens, when it runs. */
    public Optional<String> apiUrl() {
        WorkspaceOwnership.State s = ownership.state();
        return s.mode() == OwnershipChanged.Mode.OWN ? Optional.of(s.apiUrl()) : Optional.empty();
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
    public void close() {
        actions.close();
        ownership.close();
    }
}
