package dev.kiln.core.engine;

import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.ServerSeedInfo;
import dev.kiln.core.seed.ServerSeeds;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.store.ObjectStore;
import dev.kiln.core.store.StoreConfig;
import dev.kiln.core.store.StoreException;
import dev.kiln.core.store.StoreStats;
import dev.kiln.core.store.StoreStatus;
import dev.kiln.core.store.Transfer;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Store} of this process: the store {@code kiln.json} names, opened on first use with this host's AWS
 * credential chain (so a daemon uses its own host's credentials); transfers started through the shared action table
 * of {@link WorkspaceActions}. It also keeps the last word on whether the store answers, for health.
 *
 * <p>Thread-safety: thread-safe; the open client and its config are guarded by {@code lock}, the last check and the
 * environment are volatile.
 */
final class LocalStore implements Store, AutoCloseable {
    /** How long a store check stands for health before the next one asks the store again. */
    static final Duration STORE_CHECK_TTL = Duration.ofSeconds(30);

    private final WorkspaceActions actions;
    private final WorkspaceLayout layout;
    private final LocalSeeds seeds;
    private final LocalProbes probes;
    private final LocalArchives archives;
    private final EventSink events;
    private final Clock clock;
    private final Object lock = new Object();
    private @Nullable ObjectStore store; // guarded by lock
    private @Nullable StoreConfig storeConfig; // guarded by lock
    private volatile Map<String, String> environment = System.getenv();

    /** The last word on whether the store answers: from a status read, a push, a pull or a health check. */
    private record StoreCheck(java.time.Instant at, Optional<String> unreachable) {
    }

    private volatile @Nullable StoreCheck storeCheck;

    LocalStore(WorkspaceActions actions, WorkspaceLayout layout, LocalSeeds seeds, LocalProbes probes, LocalArchives archives,
            EventSink events, Clock clock) {
        this.actions = actions;
        this.layout = layout;
        this.seeds = seeds;
        this.probes = probes;
        this.archives = archives;
        this.events = events;
        this.clock = clock;
    }

    /** See {@link WorkspaceActions#storeEnvironment}. */
    void environment(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    /** The store kiln.json names now (reopened when the file names another); empty when it names none. */
    private Optional<ObjectStore> open() {
        Optional<StoreConfig> c = StoreConfig.read(layout.root());
        synchronized (lock) {
            if (c.isEmpty()) {
                return Optional.empty();
            }
            if (store == null || !c.get().equals(storeConfig)) {
                if (store != null) {
                    store.close();
                }
                store = ObjectStore.builder(c.get()).environment(environment).events(events).clock(clock).build();
                storeConfig = c.get();
            }
            return Optional.of(store);
        }
    }

    private ObjectStore requireStore() {
        try {
            return open().orElseThrow(() -> new EngineException(EngineException.Kind.REJECTED, layout.root()
                    .resolve(WorkspaceSettings.FILE_NAME) + " names no object store; add \"store\": {\"url\":"
                    + " \"s3://bucket/prefix\", \"endpoint\": …, \"region\": …}"));
        } catch (StoreException | WorkspaceException e) {
            throw new EngineException(EngineException.Kind.REJECTED, Objects.requireNonNullElse(e.getMessage(), e.toString()), e);
        }
    }

    /** Records what a store request just showed: it answered, or it did not (a refusal is an answer). */
    private void note(@Nullable RuntimeException e) {
        if (e == null) {
            storeCheck = new StoreCheck(clock.instant(), Optional.empty());
        } else if (e instanceof StoreException s && s.unreachable()) {
            storeCheck = new StoreCheck(clock.instant(), Optional.of(String.valueOf(s.getMessage())));
        }
    }

    /** See {@link WorkspaceActions#storeUnreachable}. */
    Optional<String> unreachable() {
        Optional<ObjectStore> s;
        try {
            s = open();
        } catch (StoreException | WorkspaceException e) {
            return Optional.empty(); // not usable at all (no credentials, a bad kiln.json): the Seeds page says why
        }
        if (s.isEmpty()) {
            return Optional.empty();
        }
        StoreCheck c = storeCheck;
        if (c == null || Duration.between(c.at(), clock.instant()).compareTo(STORE_CHECK_TTL) >= 0) {
            try {
                s.get().check();
                note(null);
            } catch (StoreException e) {
                note(e);
                if (!e.unreachable()) {
                    note(null); // it answered (a refusal): reachable
                }
            }
            c = storeCheck;
        }
        return c == null ? Optional.empty() : c.unreachable();
    }

    @Override
    public Optional<StoreStatus> status() {
        return ask(s -> {
            List<dev.kiln.core.store.SeedPresence> rows = new java.util.ArrayList<>();
            List<String> problems = new java.util.ArrayList<>();
            for (String t : seeds.caches().targets()) {
                try {
                    rows.add(s.presence(seeds.caches(), t));
                    note(null);
                } catch (RuntimeException e) {
                    note(e);
                    problems.add(t + ": " + e.getMessage());
                    if (e instanceof StoreException && e.getMessage() != null && e.getMessage().contains("failed")) {
                        break; // the store is down: one message, not one per target
                    }
                }
            }
            return new StoreStatus(describe(s), rows, s.stats(), problem(problems));
        });
    }

    /**
     * Every seedable server's runtime seed (judged by hash, as {@link Seeds#servers} does) against the store, one
     * request per server; stale seeds no config uses are left out.
     */
    @Override
    public Optional<StoreStatus> serverStatus() {
        return ask(s -> {
            List<dev.kiln.core.store.ServerSeedPresence> rows = new java.util.ArrayList<>();
            List<String> problems = new java.util.ArrayList<>();
            for (ServerSeedInfo seed : seeds.servers()) {
                if (seed.state() == ServerSeedInfo.State.STALE) {
                    continue; // no server's config uses it: there is nothing to push or pull by that server's name
                }
                try {
                    rows.add(s.serverPresence(seed));
                    note(null);
                } catch (RuntimeException e) {
                    note(e);
                    problems.add(seed.server() + ": " + e.getMessage());
                    if (e instanceof StoreException x && x.unreachable()) {
                        break; // the store is down: one message, not one per server
                    }
                }
            }
            return new StoreStatus(describe(s), List.of(), s.stats(), problem(problems), rows);
        });
    }

    /**
     * {@code ask} of the workspace's store: empty when kiln.json names none, a "(not usable)" status naming why when
     * it names one that cannot be opened.
     */
    private Optional<StoreStatus> ask(java.util.function.Function<ObjectStore, StoreStatus> ask) {
        Optional<ObjectStore> s;
        try {
            s = open();
        } catch (StoreException | WorkspaceException e) {
            return Optional.of(new StoreStatus("(not usable)", List.of(), StoreStats.EMPTY,
                    Optional.of(Objects.requireNonNullElse(e.getMessage(), e.toString()))));
        }
        return s.map(ask);
    }

    /** The store as a status names it: its URL, and its endpoint when one is set. */
    private static String describe(ObjectStore s) {
        return s.config().url() + s.config().endpoint().map(e -> " at " + e).orElse("");
    }

    private static Optional<String> problem(List<String> problems) {
        return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    }

    /** The store client's counters, when one was opened (for /metrics). */
    StoreStats stats() {
        synchronized (lock) {
            return store == null ? StoreStats.EMPTY : store.stats();
        }
    }

    @Override
    public Action<Transfer> push(String target, String idempotencyKey) {
        seeds.requireTarget(target);
        ObjectStore s = requireStore();
        return actions.start("push", target, "a push of seed '" + target + "'", idempotencyKey,
                () -> new WorkspaceActions.Job<>(null, () -> noted(() -> s.pushSeed(seeds.caches(), target))));
    }

    @Override
    public Action<Transfer> pull(String target, String idempotencyKey) {
        seeds.requireTarget(target);
        ObjectStore s = requireStore();
        return actions.start("pull", target, "a pull of seed '" + target + "'", idempotencyKey, () -> {
            Cancellation c = Cancellation.create();
            return new WorkspaceActions.Job<>(c::cancel, () -> noted(() -> s.pullSeed(seeds.caches(), target, c)));
        });
    }

    /** Pushes the runtime seed of server {@code name} (of servers.json) to the store; the plan is read in the action. */
    @Override
    public Action<Transfer> pushServer(String name, String idempotencyKey) {
        ServerConfig server = seedableServer(name);
        ObjectStore s = requireStore();
        return actions.start("push_server", name, "a push of the seed of server '" + name + "'", idempotencyKey,
                () -> new WorkspaceActions.Job<>(null, () -> noted(() -> s.pushServerSeed(seeds.serverSeedStore(),
                        serverSeedPlan(server)))));
    }

    /** Pulls the store's runtime seed of server {@code name} onto this host (checked, then the atomic swap). */
    @Override
    public Action<Transfer> pullServer(String name, String idempotencyKey) {
        ServerConfig server = seedableServer(name);
        ObjectStore s = requireStore();
        return actions.start("pull_server", name, "a pull of the seed of server '" + name + "'", idempotencyKey, () -> {
            Cancellation c = Cancellation.create();
            return new WorkspaceActions.Job<>(c::cancel, () -> noted(() -> s.pullServerSeed(seeds.serverSeedStore(),
                    serverSeedPlan(server), c)));
        });
    }

    /**
     * In the action, the archive of {@code directory} (the refusals and bound of {@link LocalArchives#archive}; the
     * cache's copy when nothing changed) is written to a temporary file and pushed by its SHA-256.
     */
    @Override
    public Action<Transfer> pushArchive(String directory, List<String> members, String idempotencyKey) {
        ObjectStore s = requireStore();
        List<String> m = List.copyOf(members);
        return actions.start("push_archive", List.of(directory, m), "a push of the archive of '" + directory + "'"
                + (m.isEmpty() ? "" : " (members " + m + ")"), idempotencyKey, () -> new WorkspaceActions.Job<>(null, () -> {
                    dev.kiln.core.archive.SourceArchive a = archives.source(directory, m);
                    java.nio.file.Path tmp = java.nio.file.Files.createTempFile("kiln-archive-push-", ".tar.gz");
                    try {
                        a.writeTo(tmp);
                        return noted(() -> s.pushFile(dev.kiln.core.store.StoreKey.archive(a.sha256()), tmp));
                    } finally {
                        java.nio.file.Files.deleteIfExists(tmp);
                    }
                }));
    }

    /** Into {@link WorkspaceLayout#archivesDir()}, checked against the SHA-256, atomically. */
    @Override
    public Action<Transfer> pullArchive(String sha256, String idempotencyKey) {
        dev.kiln.core.store.StoreKey key = archiveKey(sha256);
        ObjectStore s = requireStore();
        java.nio.file.Path out = layout.archivesDir().resolve(sha256 + ".tar.gz");
        return actions.start("pull_archive", sha256, "a pull of archive " + sha256, idempotencyKey,
                () -> new WorkspaceActions.Job<>(null, () -> {
                    java.nio.file.Files.createDirectories(layout.archivesDir());
                    return noted(() -> s.pullFile(key, out));
                }));
    }

    @Override
    public Optional<dev.kiln.core.store.ObjectManifest> archive(String sha256) {
        dev.kiln.core.store.StoreKey key = archiveKey(sha256);
        ObjectStore s = requireStore();
        try {
            return noted(() -> s.manifest(key));
        } catch (StoreException e) {
            throw new EngineException(EngineException.Kind.FAILED, String.valueOf(e.getMessage()), e);
        }
    }

    private static dev.kiln.core.store.StoreKey archiveKey(String sha256) {
        try {
            return dev.kiln.core.store.StoreKey.archive(sha256);
        } catch (IllegalArgumentException e) {
            throw new EngineException(EngineException.Kind.REJECTED, String.valueOf(e.getMessage()));
        }
    }

    private ServerConfig seedableServer(String name) {
        ServerConfig server = probes.server(name);
        if (!ServerSeeds.seedable(server)) {
            throw new EngineException(EngineException.Kind.REJECTED, "server '" + name + "' is not launched through npx,"
                    + " npm exec, uvx or uv tool run: it has no runtime seed to push or pull");
        }
        return server;
    }

    private ServerSeeds.Plan serverSeedPlan(ServerConfig server) {
        try {
            return seeds.serverSeedStore().plan(server);
        } catch (WorkspaceException e) {
            throw new StoreException(String.valueOf(e.getMessage()), e);
        }
    }

    private <T> T noted(java.util.function.Supplier<T> transfer) {
        try {
            T t = transfer.get();
            note(null);
            return t;
        } catch (RuntimeException e) {
            note(e);
            throw e;
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (store != null) {
                store.close();
            }
        }
    }
}
