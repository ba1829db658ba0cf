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
 * idempotency key (a repeated key answers the first action instead of starting a second).
 *
 * <p>Thread-safety: thread-safe; the capabilities it wraps are, and the two action tables are concurrent maps.
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
    private final Cache<String, Running<?>> byKey = Caffeine.newBuilder().maximumSize(1_000).expireAfterWrite(Duration.ofHours(6)).build();
    private final Cache<String, HealReport> heals = Caffeine.newBuilder().maximumSize(100).expireAfterWrite(Duration.ofHours(1)).build();

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
        HealReport r = heals.get(idempotencyKey, k -> {
            ran[0] = true;
            return LeafIdHeal.sweep(layout.tasksDir(), false);
        });
        return ran[0] ? applied(r) : r; // a repeated key answers the first report and announces nothing new
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
        return start("warm", idempotencyKey, () -> {
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
        return start("probe", idempotencyKey, () -> new Job<>(null, () -> {
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

    public JsonNode probeRun(String id) {
        if (!id.matches("probe-[A-Za-z0-9_.:+-]+\\.json")) {
            throw new EngineException(EngineException.Kind.REJECTED, "'" + id + "' is not a saved probe run's name");
        }
        Path run = ProbeRuns.dir(layout).resolve(id);
        if (!Files.isRegularFile(run)) {
            throw new EngineException(EngineException.Kind.REJECTED, "No saved probe run " + run);
        }
        return ProbeRuns.load(run);
    }

    public Optional<JsonNode> latestSweep() {
        List<Path> sweeps = ProbeRuns.listSweeps(layout);
        return sweeps.isEmpty() ? Optional.empty() : Optional.of(ProbeRuns.load(sweeps.get(0)));
    }

    // --- bytecode

    public BytecodeReport audit(String server) {
        Bytecode b = Bytecode.withSystemEnvironment();
        return b.audit(b.locate(server(server)));
    }

    public Action<Bytecode.CompileResult> precompile(String server, String idempotencyKey) {
        ServerConfig s = server(server);
        return start("precompile", idempotencyKey, () -> new Job<>(null, () -> {
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

    public ArchiveEntry archive(String directory, List<String> members) {
        Path root = layout.root().resolve(directory).normalize();
        if (!root.startsWith(layout.root().normalize())) {
            throw new EngineException(EngineException.Kind.REJECTED, "'" + directory + "' is outside the workspace " + layout.root());
        }
        if (!Files.isDirectory(root)) {
            throw new EngineException(EngineException.Kind.REJECTED, root + " is not a directory");
        }
        archives.get(root, members);
        Path real;
        try {
            real = root.toRealPath();
        } catch (java.io.IOException e) {
            real = root;
        }
        Path key = real;
        return archives.entries().stream().filter(e -> e.root().equals(key) || e.root().equals(root)).findFirst()
                .orElseThrow(() -> new EngineException(EngineException.Kind.FAILED, "The archive of " + root
                        + " was built but not held (larger than the cache's bound of " + archives.maximumBytes() + " bytes?)"));
    }

    public void invalidateArchives() {
        archives.invalidateAll();
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

    private <T> Action<T> start(String kind, String idempotencyKey, java.util.function.Supplier<Job<T>> job) {
        Running<?> earlier = idempotencyKey.isEmpty() ? null : byKey.asMap().get(idempotencyKey);
        if (earlier != null) {
            @SuppressWarnings("unchecked")
            Action<T> same = (Action<T>) earlier;
            return same;
        }
        Job<T> j = job.get();
        Running<T> r = new Running<>(kind + "-" + UUID.randomUUID(), j.cancel());
        if (!idempotencyKey.isEmpty()) {
            Running<?> raced = byKey.asMap().putIfAbsent(idempotencyKey, r);
            if (raced != null) {
                @SuppressWarnings("unchecked")
                Action<T> same = (Action<T>) raced;
                return same;
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
                message = e.getMessage();
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
    }

}
