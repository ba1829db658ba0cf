package dev.kiln.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.archive.ArchiveCache;
import dev.kiln.core.doctor.Doctor;
import dev.kiln.core.engine.EngineEvent;
import dev.kiln.core.engine.WorkspaceActions;
import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.projection.DaemonMetrics;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.projection.TickRecord;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.core.serve.client.ServeLock;
import dev.kiln.core.serve.wire.ApiToken;
import dev.kiln.core.serve.wire.HealthWire;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.workspace.WorkspaceSettings;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.snapshot.SnapshotStats;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.watch.ChangeDomain;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.watch.ChangeWatcher;
import dev.kiln.core.telemetry.Ticker;
import dev.kiln.core.watch.WatchStatus;
import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change-driven projector daemon of one workspace ({@code kiln serve}): a {@link ChangeWatcher} feeds a
 * {@link ProjectionLoop} (the pacer decides when), each tick runs the {@link Projector} — incrementally over the
 * paths the watcher named while the watch is live — and every new revision goes out through the {@link ApiServer}.
 * The watch status sits in the state document's {@code meta.watch} (stable: a degrade is a new revision), the
 * instrumentation in {@code meta.daemon} (volatile), at {@code GET /api/metrics} and, for Prometheus, at
 * {@code GET /metrics} ({@link FleetMetrics}).
 *
 * <p>Its API also runs the workspace's {@link WorkspaceActions} (heal, seeds, probe, bytecode, archive cache) for a
 * remote console ({@link RemoteEngine}), and every core event — its own ticks and watch changes and the actions'
 * events, which arrive on the bus given with {@link Builder#actions} — goes out to SSE clients as a frame.
 *
 * <p>One daemon per workspace ({@link ServeLock}); a fresh API token per start in {@code observer/api-token}.
 * {@link #close()} stops the API, lets a running tick finish (the state file is replaced atomically, never left
 * half-written), closes the watcher, removes the token and releases the lock.
 *
 * <p>Its public face is what {@code kiln serve}, the benchmarks and the tests of other modules need: start, where it
 * listens, its watch, its figures, stop. The engine (loop, API server, SSE hub, token) is package-private; a console
 * reaches a daemon through {@link WorkspaceOwnership}.
 *
 * <p>Concurrency: the loop thread runs the ticks and alone writes {@code published}, {@code metaWatch} and
 * {@code ticking} (volatile: HTTP threads and the projector's meta callback read them); HTTP threads only read.
 */
public final class ProjectionDaemon implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProjectionDaemon.class);
    /**
     * State documents above this size (about 3,000 leaves) are written behind the tick: the API and SSE serve the
     * revision from memory at once, and {@code observer/state.json} follows, coalesced, within about
     * {@link #WRITE_SPACING} plus one write. Smaller ones are written in the tick, so the file is never behind.
     */
    static final long WRITE_BEHIND_ABOVE = 1 << 20;
    static final Duration WRITE_SPACING = Duration.ofMillis(250);

    private final WorkspaceLayout layout;
    private final Clock clock;
    private final ServeLock lock;
    private final Projector projector;
    private final ProjectionLoop loop;
    private final ChangePacer.Settings pacing;
    private final ChangeWatcher watcher;
    private final ApiServer api;
    private final ApiToken token;
    private final FleetMetrics fleet;
    private volatile @Nullable Published published; // null before the first tick
    /** Notified when the first revision is published. */
    private final Object firstPublished = new Object();
    private volatile @Nullable WatchStatus metaWatch;
    /** The reason of the tick in progress, for {@code meta.daemon} (written by that very tick). */
    private volatile @Nullable WakeReason ticking;
    private final Duration heartbeat;
    private final WorkspaceActions actions;
    /** Whether {@link #actions} is this daemon's own (closed with it) rather than its starter's. */
    private final boolean ownActions;
    private final @org.jspecify.annotations.Nullable AutoCloseable actionSubscription;
    /** The loop thread while it runs the projector's tick: that tick's TickFinished waits for the revision's delta. */
    private volatile @org.jspecify.annotations.Nullable Thread inTick;
    private @org.jspecify.annotations.Nullable TickFinished pendingTick;
    /** Stale seeds and the latest probe for the health body, computed at most every few seconds. */
    private final HostFacts hostFacts;
    /** Who this daemon runs for, as its lock file and {@code meta.writer} say. */
    private final ServeLock.Kind holderKind;

    private ProjectionDaemon(Builder b) throws IOException {
        this.layout = b.layout;
        this.clock = b.clock;
        this.heartbeat = b.pacing.heartbeat();
        // Every core event also goes to SSE clients. The actions' events arrive through their bus; when the daemon's
        // own sink is that same bus, its events do too, and must not be sent twice.
        EventSink own = b.actionEvents != null && b.actionEvents == b.events ? b.events : e -> {
            b.events.publish(e);
            toClients(e);
        };
        this.hostFacts = new HostFacts(b.layout, b.clock, HostFacts.TTL);
        if (!layout.isWorkspace()) {
            throw new WorkspaceException(layout.root() + " is not a Kiln workspace (no kiln.json or tasks/)."
                    + " Create one with: kiln demo " + layout.root());
        }
        this.holderKind = b.holderKind;
        this.lock = ServeLock.acquire(layout, b.holderKind); // before anything of this daemon is written
        ApiServer started = null;
        ChangeWatcher w = null;
        try {
            this.token = ApiToken.writeNew(layout.apiTokenFile());
            this.projector = Projector.builder(layout).clock(clock).events(own).runtimeMeta(this::runtimeMeta)
                    .writeBehind(WRITE_BEHIND_ABOVE, WRITE_SPACING).build();
            this.fleet = new FleetMetrics(layout, clock, new MetricsSource(b.archiveStats));
            this.pacing = b.pacing;
            this.loop = new ProjectionLoop(b.ticker, clock, b.pacing, b.reconcile, this::project, fleet::onTick);
            ProjectionLoop l = loop;
            ChangeWatcher.Builder wb = ChangeWatcher.builder(layout).clock(clock).events(own).backoff(b.backoffInitial, b.backoffMax);
            if (b.watchLimit > 0) {
                wb.watchLimit(b.watchLimit);
            }
            w = wb
                    .listener(new ChangeWatcher.Listener() {
                        @Override
                        public void onChange(ChangeDomain domain, Path path) {
                            l.onChange(domain, path);
                        }

                        @Override
                        public void onLive(WatchStatus status) {
                            l.onLive(status);
                        }

                        @Override
                        public void onDegraded(WatchStatus status) {
                            fleet.onDegraded();
                            l.onDegraded(status);
                        }
                    }).build();
            this.watcher = w;
            FleetMetrics f = fleet;
            if (b.actions != null) {
                this.actions = b.actions;
                this.ownActions = false;
            } else {
                WorkspaceSettings settings = WorkspaceSettings.read(layout.root());
                this.actions = new WorkspaceActions(layout, settings,
                        ArchiveCache.builder().maximumBytes(settings.archiveCacheMaxBytes()).eventSink(own).clock(clock).build(),
                        SeedCaches.builder(layout.root()).settings(settings).clock(clock).events(own).build(), own, clock);
                this.ownActions = true;
            }
            this.actionSubscription = b.actionEvents == null ? null : b.actionEvents.subscribe(this::toClients);
            ApiServer.Builder ab = ApiServer.builder(new Backend(), token).bind(b.bind).port(b.port).hostNames(b.hostNames)
                    .prometheus(f::handle);
            if (b.sseHistory > 0) {
                ab.history(b.sseHistory);
            }
            if (b.tls != null) {
                ab.tls(b.tls);
            }
            started = ab.build().start();
            this.api = started;
            lock.announce(started.url(), started.tlsFingerprint());
            // Watch first, then the startup tick: the full enumeration of startup covers anything before the watch.
            watcher.start();
            loop.start();
        } catch (IOException | RuntimeException e) {
            closeActionsQuietly();
            if (started != null) {
                started.close();
            }
            if (w != null) {
                w.close();
            }
            lock.close();
            throw e;
        }
    }

    public static Builder builder(WorkspaceLayout layout) {
        return new Builder(layout);
    }

    /** The daemon's projector: its snapshot is what the console shows; its ticks are the loop's. */
    Projector projector() {
        return projector;
    }

    /** The API's base URL. */
    public URI url() {
        return api.url();
    }

    public int port() {
        return api.port();
    }

    /**
     * The SHA-256 fingerprint ({@code AB:CD:…}) of the certificate the API serves with TLS, for a client to pin;
     * empty without TLS.
     */
    public java.util.Optional<String> tlsFingerprint() {
        return java.util.Optional.ofNullable(api.tlsFingerprint());
    }

    /** Where this start's API token is. */
    public Path tokenFile() {
        return layout.apiTokenFile();
    }

    ApiToken token() {
        return token;
    }

    public WatchStatus watchStatus() {
        return watcher.status();
    }

    /** The loop's instrumentation now (an immutable value). */
    public DaemonMetrics metrics() {
        return loop.metrics();
    }

    /**
     * Runs a manual projection through the loop (so it is counted, published and serialized with the watcher's
     * ticks, unlike a tick on {@link #projector()} itself) and waits for it.
     */
    TickRecord projectNow() throws InterruptedException, ExecutionException, TimeoutException {
        return loop.requestManual().get(2, TimeUnit.MINUTES);
    }

    /** The current published projection, or null before the first tick. */
    @Nullable Published current() {
        return published;
    }

    /** The revision it serves now; 0 before the first tick. */
    public long revision() {
        Published p = published;
        return p == null ? 0 : p.revision();
    }

    /**
     * Waits until the first tick has published a revision.
     *
     * @return that revision
     */
    public long awaitFirstProjection(Duration timeout) throws InterruptedException, TimeoutException {
        synchronized (firstPublished) {
            long deadline = System.nanoTime() + timeout.toNanos();
            // The tick's record, which /health and /metrics read, lands just after its revision is published: wait
            // for both, so that a caller's next health answer already judges this projection.
            while (published == null || loop.metrics().last().isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException("no projection within " + timeout);
                }
                TimeUnit.NANOSECONDS.timedWait(firstPublished, published == null ? left
                        : Math.min(left, TimeUnit.MILLISECONDS.toNanos(5)));
            }
        }
        return published.revision();
    }

    /** The heal, seed, probe, bytecode and archive actions the API runs. */
    WorkspaceActions actions() {
        return actions;
    }

    /** Ends every SSE client's stream; they reconnect and resume with {@code Last-Event-ID} (tests of resumption). */
    void dropSseClients() {
        api.dropSseClients();
    }

    /**
     * Sends a core event to the API's SSE clients, if its type goes to clients. A tick's {@code TickFinished} waits
     * until the tick's revision went out, so that a client that reloads on a tick finds the new state.
     */
    private void toClients(KilnEvent e) {
        String name = Wire.eventName(e);
        ApiServer a = api;
        if (name == null) {
            return;
        }
        if (e instanceof TickFinished t && inTick == Thread.currentThread()) { // inside project(): after the revision
            pendingTick = t;
            return;
        }
        com.fasterxml.jackson.databind.node.ObjectNode data = Wire.event(e);
        if (e instanceof EngineEvent.ActionFinished f && actions != null) {
            actions.action(f.id()).ifPresent(act -> data.set("action", Wire.action(act)));
        }
        if (a == null) {
            return; // still starting: no client can be connected yet
        }
        try {
            a.publishEvent(name, Wire.JSON.writeValueAsString(data));
        } catch (IOException ex) {
            LOG.error("A {} event could not be written as JSON; SSE clients miss it: {}", name, ex.getMessage());
        }
    }

    private void closeActionsQuietly() {
        try {
            if (actionSubscription != null) {
                actionSubscription.close();
            }
        } catch (Exception e) {
            LOG.debug("unsubscribing: {}", e.toString());
        }
        if (ownActions && actions != null) {
            actions.close();
        }
    }

    @Override
    public void close() {
        closeActionsQuietly();
        api.close();
        loop.close();
        watcher.close();
        try {
            projector.flush(); // no tick runs any more: the last document becomes durable before the lock goes
        } catch (IOException e) {
            LOG.error("{}", e.getMessage());
        }
        try {
            Files.deleteIfExists(layout.apiTokenFile());
        } catch (IOException e) {
            LOG.warn("Could not remove {}: {}", layout.apiTokenFile(), e.getMessage());
        }
        lock.close();
    }

    // ---- the tick ---------------------------------------------------------------------------------------------

    private ProjectionLoop.TickOutcome project(WakeReason reason, ChangeSet changes, boolean full) {
        WatchStatus ws = watcher.status();
        if (metaWatch == null || ws.live() != metaWatch.live() || !ws.reason().equals(metaWatch.reason())
                || ws.partial() != metaWatch.partial()) {
            metaWatch = ws;
            projector.meta(Wire.writerMeta(Wire.watchMeta(ws), ProcessHandle.current().pid(), holderKind.word()));
        }
        ticking = reason;
        TickResult r;
        inTick = Thread.currentThread();
        try {
            r = full ? projector.tick(reason) : projector.tick(reason, changes.paths(ChangeDomain.CONTRACTS));
        } finally {
            inTick = null;
        }
        Published p = published;
        // a new revision goes out from memory, exact; its bytes are assembled only if a client asks for them whole
        Projector.DocumentParts parts = projector.parts();
        if (parts != null && (p == null || parts.revision() > p.revision())) {
            Published next = new Published(parts);
            boolean first = p == null;
            published = next;
            api.publish(next);
            if (first) {
                synchronized (firstPublished) {
                    firstPublished.notifyAll();
                }
            }
        }
        TickFinished t = pendingTick;
        if (t != null) {
            pendingTick = null;
            toClients(t);
        }
        SnapshotStats s = r.stats();
        Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("enumerated", (long) s.enumerated());
        counters.put("parsed", (long) s.parsed());
        counters.put("reused", (long) s.reused());
        counters.put("failed", (long) s.failed());
        counters.put("pruned", (long) s.pruned());
        counters.put("build_us", s.buildNanos() / 1_000);
        counters.put("leaves", (long) r.leaves());
        return new ProjectionLoop.TickOutcome(r.revision(), r.changed(), counters);
    }

    /** {@code meta.daemon}: the loop's instrumentation, compact. Called by the projector while writing. */
    private JsonNode runtimeMeta() {
        WakeReason now = ticking == null ? WakeReason.MANUAL : ticking; // null: a tick on the projector itself
        return Wire.daemonMeta(loop.metrics(), now);
    }

    private JsonNode metricsJson() {
        return Wire.metrics(layout.root(), loop.metrics(), revision(), watcher.status(), api.sseClients(),
                api.droppedSseClients(), projector.stateSyncs(), projector.stateFileError(), pacing);
    }

    /**
     * The health answer with its verdict ({@link HealthWire}): the same body for {@code /api/v1/health}, the
     * {@code kiln_health} gauges and the console, judged once per ask.
     */
    private com.fasterxml.jackson.databind.node.ObjectNode healthBody() {
        WatchStatus ws = watcher.status();
        java.util.List<String> failed = projector.snapshot().failures().stream().map(f -> f.path())
                .limit(dev.kiln.core.health.HealthEvidence.NAMED_FAILURES).toList();
        HostFacts.Facts facts = hostFacts.get();
        com.fasterxml.jackson.databind.node.ObjectNode body = Wire.healthFacts(Wire.health(loop.metrics(), revision(), ws,
                clock.instant(), heartbeat, projector.stateFileError()), facts.seeds(), facts.lastProbe());
        WorkspaceActions a = actions;
        if (a != null) {
            a.storeUnreachable().ifPresent(s -> body.put("store_error", s)); // only while it applies
        }
        return HealthWire.judge(HealthWire.evidence(body, failed, ws), java.net.URI.create("http://127.0.0.1/"));
    }

    /** What {@code /metrics} reads at scrape time: volatile values only, never the loop's lock. */
    private final class MetricsSource implements FleetMetrics.Source {
        private final Supplier<ArchiveCacheStats> archives;

        MetricsSource(Supplier<ArchiveCacheStats> archives) {
            this.archives = archives;
        }

        @Override
        public dev.kiln.core.store.StoreStats storeStats() {
            WorkspaceActions a = actions;
            return a == null ? dev.kiln.core.store.StoreStats.EMPTY : a.storeStats();
        }

        @Override
        public long revision() {
            return ProjectionDaemon.this.revision();
        }

        @Override
        public @Nullable WatchStatus watch() {
            ChangeWatcher w = watcher;
            return w == null ? null : w.status();
        }

        @Override
        public int sseClients() {
            ApiServer a = api;
            return a == null ? 0 : a.sseClients();
        }

        @Override
        public long droppedSseClients() {
            ApiServer a = api;
            return a == null ? 0 : a.droppedSseClients();
        }

        @Override
        public Projector.StateSyncs stateSyncs() {
            return projector.stateSyncs();
        }

        @Override
        public boolean stateFileFailing() {
            return projector.stateFileError() != null;
        }

        @Override
        public @Nullable DaemonHealth health() {
            if (watcher == null) {
                return null; // still starting: no gauge of the verdict yet
            }
            try {
                return Wire.readHealth(java.net.URI.create("http://127.0.0.1/"), Wire.JSON.writeValueAsString(healthBody()),
                        java.util.Optional.empty());
            } catch (java.io.IOException | RuntimeException e) {
                LOG.debug("health not judged for /metrics: {}", e.toString()); // a scrape never fails for it
                return null;
            }
        }

        @Override
        public ArchiveCacheStats archiveStats() {
            ArchiveCacheStats s = archives.get();
            return s == null ? ArchiveCacheStats.empty() : s;
        }
    }

    private final class Backend implements ApiServer.Backend {
        @Override
        public @Nullable Published current() {
            return published;
        }

        @Override
        public JsonNode metrics() {
            return metricsJson();
        }

        @Override
        public JsonNode health() {
            return healthBody();
        }

        @Override
        public JsonNode project() throws InterruptedException, ExecutionException, TimeoutException {
            return Wire.tick(projectNow());
        }

        @Override
        public JsonNode heal(boolean dryRun, String idempotencyKey) {
            HealReport r = actions.heal(!dryRun, idempotencyKey);
            if (!dryRun && !r.changes().isEmpty()) {
                loop.requestManual(); // the watcher sees the rewrites too; this makes the next projection full
            }
            return Wire.heal(r);
        }

        @Override
        public WorkspaceActions actions() {
            return actions;
        }

        @Override
        public JsonNode doctor() {
            return Wire.value(Doctor.builder(layout, ServeClient.forDoctor()).clock(clock).ownDaemon(api.url()).build().diagnose());
        }
    }

    /** Configures a {@link ProjectionDaemon}; bad values are rejected when set. */
    public static final class Builder {
        private final WorkspaceLayout layout;
        private Clock clock = Clock.systemUTC();
        private Ticker ticker = Ticker.systemTicker();
        private EventSink events = EventSink.none();
        private ChangePacer.Settings pacing = ChangePacer.Settings.defaults();
        private Duration reconcile = Duration.ofMinutes(5);
        private Duration backoffInitial = Duration.ofSeconds(1);
        private Duration backoffMax = Duration.ofSeconds(30);
        private String bind = "127.0.0.1";
        private int port;
        private Supplier<ArchiveCacheStats> archiveStats = ArchiveCacheStats::empty;
        private @org.jspecify.annotations.Nullable TlsIdentity tls;
        private java.util.List<String> hostNames = java.util.List.of();
        private @org.jspecify.annotations.Nullable WorkspaceActions actions;
        private @org.jspecify.annotations.Nullable EventBus actionEvents;
        private int sseHistory;
        private ServeLock.Kind holderKind = ServeLock.Kind.SERVE;

        private Builder(WorkspaceLayout layout) {
            this.layout = Objects.requireNonNull(layout, "layout");
        }

        public Builder clock(Clock c) {
            this.clock = Objects.requireNonNull(c, "clock");
            return this;
        }

        public Builder events(EventSink sink) {
            this.events = Objects.requireNonNull(sink, "events");
            return this;
        }

        /** Settle, interval (spacing and degraded period) and heartbeat. */
        public Builder pacing(ChangePacer.Settings s) {
            this.pacing = Objects.requireNonNull(s, "pacing");
            return this;
        }

        /** A full enumeration at least this often while the watch is live (default 5 min). */
        public Builder reconcile(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("reconcile interval must be positive, got " + d);
            }
            this.reconcile = d;
            return this;
        }

        /** Re-establishing the watch after a failure: first wait and cap (default 1 s, 30 s). */
        public Builder watchBackoff(Duration initial, Duration max) {
            if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
                throw new IllegalArgumentException("back-off must be positive and max >= initial, got " + initial + ", " + max);
            }
            this.backoffInitial = initial;
            this.backoffMax = max;
            return this;
        }

        public Builder bind(String address) {
            this.bind = Objects.requireNonNull(address, "bind");
            return this;
        }

        /**
         * The archive cache of the process the daemon runs in, for {@code /metrics} (default: none, all zero). Read at
         * scrape time.
         */
        public Builder archiveStats(Supplier<ArchiveCacheStats> stats) {
            this.archiveStats = Objects.requireNonNull(stats, "stats");
            return this;
        }

        /**
         * Serves HTTPS with the key and certificate of a PKCS12 {@code keystore} whose password is the first line of
         * {@code passwordFile}. Required to bind beyond loopback.
         *
         * @throws IllegalArgumentException naming the file, when either cannot be used
         */
        public Builder tls(Path keystore, Path passwordFile) {
            this.tls = TlsIdentity.load(keystore, passwordFile);
            return this;
        }

        /** DNS names clients use to reach this machine, which a request's {@code Host} may give. */
        public Builder hostNames(java.util.List<String> names) {
            this.hostNames = java.util.List.copyOf(names);
            return this;
        }

        /**
         * The heal, seed, probe, bytecode and archive actions its API runs, and the bus they publish on (whose events
         * reach SSE clients). Default: its own, on this workspace, publishing where the daemon does; closed with it.
         * The daemon does not close given actions.
         */
        public Builder actions(WorkspaceActions a, EventBus theirEvents) {
            this.actions = Objects.requireNonNull(a, "actions");
            this.actionEvents = Objects.requireNonNull(theirEvents, "their events");
            return this;
        }

        /** Frames kept for SSE resumption (default: the API's, 1024). */
        Builder sseHistory(int frames) {
            if (frames < 1) {
                throw new IllegalArgumentException("SSE history must hold at least 1 frame, got " + frames);
            }
            this.sseHistory = frames;
            return this;
        }

        /**
         * Who runs this daemon (default {@link ServeLock.Kind#SERVE}): a console that owns the workspace says
         * {@link ServeLock.Kind#CONSOLE}, so that a refused {@code kiln serve} and the doctor name it as such.
         */
        public Builder holder(ServeLock.Kind kind) {
            this.holderKind = Objects.requireNonNull(kind, "kind");
            return this;
        }

        /**
         * The inotify watch limit the watch plans within (tests, here and in app: a partial watch without changing the
         * system's, which every process shares).
         */
        public Builder watchLimit(long limit) {
            this.watchLimit = limit;
            return this;
        }

        private long watchLimit;

        /** 0 picks any free port. */
        public Builder port(int p) {
            if (p < 0 || p > 65_535) {
                throw new IllegalArgumentException("port must be 0..65535, got " + p);
            }
            this.port = p;
            return this;
        }

        /**
         * Starts the daemon: lock, token, API, watch, then the startup projection (asynchronously).
         *
         * @throws WorkspaceException when another daemon serves the workspace, or it is no workspace
         * @throws IOException when the API cannot bind or the token cannot be written
         */
        public ProjectionDaemon start() throws IOException {
            ApiServer.checkExposure(bind, tls != null); // before the lock and the token: nothing to undo
            return new ProjectionDaemon(this);
        }
    }
}
