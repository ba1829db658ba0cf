package dev.kiln.core.engine;

import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.archive.ArchiveEntry;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.doctor.Diagnosis;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmPlan;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.startup.Bytecode;
import dev.kiln.core.startup.BytecodeReport;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.SavedProbeRun;
import dev.kiln.core.startup.SavedSweep;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.watch.WatchStatus;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One workspace's capabilities as the console uses them: the projection (snapshots, ticks, events), heal, seeds,
 * the startup probe, bytecode and the archive cache. The in-process engine ({@code Kiln.engine()}) runs them here;
 * the remote one ({@code dev.kiln.core.serve.client.RemoteEngine}) asks a {@code kiln serve} over {@code /api/v1}. A view
 * model holds an {@code Engine} and cannot tell which it has: the same view-model tests run against both.
 *
 * <p>Events: every capability's events ({@link dev.kiln.core.projection.TickFinished},
 * {@link dev.kiln.core.watch.WatchChanged}, {@link dev.kiln.core.seed.SeedEvent},
 * {@link dev.kiln.core.startup.ProbeEvent}, {@link dev.kiln.core.archive.ArchiveEvent}, ...) arrive on
 * {@link #events()} in the order the engine published them; the remote engine resumes its event stream after a
 * broken connection ({@code Last-Event-ID}) so that none is lost or delivered twice.
 *
 * <p>Mutations carry an idempotency key: a heal, warm, probe or precompile sent twice with the same key (a retry
 * after a timeout) runs once, and the second call answers what the first did.
 *
 * <p>Thread-safety: implementations are thread-safe. Methods documented "from memory" never block and are safe on
 * a UI thread; every other method may block on disk, processes or the network and must not be called there.
 * Failures are {@link EngineException}s whose message says what happened, where, and what to do.
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
     * {@link #start} opens (and so does starting an action or a tick): subscribe, then start.
     */
    EventBus events();

    /** The clock ages are measured against. */
    Clock clock();

    // --- projection -------------------------------------------------------------------------------------------

    /**
     * Starts delivering the projection: {@code live} runs the change-driven projector here (or follows the daemon
     * that owns the workspace), {@code false} ticks only on demand; a remote engine connects its event stream and
     * loads the daemon's state. Blocks while it starts.
     *
     * @return why this engine does not run the live projector itself (it follows, ticks on demand, or is attached),
     *     empty when it does
     */
    Optional<String> start(boolean live);

    /** The latest snapshot, from memory; an empty one before the first tick. */
    ContractSnapshot snapshot();

    /** Runs a tick now and waits for it; the tick also arrives as a {@code TickFinished} event. */
    void projectNow();

    /** How the workspace is watched, when a live projector runs. From memory. */
    Optional<WatchStatus> watchStatus();

    /** Where the projecting daemon's API listens, when there is one (the URL of a remote engine). From memory. */
    Optional<String> apiUrl();

    /** "Why is this stale?": the staleness doctor run against this engine's published state. */
    Diagnosis diagnose();

    // --- heal -------------------------------------------------------------------------------------------------

    /** Sweeps the contracts' leaf ids: {@code apply} false previews and writes nothing. */
    HealReport heal(boolean apply, String idempotencyKey);

    // --- seeds ------------------------------------------------------------------------------------------------

    /** Every target's seed: fresh, stale or never warmed. */
    List<SeedInfo> seeds();

    /** Finished warms, oldest first. */
    List<WarmResult> warmHistory();

    /** What a warm of {@code target} would do; writes nothing. */
    WarmPlan planWarm(String target);

    /** Warms {@code target}'s seed with uv; its output arrives as {@code SeedEvent.WarmOutput} events. */
    Action<WarmResult> warm(String target, String idempotencyKey);

    // --- startup probe ----------------------------------------------------------------------------------------

    /** The servers of {@code servers.json}; none when it is absent. */
    List<ServerConfig> servers();

    /** The startup timeout of a server that sets none ({@code kiln.json}, default 30 s). From memory. */
    Duration defaultStartupTimeout();

    /** Starts the servers at once and times each to its {@code initialize} answer; steps arrive as {@code ProbeEvent}s. The run is saved. */
    Action<ProbeReport> probe(ProbeRequest request, String idempotencyKey);

    /** The workspace's saved probe runs, newest first (the CLI's included). */
    List<SavedRun> probeRuns();

    /** A saved run, read ({@code kiln probe --json} writes the same document). */
    SavedProbeRun probeRun(String id);

    /** The latest saved CPU sweep, if any. */
    Optional<SavedSweep> latestSweep();

    // --- bytecode ---------------------------------------------------------------------------------------------

    /** Audits the bytecode of a Python server's environment (fresh, stale, missing {@code .pyc}). */
    BytecodeReport audit(String server);

    /** Precompiles the server's environment ({@code compileall}), then re-audits. */
    Action<Bytecode.CompileResult> precompile(String server, String idempotencyKey);

    // --- archive cache ----------------------------------------------------------------------------------------

    /** The archive cache's counters now. */
    ArchiveCacheStats archiveStats();

    /** The archives it holds now, most recently used first. */
    List<ArchiveEntry> archiveEntries();

    /** The bound on the bytes it holds. From memory. */
    long archiveMaximumBytes();

    /** Its policy, {@code validated} or {@code snapshot}. From memory. */
    String archivePolicy();

    /**
     * Asks the cache for the archive of {@code members} (all when empty) of {@code directory}, relative to the
     * workspace root: a hit when nothing changed, a rebuild when a member did.
     */
    ArchiveEntry archive(String directory, List<String> members);

    /** Drops every held archive. */
    void invalidateArchives();

    // --- health (the verdict's evidence) -------------------------------------------------------------------------

    /**
     * What this engine's health verdict is judged from ({@code HealthRules.judge}): the last projection, the watch,
     * the seeds and the latest probe, as its host sees them; a remote engine asks the daemon's health answer.
     *
     * @throws EngineException when a remote daemon cannot be asked (its verdict is then {@code unreachable})
     */
    dev.kiln.core.health.HealthEvidence healthEvidence();

    // --- recording (dev.kiln.core.recording) -----------------------------------------------------------------------

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

    // --- object store (kiln.json "store"): seeds through S3, on the engine's host ------------------------------

    /**
     * Per target, where its seed for the current lockfile is: here, in the store, both, or differing; empty when the
     * workspace names no store. Asks the store (one request per target).
     */
    Optional<dev.kiln.core.store.StoreStatus> storeStatus();

    /** Pushes {@code target}'s seed from the engine's host to the workspace's store. */
    Action<dev.kiln.core.store.Transfer> pushSeed(String target, String idempotencyKey);

    /** Pulls {@code target}'s seed for its current lockfile from the store onto the engine's host (atomic swap). */
    Action<dev.kiln.core.store.Transfer> pullSeed(String target, String idempotencyKey);

    /** Pushes the runtime seed of server {@code server} (servers.json; launched through npx/uvx) to the store. */
    default Action<dev.kiln.core.store.Transfer> pushServerSeed(String server, String idempotencyKey) {
        throw new EngineException(EngineException.Kind.REJECTED, location() + " does not push server seeds");
    }

    /** Pulls the store's runtime seed of server {@code server} onto the engine's host (checked, atomic swap). */
    default Action<dev.kiln.core.store.Transfer> pullServerSeed(String server, String idempotencyKey) {
        throw new EngineException(EngineException.Kind.REJECTED, location() + " does not pull server seeds");
    }

    /**
     * Per seedable server, where its runtime seed is against the store ({@link dev.kiln.core.store.StoreStatus#servers}):
     * here, in the store, both, or differing; empty when the workspace names no store. Hashes the server seeds on the
     * engine's host and asks the store (one request per server).
     */
    default Optional<dev.kiln.core.store.StoreStatus> serverStoreStatus() {
        return Optional.empty();
    }

    // --- server seeds (runtime seeds of servers launched through npx/uvx), on the engine's host ---------------------

    /**
     * Every server seed on the engine's host: one per seedable server of {@code servers.json} (its seed, or missing),
     * then the seeds no server uses now; each judged by its hash, with the snippets that make a client use it.
     */
    default List<dev.kiln.core.seed.ServerSeedInfo> serverSeeds() {
        return List.of();
    }

    /** Warms the seeds of {@code servers} (every seedable server of {@code servers.json} when empty), one after another. */
    default Action<dev.kiln.core.seed.ServerSeedsWarmed> warmServerSeeds(List<String> servers, String idempotencyKey) {
        throw new EngineException(EngineException.Kind.REJECTED, location() + " does not warm server seeds");
    }

    /** Ends this engine: its projector or its connection. */
    @Override
    void close();

    // --- object store: source archives, moved on the engine's host (issue #28) ----------------------------------------

    /**
     * Builds the deterministic archive of {@code members} (all when empty) of {@code directory}, relative to the
     * workspace and refused as {@link #archive} refuses it, on the engine's host, and pushes it to the workspace's store
     * under {@code archives/<its sha256>} with that host's credentials. A key already stored is left as it is
     * ({@code already_stored}); the transfer's manifest names the SHA-256 to pull it by.
     */
    default Action<dev.kiln.core.store.Transfer> pushArchive(String directory, List<String> members, String idempotencyKey) {
        throw new EngineException(EngineException.Kind.REJECTED, location() + " does not push archives");
    }

    /**
     * Pulls the archive {@code sha256} from the workspace's store onto the engine's host, checked against that SHA-256,
     * into {@code layout().archivesDir()/<sha256>.tar.gz} there (atomically: the file it replaces, or the checked one).
     */
    default Action<dev.kiln.core.store.Transfer> pullArchive(String sha256, String idempotencyKey) {
        throw new EngineException(EngineException.Kind.REJECTED, location() + " does not pull archives");
    }
}
