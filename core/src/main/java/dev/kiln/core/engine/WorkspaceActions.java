package dev.kiln.core.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.kiln.core.archive.ArchiveCache;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.contract.LeafIdHeal;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
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
 * Everything an {@link Engine} does besides the projection, in this process, for one workspace: the local facets
 * ({@link #seeds()}, {@link #probes()}, {@link #archives()}, {@link #store()}), heal, and the action table they share.
 * The in-process engine and the daemon's routes use these same facet objects, so a remote action does on the
 * daemon's host exactly what a local one does here.
 *
 * <p>Long actions run on their own daemon threads and are remembered by id (for cancel and status) and by
 * idempotency key (a repeated key answers the first action instead of starting a second). A key names one request:
 * it is held with the action's kind (its route) and the request itself (target, probe request, server), and the
 * same key with another kind or request is refused ({@link EngineException.Refusal#KEY_REUSED}) instead of
 * answering an action that does something else. One table serves every facet, so a key given to a warm is refused
 * to a probe.
 *
 * <p>Thread-safety: thread-safe; the capabilities it wraps are, and the two action tables are concurrent maps (a key
 * is claimed with one {@code putIfAbsent}, so two racing requests with one key start one action).
 */
public final class WorkspaceActions implements AutoCloseable {
    private final WorkspaceLayout layout;
    private final EventSink events;
    private final Clock clock;
    private final LocalProbes probes;
    private final LocalSeeds seeds;
    private final LocalArchives archives;
    private final LocalStore store;
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
        this.events = events;
        this.clock = clock;
        this.probes = new LocalProbes(this, layout, settings, events, clock);
        this.seeds = new LocalSeeds(this, layout, seeds, probes, clock);
        this.archives = new LocalArchives(layout, archives);
        this.store = new LocalStore(this, layout, this.seeds, probes, this.archives, events, clock);
    }

    public WorkspaceLayout layout() {
        return layout;
    }

    /** The seeds of this workspace, in this process. */
    public Seeds seeds() {
        return seeds;
    }

    /** The startup probe, saved runs and bytecode of this workspace's servers, in this process. */
    public Probes probes() {
        return probes;
    }

    /** The archive cache, in this process. */
    public Archives archives() {
        return archives;
    }

    /** The workspace's object store, used with this host's credentials. */
    public Store store() {
        return store;
    }

    // --- heal

    /** See {@link Projection#heal}: an applied heal with a key seen before answers the first report. */
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

    // --- what the daemon serves besides the facets

    /**
     * The environment the store's AWS credential chain is read from (default: this process's, so a daemon uses its own
     * host's credentials). Tests give one; nothing else should.
     */
    public WorkspaceActions storeEnvironment(Map<String, String> environment) {
        store.environment(environment);
        return this;
    }

    /**
     * Why the configured store does not answer, for health's {@code store_unreachable}; empty when none is configured
     * or it answered the last check. The last push, pull or status read counts as a check; when none is younger than
     * {@link LocalStore#STORE_CHECK_TTL} this asks the store once (bounded by the client's retries).
     */
    public Optional<String> storeUnreachable() {
        return store.unreachable();
    }

    /** The store client's counters, when one was opened (for /metrics and {@code store/stats}); nothing is asked. */
    public dev.kiln.core.store.StoreStats storeStats() {
        return store.stats();
    }

    /** A saved run as stored: what the API serves ({@code probe/runs/{id}}, the probe-run file format). */
    public JsonNode probeRunDocument(String id) {
        return probes.runDocument(id);
    }

    /** The latest sweep as stored: what the API serves ({@code probe/sweep}). */
    public Optional<JsonNode> latestSweepDocument() {
        return probes.latestSweepDocument();
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

    /** What an action runs, and how to cancel it ({@code null}: interrupt its thread). */
    record Job<T>(@Nullable Runnable cancel, java.util.concurrent.Callable<T> work) {
    }

    /**
     * Starts an action of {@code kind} for {@code request} (equal requests are the same request), or answers the
     * action an earlier request with the same key started.
     */
    <T> Action<T> start(String kind, Object request, String described, String idempotencyKey,
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
        store.close();
    }

}
