package dev.kiln.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.contract.LeafIdHeal;
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
    private volatile Published published;
    /** Notified when the first revision is published. */
    private final Object firstPublished = new Object();
    private volatile WatchStatus metaWatch;
    /** The reason of the tick in progress, for {@code meta.daemon} (written by that very tick). */
    private volatile WakeReason ticking;
    private final Duration heartbeat;
    /** Stale seeds and the latest probe for the health body, computed at most every few seconds. */
    private final HostFacts hostFacts;

    private ProjectionDaemon(Builder b) throws IOException {
        this.layout = b.layout;
        this.clock = b.clock;
        this.heartbeat = b.pacing.heartbeat();
        this.hostFacts = new HostFacts(b.layout, b.clock, HostFacts.TTL);
        if (!layout.isWorkspace()) {
            throw new WorkspaceException(layout.root() + " is not a Kiln workspace (no kiln.json or tasks/)."
                    + " Create one with: kiln demo " + layout.root());
        }
        this.lock = ServeLock.acquire(layout);
        ApiServer started = null;
        ChangeWatcher w = null;
        try {
            this.token = ApiToken.writeNew(layout.apiTokenFile());
            this.projector = Projector.builder(layout).clock(clock).events(b.events).runtimeMeta(this::runtimeMeta)
                    .writeBehind(WRITE_BEHIND_ABOVE, WRITE_SPACING).build();
            this.fleet = new FleetMetrics(layout, clock, new MetricsSource(b.archiveStats));
            this.pacing = b.pacing;
            this.loop = new ProjectionLoop(b.ticker, clock, b.pacing, b.reconcile, this::project, fleet::onTick);
            ProjectionLoop l = loop;
            w = ChangeWatcher.builder(layout).clock(clock).events(b.events).backoff(b.backoffInitial, b.backoffMax)
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
            ApiServer.Builder ab = ApiServer.builder(new Backend(), token).bind(b.bind).port(b.port).hostNames(b.hostNames)
                    .prometheus(f::handle);
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
    Published current() {
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
            while (published == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException("no projection within " + timeout);
                }
                TimeUnit.NANOSECONDS.timedWait(firstPublished, left);
            }
        }
        return published.revision();
    }

    @Override
    public void close() {
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
            projector.meta(Wire.watchMeta(ws));
        }
        ticking = reason;
        TickResult r = full ? projector.tick(reason)
                : projector.tick(reason, changes.paths(ChangeDomain.CONTRACTS));
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
                api.droppedSseClients(), projector.stateSyncs(), pacing);
    }

    /** What {@code /metrics} reads at scrape time: volatile values only, never the loop's lock. */
    private final class MetricsSource implements FleetMetrics.Source {
        private final Supplier<ArchiveCacheStats> archives;

        MetricsSource(Supplier<ArchiveCacheStats> archives) {
            this.archives = archives;
        }

        @Override
        public long revision() {
            return ProjectionDaemon.this.revision();
        }

        @Override
        public WatchStatus watch() {
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
        public ArchiveCacheStats archiveStats() {
            ArchiveCacheStats s = archives.get();
            return s == null ? ArchiveCacheStats.empty() : s;
        }
    }

    private final class Backend implements ApiServer.Backend {
        @Override
        public Published current() {
            return published;
        }

        @Override
        public JsonNode metrics() {
            return metricsJson();
        }

        @Override
        public JsonNode health() {
            return Wire.healthFacts(Wire.health(loop.metrics(), revision(), watcher.status(), clock.instant(), heartbeat),
                    hostFacts.get());
        }

        @Override
        public JsonNode project() throws InterruptedException, ExecutionException, TimeoutException {
            return Wire.tick(projectNow());
        }

        @Override
        public JsonNode heal(boolean dryRun) {
            HealReport r = LeafIdHeal.sweep(layout.tasksDir(), dryRun);
            if (!dryRun && !r.changes().isEmpty()) {
                loop.requestManual(); // the watcher sees the rewrites too; this makes the next projection full
            }
            return Wire.heal(r);
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
