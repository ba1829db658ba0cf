package dev.kiln.core;

import dev.kiln.core.archive.ArchiveCache;
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
    private final Projector projector;
    private final ArchiveCache archives;
    private final SeedCaches seeds;

    private Kiln(WorkspaceLayout layout, WorkspaceSettings settings, EventBus events, Clock clock) {
        this.layout = layout;
        this.settings = settings;
        this.events = events;
        this.clock = clock;
        this.projector = Projector.builder(layout).clock(clock).events(events).build();
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

    /** The workspace's projector; ticks are serialized on it. */
    public Projector projector() {
        return projector;
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
        // Capabilities that hold threads or processes are closed here as they are wired in.
    }
}
