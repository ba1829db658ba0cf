package dev.kiln.core.engine;

import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.time.Clock;

/**
 * One workspace's capabilities as the console uses them, one facet per capability: the {@link #projection()}
 * (snapshots, ticks, the doctor, heal), {@link #seeds()}, {@link #probes()} (the startup probe and bytecode),
 * {@link #archives()} (the archive cache) and {@link #store()} (the object store). The in-process engine
 * ({@code Kiln.engine()}) runs them here; the remote one ({@code dev.kiln.core.serve.client.RemoteEngine}) asks a
 * {@code kiln serve} over {@code /api/v1}. A view model holds an {@code Engine} and cannot tell which it has: the
 * same view-model tests run against both.
 *
 * <p>Each facet but the projection is implemented once per side: in process by {@link WorkspaceActions}' facets
 * (which the daemon's routes call too, so a remote action does on the daemon's host exactly what a local one does),
 * and once over the API; a replay gives read-only ones.
 *
 * <p>Events: every capability's events ({@link dev.kiln.core.projection.TickFinished},
 * {@link dev.kiln.core.watch.WatchChanged}, {@link dev.kiln.core.seed.SeedEvent},
 * {@link dev.kiln.core.startup.ProbeEvent}, {@link dev.kiln.core.archive.ArchiveEvent}, ...) arrive on
 * {@link #events()} in the order the engine published them; the remote engine resumes its event stream after a
 * broken connection ({@code Last-Event-ID}) so that none is lost or delivered twice.
 *
 * <p>Mutations carry an idempotency key: a heal, warm, probe, precompile, push or pull sent twice with the same key
 * (a retry after a timeout) runs once, and the second call answers what the first did; the same key given to another
 * request is refused ({@link EngineException.Refusal#KEY_REUSED}).
 *
 * <p>Thread-safety: implementations and their facets are thread-safe. Methods documented "from memory" never block
 * and are safe on a UI thread; every other method may block on disk, processes or the network and must not be called
 * there. Failures are {@link EngineException}s whose message says what happened, where, and what to do.
 */
public interface Engine extends AutoCloseable {
    /** Where this engine works, for a person: the workspace directory, or the daemon's URL. From memory. */
    String location();

    /** True when this engine is a daemon reached over its API. From memory. */
    boolean remote();

    /**
     * The workspace as the engine's host sees it: its paths name files on that host, for display (a remote
     * engine's paths do not exist here). From memory.
     */
    WorkspaceLayout layout();

    /**
     * The bus this engine's events arrive on. The remote engine relays them from the daemon's event stream, which
     * {@link Projection#start} opens (and so does starting an action or a tick): subscribe, then start.
     */
    EventBus events();

    /** The clock ages are measured against. From memory. */
    Clock clock();

    /** The projection: snapshots, ticks, the watch, the doctor and heal. From memory (the facet itself). */
    Projection projection();

    /** The seeds on the engine's host. From memory (the facet itself). */
    Seeds seeds();

    /** The startup probe, its saved runs and the servers' bytecode. From memory (the facet itself). */
    Probes probes();

    /** The source archive cache on the engine's host. From memory (the facet itself). */
    Archives archives();

    /** The workspace's object store, used by the engine's host. From memory (the facet itself). */
    Store store();

    /**
     * What this engine's health verdict is judged from ({@code HealthRules.judge}): the last projection, the watch,
     * the seeds and the latest probe, as its host sees them; a remote engine asks the daemon's health answer.
     *
     * @throws EngineException when a remote daemon cannot be asked (its verdict is then {@code unreachable})
     */
    dev.kiln.core.health.HealthEvidence healthEvidence();

    /**
     * This engine's events as the API's SSE frames ({@code event} name, {@code data} JSON), for a recording: a
     * {@code snapshot} first, then {@code delta}s and core events, on a thread of the feed's own. Close the answer to
     * stop.
     *
     * @throws EngineException {@code REJECTED} when this engine has no frames to give (a replayed recording)
     */
    default AutoCloseable frames(java.util.function.BiConsumer<String, String> sink) {
        throw new EngineException(EngineException.Kind.REJECTED, location() + " gives no event frames to record");
    }

    /** Ends this engine: its projector or its connection. */
    @Override
    void close();
}
