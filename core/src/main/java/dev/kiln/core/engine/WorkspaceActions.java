package dev.kiln.core.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.kiln.core.archive.ArchiveCache;
import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.archive.ArchiveEntry;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.contract.LeafIdHeal;
import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmPlan;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.startup.Bytecode;
import dev.kiln.core.startup.BytecodeReport;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ProbeRuns;
import dev.kiln.core.startup.SavedProbeRun;
import dev.kiln.core.startup.SavedSweep;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerConfigs;
import dev.kiln.core.startup.StartupProbe;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Everything an {@link Engine} does besides the projection, in this process, for one workspace: heal, seeds, the
 * probe, bytecode and the archive cache. The in-process engine and the daemon's API share this one implementation,
 * so a remote action does on the daemon's host exactly what a local one does here.
 *
 * <p>Long actions run on their own daemon threads and are remembered by id (for cancel and status) and by
 * idempotency key (a repeated key answers the first action instead of starting a second). A key names one request:
 * it is held with the action's kind (its route) and the request itself (target, probe request, server), and the
 * same key with another kind or request is refused ({@link EngineException.Refusal#KEY_REUSED}) instead of
 * answering an action that does something else.
 *
 * <p>Thread-safety: thread-safe; the capabilities it wraps are, and the two action tables are concurrent maps (a key
 * is claimed with one {@code putIfAbsent}, so two racing requests with one key start one action).
 */
public final class WorkspaceActions implements AutoCloseable {
    private final WorkspaceLayout layout;
    private final WorkspaceSettings settings;
    private final ArchiveCache archives;
    private final SeedCaches seeds;
    private final EventSink events;
    private final Clock clock;
    private final ExecutorService runner = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "kiln-action");
        t.setDaemon(true);
        return t;
    });
    private final Cache<String, Running<?>> byId = Caffeine.newBuilder().maximumSize(1_000).expireAfterWrite(Duration.ofHours(6)).build();
    /** Idempotency key → the request it was first given with and its answer (an action, or a heal's report). */
    private final Cache<String, Keyed> byKey = Caffeine.newBuilder().maximumSize(1_000).expireAfterWrite(Duration.ofHours(6)).build();

    /**
     * What a key was first given to: the kind of request (its route), the request itself (compared by equality: a
     * retry sends the same one) and its answer.
     */
    private record Keyed(String kind, Object request, String described, Object answer) {
    }

    public WorkspaceActions(WorkspaceLayout layout, WorkspaceSettings settings, ArchiveCache archives, SeedCaches seeds,
            EventSink events, Clock clock) {
        this.layout = layout;
        this.settings = settings;
        this.archives = archives;
        this.seeds = seeds;
        this.events = events;
        this.clock = clock;
    }

    public WorkspaceLayout layout() {
        return layout;
    }

    public ArchiveCache archives() {
        return archives;
    }

    public SeedCaches seedCaches() {
        return seeds;
    }

    // --- heal

    /** See {@link Engine#heal}: an applied heal with a key seen before answers the first report. */
    public HealReport heal(boolean apply, String idempotencyKey) {
        if (!apply) {
            HealReport preview = LeafIdHeal.sweep(layout.tasksDir(), true);
            events.publish(new EngineEvent.HealFinished(clock.instant(), preview));
            return preview;
        }
        if (idempotencyKey.isEmpty()) { // no key: nothing to answer a retry with (an empty key must not be cached)
            return applied(LeafIdHeal.sweep(layout.tasksDir(), false));
        }
        boolean[] ran = new boolean[1];
        Keyed k = byKey.get(idempotencyKey, key -> {
            ran[0] = true;
            return new Keyed("heal", "heal", "a heal", LeafIdHeal.sweep(layout.tasksDir(), false));
        });
        if (!k.kind().equals("heal")) {
            throw reused(idempotencyKey, k, "a heal");
        }
        HealReport r = (HealReport) k.answer();
        return ran[0] ? applied(r) : r; // a repeated key answers the first report and announces nothing new
    }

    private static EngineException reused(String key, Keyed first, String now) {
        String shown = key.length() <= 80 ? key : key.substring(0, 80) + "…";
        return new EngineException(EngineException.Refusal.KEY_REUSED, "Idempotency-Key '" + shown + "' was given"
                + " first to " + first.described() + ", not to " + now + ": a key names one request (its retry answers"
                + " the first); send a new key for a new request");
    }

    private HealReport applied(HealReport r) {
        events.publish(new EngineEvent.HealFinished(clock.instant(), r));
        return r;
    }

    // --- seeds

    public List<SeedInfo> seeds() {
        return seeds.seeds();
    }

    public List<WarmResult> warmHistory() {
        return seeds.history();
    }

    public WarmPlan planWarm(String target) {
        requireTarget(target);
        return seeds.plan(target);
    }

    public Action<WarmResult> warm(String target, String idempotencyKey) {
        requireTarget(target);
        return start("warm", target, "a warm of target '" + target + "'", idempotencyKey, () -> {
            Cancellation c = Cancellation.create();
            return new Job<>(c::cancel, () -> seeds.warm(target, c));
        });
    }

    private void requireTarget(String target) {
        if (!seeds.targets().contains(target)) {
            throw new EngineException(EngineException.Kind.REJECTED, "No target '" + target + "' in " + layout.root().resolve("targets")
                    + " (targets: " + String.join(", ", seeds.targets()) + ")");
        }
    }

    // --- object store: opened on first use from kiln.json's "store", credentials from this host's AWS chain

    private final Object storeLock = new Object();
    private dev.kiln.core.store.@Nullable ObjectStore store; // guarded by storeLock
    private dev.kiln.core.store.@Nullable StoreConfig storeConfig; // guarded by storeLock
    private volatile Map<String, String> storeEnvironment = System.getenv();

    /**
     * The environment the store's AWS credential chain is read from (default: this process's, so a daemon uses its own
     * host's credentials). Tests give one; nothing else should.
     */
    public WorkspaceActions storeEnvironment(Map<String, String> environment) {
        this.storeEnvironment = Map.copyOf(environment);
        return this;
    }

    /** The store kiln.json names now (reopened when the file names another); empty when it names none. */
    private Optional<dev.kiln.core.store.ObjectStore> store() {
        Optional<dev.kiln.core.store.StoreConfig> c = dev.kiln.core.store.StoreConfig.read(layout.root());
        synchronized (storeLock) {
            if (c.isEmpty()) {
                return Optional.empty();
            }
            if (store == null || !c.get().equals(storeConfig)) {
                if (store != null) {
                    store.close();
                }
                store = dev.kiln.core.store.ObjectStore.builder(c.get()).environment(storeEnvironment).events(events)
                        .clock(clock).build();
                storeConfig = c.get();
            }
            return Optional.of(store);
        }
    }

    private dev.kiln.core.store.ObjectStore requireStore() {
        try {
            return store().orElseThrow(() -> new EngineException(EngineException.Kind.REJECTED, layout.root()
                    .resolve(WorkspaceSettings.FILE_NAME) + " names no object store; add \"store\": {\"url\":"
                    + " \"s3://bucket/prefix\", \"endpoint\": …, \"region\": …}"));
        } catch (dev.kiln.core.store.StoreException | dev.kiln.core.workspace.WorkspaceException e) {
            throw new EngineException(EngineException.Kind.REJECTED, java.util.Objects.requireNonNullElse(e.getMessage(), e.toString()), e);
        }
    }

    /** How long a store check stands for health before the next one asks the store again. */
    static final Duration STORE_CHECK_TTL = Duration.ofSeconds(30);

    /** The last word on whether the store answers: from a status read, a push, a pull or a health check. */
    private record StoreCheck(java.time.Instant at, Optional<String> unreachable) {
    }

    private volatile @Nullable StoreCheck storeCheck;

    /** Records what a store request just showed: it answered, or it did not (a refusal is an answer). */
    private void noteStore(@Nullable RuntimeException e) {
        if (e == null) {
            storeCheck = new StoreCheck(clock.instant(), Optional.empty());
        } else if (e instanceof dev.kiln.core.store.StoreException s && s.unreachable()) {
            storeCheck = new StoreCheck(clock.instant(), Optional.of(String.valueOf(s.getMessage())));
        }
    }

    /**
     * Why the configured store does not answer, for health's {@code store_unreachable}; empty when none is configured
     * or it answered the last check. The last push, pull or status read counts as a check; when none is younger than
     * {@link #STORE_CHECK_TTL} this asks the store once (bounded by the client's retries).
     */
    public Optional<String> storeUnreachable() {
        Optional<dev.kiln.core.store.ObjectStore> s;
        try {
            s = store();
        } catch (dev.kiln.core.store.StoreException | dev.kiln.core.workspace.WorkspaceException e) {
            return Optional.empty(); // not usable at all (no credentials, a bad kiln.json): the Seeds page says why
        }
        if (s.isEmpty()) {
            return Optional.empty();
        }
        StoreCheck c = storeCheck;
        if (c == null || Duration.between(c.at(), clock.instant()).compareTo(STORE_CHECK_TTL) >= 0) {
            try {
                s.get().check();
                noteStore(null);
            } catch (dev.kiln.core.store.StoreException e) {
                noteStore(e);
                if (!e.unreachable()) {
                    noteStore(null); // it answered (a refusal): reachable
                }
            }
            c = storeCheck;
        }
        return c == null ? Optional.empty() : c.unreachable();
    }

    /** See {@link Engine#storeStatus}. */
    public Optional<dev.kiln.core.store.StoreStatus> storeStatus() {
        return askStore(s -> {
            List<dev.kiln.core.store.SeedPresence> rows = new java.util.ArrayList<>();
            List<String> problems = new java.util.ArrayList<>();
            for (String t : seeds.targets()) {
                try {
                    rows.add(s.presence(seeds, t));
                    noteStore(null);
                } catch (RuntimeException e) {
                    noteStore(e);
                    problems.add(t + ": " + e.getMessage());
                    if (e instanceof dev.kiln.core.store.StoreException && e.getMessage() != null
                            && e.getMessage().contains("failed")) {
                        break; // the store is down: one message, not one per target
                    }
                }
            }
            return new dev.kiln.core.store.StoreStatus(describe(s), rows, s.stats(), problem(problems));
        });
    }

    /**
     * See {@link Engine#serverStoreStatus}: every seedable server's runtime seed (judged by hash, as
     * {@link #serverSeeds} does) against the store, one request per server; stale seeds no config uses are left out.
     */
    public Optional<dev.kiln.core.store.StoreStatus> serverStoreStatus() {
        return askStore(s -> {
            List<dev.kiln.core.store.ServerSeedPresence> rows = new java.util.ArrayList<>();
            List<String> problems = new java.util.ArrayList<>();
            for (dev.kiln.core.seed.ServerSeedInfo seed : serverSeeds()) {
                if (seed.state() == dev.kiln.core.seed.ServerSeedInfo.State.STALE) {
                    continue; // no server's config uses it: there is nothing to push or pull by that server's name
                }
                try {
                    rows.add(s.serverPresence(seed));
                    noteStore(null);
                } catch (RuntimeException e) {
                    noteStore(e);
                    problems.add(seed.server() + ": " + e.getMessage());
                    if (e instanceof dev.kiln.core.store.StoreException x && x.unreachable()) {
                        break; // the store is down: one message, not one per server
                    }
                }
            }
            return new dev.kiln.core.store.StoreStatus(describe(s), List.of(), s.stats(), problem(problems), rows);
        });
    }

    /**
     * {@code ask} of the workspace's store: empty when kiln.json names none, a "(not usable)" status naming why when
     * it names one that cannot be opened.
     */
    private Optional<dev.kiln.core.store.StoreStatus> askStore(
            java.util.function.Function<dev.kiln.core.store.ObjectStore, dev.kiln.core.store.StoreStatus> ask) {
        Optional<dev.kiln.core.store.ObjectStore> s;
        try {
            s = store();
        } catch (dev.kiln.core.store.StoreException | dev.kiln.core.workspace.WorkspaceException e) {
            return Optional.of(new dev.kiln.core.store.StoreStatus("(not usable)", List.of(),
                    dev.kiln.core.store.StoreStats.EMPTY, Optional.of(java.util.Objects.requireNonNullElse(e.getMessage(), e.toString()))));
        }
        return s.map(ask);
    }

    /** The store as a status names it: its URL, and its endpoint when one is set. */
    private static String describe(dev.kiln.core.store.ObjectStore s) {
        return s.config().url() + s.config().endpoint().map(e -> " at " + e).orElse("");
    }

    private static Optional<String> problem(List<String> problems) {
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    }

    /** The store client's counters, when one was opened (for /metrics). */
    public dev.kiln.core.store.StoreStats storeStats() {
        synchronized (storeLock) {
            return store == null ? dev.kiln.core.store.StoreStats.EMPTY : store.stats();
        }
    }

    public Action<dev.kiln.core.store.Transfer> pushSeed(String target, String idempotencyKey) {
        requireTarget(target);
        dev.kiln.core.store.ObjectStore s = requireStore();
        return start("push", target, "a push of seed '" + target + "'", idempotencyKey,
                () -> new Job<>(null, () -> noted(() -> s.pushSeed(seeds, target))));
    }

    public Action<dev.kiln.core.store.Transfer> pullSeed(String target, String idempotencyKey) {
        requireTarget(target);
        dev.kiln.core.store.ObjectStore s = requireStore();
        return start("pull", target, "a pull of seed '" + target + "'", idempotencyKey, () -> {
            Cancellation c = Cancellation.create();
            return new Job<>(c::cancel, () -> noted(() -> s.pullSeed(seeds, target, c)));
        });
    }

    /** Pushes the runtime seed of server {@code name} (of servers.json) to the store; the plan is read in the action. */
    public Action<dev.kiln.core.store.Transfer> pushServerSeed(String name, String idempotencyKey) {
        ServerConfig server = seedableServer(name);
        dev.kiln.core.store.ObjectStore s = requireStore();
        return start("push_server", name, "a push of the seed of server '" + name + "'", idempotencyKey,
                () -> new Job<>(null, () -> noted(() -> s.pushServerSeed(serverSeedStore(), serverSeedPlan(server)))));
    }

    /** Pulls the store's runtime seed of server {@code name} onto this host (checked, then the atomic swap). */
    public Action<dev.kiln.core.store.Transfer> pullServerSeed(String name, String idempotencyKey) {
        ServerConfig server = seedableServer(name);
        dev.kiln.core.store.ObjectStore s = requireStore();
        return start("pull_server", name, "a pull of the seed of server '" + name + "'", idempotencyKey, () -> {
            Cancellation c = Cancellation.create();
            return new Job<>(c::cancel, () -> noted(() -> s.pullServerSeed(serverSeedStore(), serverSeedPlan(server), c)));
        });
    }

    private ServerConfig seedableServer(String name) {
        ServerConfig server = server(name);
        if (!dev.kiln.core.seed.ServerSeeds.seedable(server)) {
            throw new EngineException(EngineException.Kind.REJECTED, "server '" + name + "' is not launched through npx,"
                    + " npm exec, uvx or uv tool run: it has no runtime seed to push or pull");
        }
        return server;
    }

    private dev.kiln.core.seed.ServerSeeds.Plan serverSeedPlan(ServerConfig server) {
        try {
            return serverSeedStore().plan(server);
        } catch (dev.kiln.core.workspace.WorkspaceException e) {
            throw new dev.kiln.core.store.StoreException(String.valueOf(e.getMessage()), e);
        }
    }

    private <T> T noted(java.util.function.Supplier<T> transfer) {
        try {
            T t = transfer.get();
            noteStore(null);
            return t;
        } catch (RuntimeException e) {
            noteStore(e);
            throw e;
        }
    }

    // --- probe

    public List<ServerConfig> servers() {
        return Files.exists(layout.serversFile()) ? ServerConfigs.read(layout.serversFile()) : List.of();
    }

    public Duration defaultStartupTimeout() {
        return settings.startupTimeout();
    }

    public Action<ProbeReport> probe(ProbeRequest request, String idempotencyKey) {
        List<ServerConfig> all = servers();
        List<ServerConfig> chosen = all.stream().filter(ServerConfig::enabled)
                .filter(s -> request.servers().isEmpty() || request.servers().contains(s.name())).toList();
        for (String name : request.servers()) {
            if (all.stream().noneMatch(s -> s.name().equals(name))) {
                throw new EngineException(EngineException.Kind.REJECTED, "No server '" + name + "' in " + layout.serversFile());
            }
        }
        if (chosen.isEmpty()) {
            throw new EngineException(EngineException.Kind.REJECTED, "No enabled servers in " + layout.serversFile());
        }
        StartupProbe.Builder b = StartupProbe.builder().events(events).clock(clock).cpus(request.cpus()).bytecode(request.bytecode());
        request.timeout().ifPresent(b::timeout);
        StartupProbe probe = b.build();
        // Interrupting the probe's thread ends every server it started (and their children).
        return start("probe", request, "a probe of " + (request.servers().isEmpty() ? "every enabled server"
                : "servers " + request.servers()) + (request.cpus().isEmpty() ? "" : " on CPUs " + request.cpus()) + ", bytecode "
                + request.bytecode().name().toLowerCase(Locale.ROOT) + request.timeout().map(t -> ", timeout " + t.toMillis() + " ms")
                .orElse(""), idempotencyKey, () -> new Job<>(null, () -> {
            ProbeReport r = probe.run(chosen);
            ProbeRuns.save(layout, r);
            return r;
        }));
    }

    public List<SavedRun> probeRuns() {
        return ProbeRuns.list(layout).stream().map(p -> new SavedRun(p.getFileName().toString(), startedAt(p))).toList();
    }

    private static final java.time.format.DateTimeFormatter RUN_STAMP =
            java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(java.time.ZoneOffset.UTC);

    private static Instant startedAt(Path run) {
        // probe-<UTC stamp>.json (ProbeRuns' basic ISO stamp): the name carries the start, so listing opens no run.
        String n = run.getFileName().toString().replaceFirst("^probe-", "").replaceFirst("\\.json$", "");
        try {
            return RUN_STAMP.parse(n, Instant::from);
        } catch (RuntimeException e) {
            try {
                return Files.getLastModifiedTime(run).toInstant();
            } catch (java.io.IOException io) {
                return Instant.EPOCH;
            }
        }
    }

    /** A saved run as stored: what the API serves ({@code probe/runs/{id}}, the probe-run file format). */
    public JsonNode probeRun(String id) {
        return ProbeRuns.load(runFile(id));
    }

    /** A saved run, read into its record (the engines' answer). */
    public SavedProbeRun readProbeRun(String id) {
        return ProbeRuns.read(runFile(id));
    }

    private Path runFile(String id) {
        if (!id.matches("probe-[A-Za-z0-9_.:+-]+\\.json")) {
            throw new EngineException(EngineException.Kind.REJECTED, "'" + id + "' is not a saved probe run's name");
        }
        Path run = ProbeRuns.dir(layout).resolve(id);
        if (!Files.isRegularFile(run)) {
            throw new EngineException(EngineException.Kind.REJECTED, "No saved probe run " + run);
        }
        return run;
    }

    /** The latest sweep as stored: what the API serves ({@code probe/sweep}). */
    public Optional<JsonNode> latestSweep() {
        List<Path> sweeps = ProbeRuns.listSweeps(layout);
        return sweeps.isEmpty() ? Optional.empty() : Optional.of(ProbeRuns.load(sweeps.get(0)));
    }

    /** The latest sweep, read into its record (the engines' answer). */
    public Optional<SavedSweep> readLatestSweep() {
        List<Path> sweeps = ProbeRuns.listSweeps(layout);
        return sweeps.isEmpty() ? Optional.empty() : Optional.of(ProbeRuns.readSweep(sweeps.get(0)));
    }

    // --- bytecode

    public BytecodeReport audit(String server) {
        Bytecode b = Bytecode.withSystemEnvironment();
        return b.audit(b.locate(server(server)));
    }

    public Action<Bytecode.CompileResult> precompile(String server, String idempotencyKey) {
        ServerConfig s = server(server);
        return start("precompile", server, "a precompile of server '" + server + "'", idempotencyKey, () -> new Job<>(null, () -> {
            Bytecode b = Bytecode.withSystemEnvironment();
            return b.compile(b.locate(s), Bytecode.InvalidationMode.TIMESTAMP);
        }));
    }

    private ServerConfig server(String name) {
        return servers().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow(() -> new EngineException(
                EngineException.Kind.REJECTED, "No server '" + name + "' in " + layout.serversFile()));
    }

    // --- archive cache

    public ArchiveCacheStats archiveStats() {
        return archives.stats();
    }

    public List<ArchiveEntry> archiveEntries() {
        return archives.entries();
    }

    public long archiveMaximumBytes() {
        return archives.maximumBytes();
    }

    public String archivePolicy() {
        return archives.policy().name().toLowerCase(Locale.ROOT);
    }

    /**
     * The archive of {@code members} of {@code directory} (relative to the workspace), from the cache or built.
     *
     * <p>Refused before any file is read: a directory or member whose real path leaves the workspace (a lexical
     * check alone let a symlink inside the workspace archive {@code /etc/ssh});
     * {@link EngineException.Refusal#OUTSIDE_WORKSPACE}), and member files adding up to more than the cache's
     * bound ({@code archive_max_bytes}: an archive is built in memory, and a 1.5 GB tree ran the daemon out of
     * heap; {@link EngineException.Refusal#TOO_LARGE}). The walk itself never follows a symlink.
     */
    public ArchiveEntry archive(String directory, List<String> members) {
        Path workspace = realPath(layout.root(), "the workspace " + layout.root());
        Path lexical = layout.root().resolve(directory).normalize();
        if (!lexical.startsWith(layout.root().normalize())) {
            throw outside("'" + directory + "' is outside the workspace " + layout.root());
        }
        if (!Files.exists(lexical)) {
            throw new EngineException(EngineException.Kind.REJECTED, lexical + " is not a directory (it does not exist)");
        }
        Path root = realPath(lexical, lexical.toString());
        if (!root.startsWith(workspace)) {
            throw outside("'" + directory + "' leads out of the workspace " + workspace + " through a symlink (it is "
                    + root + "); archives are made only of the workspace's own files");
        }
        if (!Files.isDirectory(root)) {
            throw new EngineException(EngineException.Kind.REJECTED, root + " is not a directory");
        }
        for (String m : members) {
            Path member = root.resolve(m.strip()).normalize();
            if (!member.startsWith(root)) {
                throw outside("member '" + m + "' is outside " + root);
            }
            // A symlinked member is archived as a link, never followed; one that leads out is refused all the same.
            if (Files.exists(member) && !realPath(member, member.toString()).startsWith(workspace)) {
                throw outside("member '" + m + "' of " + root + " leads out of the workspace " + workspace + " through a"
                        + " symlink; archives are made only of the workspace's own files");
            }
        }
        try {
            archives.get(root, members, dev.kiln.core.archive.SourceArchive.DEFAULT_EXCLUDES, archives.maximumBytes());
        } catch (dev.kiln.core.archive.ArchiveTooLargeException e) {
            throw new EngineException(EngineException.Refusal.TOO_LARGE, java.util.Objects.requireNonNullElse(e.getMessage(), e.toString()));
        }
        return archives.entries().stream().filter(e -> e.root().equals(root)).findFirst()
                .orElseThrow(() -> new EngineException(EngineException.Kind.FAILED, "The archive of " + root
                        + " was built but not held (larger than the cache's bound of " + archives.maximumBytes() + " bytes?)"));
    }

    private static EngineException outside(String message) {
        return new EngineException(EngineException.Refusal.OUTSIDE_WORKSPACE, message);
    }

    private static Path realPath(Path p, String what) {
        try {
            return p.toRealPath();
        } catch (java.io.IOException e) {
            throw new EngineException(EngineException.Kind.REJECTED, "Cannot resolve " + what + ": " + e.getMessage());
        }
    }

    public void invalidateArchives() {
        archives.invalidateAll();
    }

    // --- server seeds (runtime seeds of npx/uvx-launched servers), in this workspace's seeds directory

    private dev.kiln.core.seed.ServerSeeds serverSeedStore() {
        return dev.kiln.core.seed.ServerSeeds.of(seeds, System.getenv(), clock);
    }

    public List<dev.kiln.core.seed.ServerSeedInfo> serverSeeds() {
        return serverSeedStore().inventory(servers());
    }

    public Action<dev.kiln.core.seed.ServerSeedsWarmed> warmServerSeeds(List<String> names, String idempotencyKey) {
        List<ServerConfig> all = servers();
        for (String name : names) {
            if (all.stream().noneMatch(s -> s.name().equals(name))) {
                throw new EngineException(EngineException.Kind.REJECTED, "No server '" + name + "' in " + layout.serversFile());
            }
        }
        List<ServerConfig> chosen = all.stream().filter(s -> names.isEmpty() ? dev.kiln.core.seed.ServerSeeds.seedable(s)
                : names.contains(s.name())).toList();
        if (chosen.isEmpty()) {
            throw new EngineException(EngineException.Kind.REJECTED, "No server in " + layout.serversFile()
                    + " is launched through npx, npm exec, uvx or uv tool run: nothing to seed");
        }
        return start("warm_servers", List.copyOf(names), "a warm of the seeds of " + (names.isEmpty() ? "every server"
                : String.join(", ", names)), idempotencyKey, () -> {
                    Cancellation c = Cancellation.create();
                    return new Job<>(c::cancel, () -> serverSeedStore().warmAll(chosen, c, false));
                });
    }

    // --- long actions

    /** The action with {@code id}, while it is remembered. */
    public Optional<Action<?>> action(String id) {
        return Optional.ofNullable(byId.getIfPresent(id));
    }

    /** Cancels the action with {@code id}; false when no such action is remembered. */
    public boolean cancel(String id) {
        Running<?> r = byId.getIfPresent(id);
        if (r == null) {
            return false;
        }
        r.cancel();
        return true;
    }

    private record Job<T>(@Nullable Runnable cancel, java.util.concurrent.Callable<T> work) {
    }

    /**
     * Starts an action of {@code kind} for {@code request} (equal requests are the same request), or answers the
     * action an earlier request with the same key started.
     */
    private <T> Action<T> start(String kind, Object request, String described, String idempotencyKey,
            java.util.function.Supplier<Job<T>> job) {
        Keyed earlier = idempotencyKey.isEmpty() ? null : byKey.asMap().get(idempotencyKey);
        if (earlier != null) {
            return same(earlier, kind, request, described, idempotencyKey);
        }
        Job<T> j = job.get();
        Running<T> r = new Running<>(kind + "-" + UUID.randomUUID(), j.cancel());
        if (!idempotencyKey.isEmpty()) {
            Keyed raced = byKey.asMap().putIfAbsent(idempotencyKey, new Keyed(kind, request, described, r));
            if (raced != null) {
                return same(raced, kind, request, described, idempotencyKey);
            }
        }
        byId.put(r.id(), r);
        r.future.set(runner.submit(() -> {
            EngineEvent.Status status;
            String message;
            try {
                T value = j.work().call();
                r.result.complete(value);
                status = EngineEvent.Status.SUCCEEDED;
                message = "";
                if (value instanceof WarmResult w) { // a warm that ran and failed or was cancelled still answers
                    status = w.outcome() == WarmOutcome.CANCELLED ? EngineEvent.Status.CANCELLED
                            : w.outcome().isSuccess() ? EngineEvent.Status.SUCCEEDED : EngineEvent.Status.FAILED;
                    message = w.outcome().label() + ": " + w.message();
                }
            } catch (InterruptedException | CancellationException e) {
                message = kind + " cancelled; every process it started was ended";
                status = EngineEvent.Status.CANCELLED;
                r.result.completeExceptionally(new CancellationException(message));
            } catch (EngineException e) {
                status = EngineEvent.Status.FAILED;
                message = java.util.Objects.requireNonNullElse(e.getMessage(), kind + " failed");
                r.result.completeExceptionally(e);
            } catch (Exception | Error e) {
                status = EngineEvent.Status.FAILED;
                message = kind + " failed: " + e.getMessage();
                r.result.completeExceptionally(new EngineException(EngineException.Kind.FAILED, message, e));
            }
            // after the result: whoever reacts to the event finds the action done
            events.publish(new EngineEvent.ActionFinished(clock.instant(), r.id(), kind, status, message));
        }));
        return r;
    }

    /** The first action of a key, if it was given with the same kind and request; refused otherwise. */
    private static <T> Action<T> same(Keyed first, String kind, Object request, String described, String key) {
        if (!first.kind().equals(kind) || !first.request().equals(request)) {
            throw reused(key, first, described);
        }
        @SuppressWarnings("unchecked")
        Action<T> same = (Action<T>) first.answer(); // same kind: the same result type
        return same;
    }

    /** The kind of an action id ({@code warm}, {@code probe}, {@code precompile}). */
    public static String kindOf(String actionId) {
        int dash = actionId.indexOf('-');
        return dash < 0 ? actionId : actionId.substring(0, dash);
    }

    /** A started action: cancelling runs its own cancel (a warm's) or interrupts its thread (a probe's, a compile's). */
    private static final class Running<T> implements Action<T> {
        private final String id;
        private final @Nullable Runnable cancel;
        final CompletableFuture<T> result = new CompletableFuture<>();
        final AtomicReference<@Nullable Future<?>> future = new AtomicReference<>();

        Running(String id, @Nullable Runnable cancel) {
            this.id = id;
            this.cancel = cancel;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public CompletableFuture<T> result() {
            return result;
        }

        @Override
        public void cancel() {
            if (cancel != null) {
                cancel.run();
                return;
            }
            Future<?> f = future.get();
            if (f != null) {
                f.cancel(true);
            }
        }
    }

    @Override
    public void close() {
        for (Running<?> r : byId.asMap().values()) {
            if (!r.result.isDone()) {
                r.cancel();
            }
        }
        runner.shutdown();
        synchronized (storeLock) {
            if (store != null) {
                store.close();
            }
        }
    }

    // --- object store: source archives, moved on this host (issue #28; see Engine#pushArchive, Engine#pullArchive) ----

    /**
     * See {@link Engine#pushArchive}: in the action, the archive of {@code directory} (the refusals and the bound of
     * {@link #archive}; the cache's copy when nothing changed) is written to a temporary file and pushed by its SHA-256.
     */
    public Action<dev.kiln.core.store.Transfer> pushArchive(String directory, List<String> members, String idempotencyKey) {
        dev.kiln.core.store.ObjectStore s = requireStore();
        List<String> m = List.copyOf(members);
        return start("push_archive", List.of(directory, m), "a push of the archive of '" + directory + "'"
                + (m.isEmpty() ? "" : " (members " + m + ")"), idempotencyKey, () -> new Job<>(null, () -> {
                    Path root = archive(directory, m).root();
                    dev.kiln.core.archive.SourceArchive a = archives.get(root, m,
                            dev.kiln.core.archive.SourceArchive.DEFAULT_EXCLUDES, archives.maximumBytes());
                    Path tmp = Files.createTempFile("kiln-archive-push-", ".tar.gz");
                    try {
                        a.writeTo(tmp);
                        return noted(() -> s.pushFile(dev.kiln.core.store.StoreKey.archive(a.sha256()), tmp));
                    } finally {
                        Files.deleteIfExists(tmp);
                    }
                }));
    }

    /** See {@link Engine#pullArchive}: into {@link WorkspaceLayout#archivesDir()}, checked, atomically. */
    public Action<dev.kiln.core.store.Transfer> pullArchive(String sha256, String idempotencyKey) {
        dev.kiln.core.store.StoreKey key;
        try {
            key = dev.kiln.core.store.StoreKey.archive(sha256);
        } catch (IllegalArgumentException e) {
            throw new EngineException(EngineException.Kind.REJECTED, String.valueOf(e.getMessage()));
        }
        dev.kiln.core.store.ObjectStore s = requireStore();
        Path out = layout.archivesDir().resolve(sha256 + ".tar.gz");
        return start("pull_archive", sha256, "a pull of archive " + sha256, idempotencyKey, () -> new Job<>(null, () -> {
            Files.createDirectories(layout.archivesDir());
            return noted(() -> s.pullFile(key, out));
        }));
    }
}
