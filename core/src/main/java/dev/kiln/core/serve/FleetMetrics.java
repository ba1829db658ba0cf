package dev.kiln.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.TickRecord;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.startup.ProbeRuns;
import dev.kiln.core.watch.WatchStatus;
import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.core.workspace.WorkspaceLayout;
import com.sun.net.httpserver.HttpExchange;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A daemon's Prometheus metrics ({@code GET /metrics}, text exposition): one registry per daemon (never the client's
 * global default, so daemons in one process — the console, tests — do not mix), fed from values that already exist.
 *
 * <ul>
 *   <li>Projection: every tick the loop finishes ({@link #onTick}), the watch's degrades ({@link #onDegraded}), and at
 *       scrape time the daemon's revision, watch, SSE and state-file figures ({@link Source}).
 *   <li>Archive cache: the process's {@link ArchiveCacheStats} at scrape time (zero in a bare {@code kiln serve},
 *       which builds no archives; the console's daemon shows its cache).
 *   <li>Seeds and probes: what the workspace records on disk, so a warm or probe run by any process on the host
 *       ({@code kiln warm} from cron, the console) is counted once — the warm journal, the seeds' manifests and the
 *       saved probe runs, read again only when they changed.
 * </ul>
 *
 * <p>Labels are bounded: wake reasons and warm outcomes are enums; targets and servers are what the workspace
 * configures. No contract path or leaf id is ever a label value (there can be 10,000 of them, each a new series).
 *
 * <p>Concurrency: {@link #onTick} runs on the loop thread and only touches the client's lock-free counters and
 * histograms, so a scrape never holds up a tick; scrape-time reads are of volatile values (the state file's sync
 * counters: a monitor held for a few instructions, never across a sync). {@link #refresh()} (file reads) is
 * serialized by this object's monitor, which no tick ever takes.
 */
final class FleetMetrics {
    private static final Logger LOG = LoggerFactory.getLogger(FleetMetrics.class);

    /** Tick durations: an incremental tick is milliseconds, a full one at 10,000 contracts a few hundred. */
    static final double[] TICK_BUCKETS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    /** Warms: a no-op is milliseconds, a cold uv warm minutes. */
    static final double[] WARM_BUCKETS = {0.1, 1, 5, 10, 30, 60, 120, 300, 600, 1800};
    /** Initialize: edges at the clients' startup timeouts (10, 30, 60 s) so "over timeout" is a bucket query. */
    static final double[] INITIALIZE_BUCKETS = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 45, 60, 120};

    /** What the daemon tells at scrape time; each read is cheap and never waits for a tick. */
    interface Source {
        long revision();

        /** The watch now; null while the daemon is still starting. */
        @Nullable WatchStatus watch();

        int sseClients();

        long droppedSseClients();

        Projector.StateSyncs stateSyncs();

        /** Whether observer/state.json cannot be written now (the served revision lives in memory only). */
        boolean stateFileFailing();

        ArchiveCacheStats archiveStats();

        /** The health answer, read back as a client reads it, verdict included; null while it cannot be said. */
        default @org.jspecify.annotations.Nullable DaemonHealth health() {
            return null;
        }

        /** The object store client's counters (kiln.json "store"); empty when none was used. */
        default dev.kiln.core.store.StoreStats storeStats() {
            return dev.kiln.core.store.StoreStats.EMPTY;
        }
    }

    private static final ExpositionFormatWriter TEXT = PrometheusTextFormatWriter.create();
    private static final ExpositionFormatWriter OPEN_METRICS = OpenMetricsTextFormatWriter.create();

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final WorkspaceLayout layout;

    private final Counter ticks;
    private final Counter tickFailures;
    private final Histogram tickSeconds;
    private final Counter parsed;
    private final Counter reused;
    private final Gauge contracts;
    private final Gauge contractFailures;
    private final Counter degrades;
    private final Counter warms;
    private final Histogram warmSeconds;
    private final Histogram initializeSeconds;
    private final Counter probeStarts;
    private final Gauge overTimeout;
    private final Gauge lastProbe;

    // refresh state, guarded by this
    private final Supplier<SeedCaches> seeds;
    private @Nullable SeedCaches seedCaches; // read on the first refresh
    private @Nullable Object journalStamp;
    private int journalSeen;
    private final Set<String> probeRunsSeen = new HashSet<>();
    private volatile List<SeedInfo> seedInfos = List.of();

    FleetMetrics(WorkspaceLayout layout, Clock clock, Source source) {
        this.layout = Objects.requireNonNull(layout, "layout");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(source, "source");
        this.seeds = () -> SeedCaches.builder(layout.root()).clock(clock).build();

        Info.builder().name("kiln_build_info").help("Kiln build; the value is always 1").labelNames("version")
                .register(registry).setLabelValues(version());

        ticks = Counter.builder().name("kiln_projection_ticks_total").help("Projection ticks run, by why the loop woke")
                .labelNames("wake").register(registry);
        for (WakeReason r : WakeReason.values()) {
            ticks.labelValues(r.jsonName()); // every reason present from the start, so rate() sees the first one
        }
        tickFailures = Counter.builder().name("kiln_projection_tick_failures_total")
                .help("Projection ticks that failed (the next one re-enumerates everything)").register(registry);
        tickSeconds = Histogram.builder().name("kiln_projection_tick_duration_seconds")
                .help("Duration of one projection tick, incremental or full").classicOnly().classicUpperBounds(TICK_BUCKETS)
                .withoutExemplars().register(registry);
        parsed = Counter.builder().name("kiln_projection_contracts_parsed_total")
                .help("Contract files read and parsed by ticks (per tick: divide by the ticks' increase)").register(registry);
        reused = Counter.builder().name("kiln_projection_contracts_reused_total")
                .help("Contract files whose unchanged stat identity let a tick reuse the cached parse").register(registry);
        contracts = Gauge.builder().name("kiln_projection_contracts")
                .help("Contracts in the projection of the last successful tick (an incremental tick counts the whole projection)").register(registry);
        contractFailures = Gauge.builder().name("kiln_projection_contract_failures")
                .help("Contract files and directories that failed to read or parse in the last successful tick").register(registry);
        GaugeWithCallback.builder().name("kiln_projection_revision").help("Revision of the served state document")
                .callback(cb -> cb.call(source.revision())).register(registry);

        GaugeWithCallback.builder().name("kiln_watch_live").help("1 while change events drive the projection, 0 while degraded")
                .callback(cb -> {
                    WatchStatus ws = source.watch();
                    cb.call(ws != null && ws.live() ? 1 : 0);
                }).register(registry);
        GaugeWithCallback.builder().name("kiln_watch_directories").help("Directories the watch holds an inotify watch on")
                .callback(cb -> {
                    WatchStatus ws = source.watch();
                    cb.call(ws == null ? 0 : ws.watchedDirectories());
                }).register(registry);
        GaugeWithCallback.builder().name("kiln_watch_polled_directories")
                .help("Directories left unwatched because the inotify watch limit is too low, stat-walked periodically instead")
                .callback(cb -> {
                    WatchStatus ws = source.watch();
                    cb.call(ws == null ? 0 : ws.polledDirectories());
                }).register(registry);
        degrades = Counter.builder().name("kiln_watch_degrades_total")
                .help("Times the watch degraded to interval projection (watch lost, events overflowed)").register(registry);

        GaugeWithCallback.builder().name("kiln_sse_clients").help("Connected /api/events clients")
                .callback(cb -> cb.call(source.sseClients())).register(registry);
        CounterWithCallback.builder().name("kiln_sse_clients_dropped_total")
                .help("/api/events clients dropped because they could not keep up")
                .callback(cb -> cb.call(source.droppedSseClients())).register(registry);
        CounterWithCallback.builder().name("kiln_state_file_syncs_total")
                .help("Background syncs that made observer/state.json durable")
                .callback(cb -> cb.call(source.stateSyncs().syncs())).register(registry);
        CounterWithCallback.builder().name("kiln_state_file_sync_seconds_total")
                .help("Time spent in those syncs (off the ticks)")
                .callback(cb -> cb.call(source.stateSyncs().totalMillis() / 1e3)).register(registry);
        GaugeWithCallback.builder().name("kiln_state_file_write_failing")
                .help("1 while observer/state.json cannot be written (disk full, read-only, permissions: the health answer"
                        + " and the log say why); the served revision is then in memory only")
                .callback(cb -> cb.call(source.stateFileFailing() ? 1 : 0)).register(registry);

        health(source);

        archiveCounter("kiln_archive_cache_hits_total", "Archive requests served from the cache", source,
                s -> s.hits());
        archiveCounter("kiln_archive_cache_misses_total", "Archive requests that found no usable archive", source,
                s -> s.misses());
        archiveCounter("kiln_archive_cache_builds_total", "Archives built", source, s -> s.builds());
        archiveCounter("kiln_archive_cache_build_failures_total", "Archive builds that failed", source,
                s -> s.buildFailures());
        archiveCounter("kiln_archive_cache_evictions_total", "Archives dropped from the cache", source,
                s -> s.evictions());
        GaugeWithCallback.builder().name("kiln_archive_cache_bytes").help("Bytes of the archives the cache holds")
                .callback(cb -> cb.call(source.archiveStats().bytesHeld())).register(registry);

        storeCounter("kiln_store_pushes_total", "Pushes (seeds, server seeds, archives) that wrote an object to the store",
                source, s -> s.pushes());
        storeCounter("kiln_store_pushes_skipped_total", "Pushes (seeds, server seeds, archives) that found the key already stored",
                source, s -> s.pushesSkipped());
        storeCounter("kiln_store_pulls_total", "Pulls (seeds, server seeds, archives) that installed the store's object",
                source, s -> s.pulls());
        storeCounter("kiln_store_sent_bytes_total", "Object bytes uploaded to the store", source, s -> s.bytesSent());
        storeCounter("kiln_store_received_bytes_total", "Object bytes downloaded from the store", source,
                s -> s.bytesReceived());
        storeCounter("kiln_store_failures_total", "Store pushes and pulls that failed (after their retries)", source,
                s -> s.failures());

        warms = Counter.builder().name("kiln_seed_warms_total").help("Seed warms recorded in the workspace's warm journal, by outcome")
                .labelNames("outcome").register(registry);
        for (WarmOutcome o : WarmOutcome.values()) {
            warms.labelValues(o.label());
        }
        warmSeconds = Histogram.builder().name("kiln_seed_warm_duration_seconds").help("Duration of one seed warm")
                .classicOnly().classicUpperBounds(WARM_BUCKETS).withoutExemplars().register(registry);
        GaugeWithCallback.builder().name("kiln_seed_age_seconds").help("Time since each target's seed was warmed")
                .labelNames("target").callback(cb -> {
                    Instant now = clock.instant();
                    for (SeedInfo s : seedInfos) {
                        s.warmedAt().ifPresent(at -> cb.call(Math.max(0, Duration.between(at, now).toMillis() / 1e3), s.target()));
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("kiln_seed_current").help("1 when a target's seed matches its lockfile now, else 0")
                .labelNames("target").callback(cb -> seedInfos.forEach(s -> cb.call(s.current() ? 1 : 0, s.target())))
                .register(registry);

        initializeSeconds = Histogram.builder().name("kiln_probe_initialize_duration_seconds")
                .help("Spawn to initialize answer of each MCP server, over the workspace's saved probe runs")
                .labelNames("server").classicOnly().classicUpperBounds(INITIALIZE_BUCKETS).withoutExemplars()
                .register(registry);
        probeStarts = Counter.builder().name("kiln_probe_server_starts_total")
                .help("Server starts in the workspace's saved probe runs, by server and outcome (ok, timeout, exited, ...)")
                .labelNames("server", "outcome").register(registry);
        overTimeout = Gauge.builder().name("kiln_probe_servers_over_timeout")
                .help("Servers whose initialize took longer than their startup timeout in the latest probe run").register(registry);
        lastProbe = Gauge.builder().name("kiln_probe_last_run_timestamp_seconds")
                .help("When the latest saved probe run started (Unix time)").register(registry);
    }

    /**
     * The verdict ({@code kiln_health{state}}: 1 for the verdict's state, 0 for the others), its reasons
     * ({@code kiln_health_reason{code}}: every code of the table, 1 while it applies) and the projection's age, in
     * seconds and in heartbeats (what the stale rule compares). Each is read from the health answer, as a client reads it.
     */
    private void health(Source source) {
        Supplier<DaemonHealth> now = source::health; // cheap: the host's facts are cached, the rest is in memory
        GaugeWithCallback.builder().name("kiln_health")
                .help("1 for the daemon's health verdict (healthy, degraded, failing; GET /api/v1/health says why), 0 for the others")
                .labelNames("state").callback(cb -> {
                    DaemonHealth h = now.get();
                    if (h != null) {
                        for (dev.kiln.core.health.HealthState s : dev.kiln.core.health.HealthState.values()) {
                            cb.call(h.verdict().state() == s ? 1 : 0, s.wireName());
                        }
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("kiln_health_reason")
                .help("1 while a reason of the health verdict applies, by its code (docs/HEALTH.md has the table)")
                .labelNames("code").callback(cb -> {
                    DaemonHealth h = now.get();
                    if (h != null) {
                        for (dev.kiln.core.health.HealthRules.Row r : dev.kiln.core.health.HealthRules.table()) {
                            cb.call(h.verdict().has(r.code()) ? 1 : 0, r.code());
                        }
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("kiln_projection_age_seconds")
                .help("Age of the last projection, by the daemon's clock (a live projection is never older than a few heartbeats)")
                .callback(cb -> {
                    DaemonHealth h = now.get();
                    if (h != null) {
                        h.lastProjectionAge().ifPresent(a -> cb.call(a.toMillis() / 1e3));
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("kiln_projection_age_heartbeats")
                .help("Age of the last projection in heartbeats (over 3: the loop is stuck)")
                .callback(cb -> {
                    DaemonHealth h = now.get();
                    if (h != null && !h.heartbeat().isZero()) {
                        h.lastProjectionAge().ifPresent(a ->
                                cb.call(dev.kiln.core.health.HealthEvidence.ageInHeartbeats(a, h.heartbeat())));
                    }
                }).register(registry);
    }

    private void storeCounter(String name, String help, Source source,
            java.util.function.ToLongFunction<dev.kiln.core.store.StoreStats> f) {
        CounterWithCallback.builder().name(name).help(help).callback(cb -> cb.call(f.applyAsLong(source.storeStats())))
                .register(registry);
    }

    private void archiveCounter(String name, String help, Source source, java.util.function.ToLongFunction<ArchiveCacheStats> f) {
        CounterWithCallback.builder().name(name).help(help).callback(cb -> cb.call(f.applyAsLong(source.archiveStats())))
                .register(registry);
    }

    /**
     * The core jar's {@code Implementation-Version}, or {@code unknown} when run from classes. A named module's
     * {@link Package} carries no manifest attributes, so on the module path the manifest is read from the module.
     */
    static String version() {
        Module m = FleetMetrics.class.getModule();
        if (m.isNamed()) {
            try (java.io.InputStream in = m.getResourceAsStream("META-INF/MANIFEST.MF")) {
                if (in != null) {
                    String v = new java.util.jar.Manifest(in).getMainAttributes().getValue("Implementation-Version");
                    if (v != null) {
                        return v;
                    }
                }
            } catch (IOException e) {
                LOG.debug("no manifest: {}", e.toString());
            }
        }
        String v = FleetMetrics.class.getPackage().getImplementationVersion();
        return v == null ? "unknown" : v;
    }

    /**
     * Answers a scrape: OpenMetrics text when the scraper accepts it (Prometheus does), else the Prometheus text format;
     * never protobuf, whatever is asked (it is not on the runtime path). Not the client's {@code MetricsHandler}: without
     * the protobuf jar it answers a protobuf {@code Accept} with 500. No gzip: the exposition has no per-contract series,
     * so it stays a few KiB at any workspace size.
     */
    void handle(HttpExchange x) throws IOException {
        String accept = x.getRequestHeaders().getFirst("Accept");
        ExpositionFormatWriter w = accept != null && OPEN_METRICS.accepts(accept) ? OPEN_METRICS : TEXT;
        MetricSnapshots snapshots = scrape();
        ByteArrayOutputStream body = new ByteArrayOutputStream(16 * 1024);
        w.write(body, snapshots, accept == null ? EscapingScheme.DEFAULT : EscapingScheme.fromAcceptHeader(accept));
        x.getResponseHeaders().set("Content-Type", w.getContentType());
        x.getResponseHeaders().set("Cache-Control", "no-cache");
        x.sendResponseHeaders(200, body.size());
        try (OutputStream out = x.getResponseBody()) {
            body.writeTo(out);
        }
    }

    /** Refreshes the workspace-derived metrics, then scrapes (for in-process readers: tests, the benchmark). */
    MetricSnapshots scrape() {
        refresh();
        return registry.scrape();
    }

    /** A tick the loop finished. Called on the loop thread. */
    void onTick(TickRecord r) {
        ticks.labelValues(r.reason().jsonName()).inc();
        tickSeconds.observe(r.durationNanos() / 1e9);
        if (!r.error().isEmpty()) {
            tickFailures.inc();
            return;
        }
        parsed.inc(r.counter("parsed"));
        reused.inc(r.counter("reused"));
        // the projection's whole count: an incremental tick enumerates only what changed, so "enumerated" is not it
        contracts.set(r.counter("leaves"));
        contractFailures.set(r.counter("failed"));
    }

    /** The watch degraded. */
    void onDegraded() {
        degrades.inc();
    }

    /**
     * Reads what changed on disk since the last scrape: new warm-journal lines, the seeds' manifests, new saved probe
     * runs. A problem is logged and leaves the previous figures; a scrape never fails because of the workspace.
     */
    synchronized void refresh() {
        try {
            refreshSeeds();
        } catch (RuntimeException e) {
            LOG.debug("seed metrics not refreshed: {}", e.toString());
        }
        try {
            refreshProbes();
        } catch (RuntimeException e) {
            LOG.debug("probe metrics not refreshed: {}", e.toString());
        }
    }

    private void refreshSeeds() {
        SeedCaches seedCaches = this.seedCaches;
        if (seedCaches == null) {
            seedCaches = seeds.get(); // reads kiln.json once: where the seeds live
            this.seedCaches = seedCaches;
        }
        Path journal = seedCaches.journalFile();
        Object stamp = stamp(journal);
        if (stamp != null && !stamp.equals(journalStamp)) {
            List<WarmResult> all = seedCaches.history();
            if (all.size() < journalSeen) {
                LOG.info("{} got shorter ({} → {} warms); counting from its new end", journal, journalSeen, all.size());
                journalSeen = all.size(); // counters never go down: a truncated journal is not a negative warm
            }
            for (WarmResult w : all.subList(journalSeen, all.size())) {
                warms.labelValues(w.outcome().label()).inc();
                warmSeconds.observe(w.duration().toMillis() / 1e3);
            }
            journalSeen = all.size();
            journalStamp = stamp;
        }
        seedInfos = List.copyOf(seedCaches.seeds());
    }

    private void refreshProbes() {
        List<Path> runs = ProbeRuns.list(layout); // newest first
        boolean newest = true;
        for (Path run : runs) {
            String name = run.getFileName().toString();
            if (!probeRunsSeen.add(name)) {
                newest = false;
                continue;
            }
            JsonNode report;
            try {
                report = ProbeRuns.load(run);
            } catch (WorkspaceException e) {
                LOG.debug("{}", e.getMessage());
                continue;
            }
            for (JsonNode r : report.path("runs")) {
                String server = r.path("name").asText("?");
                JsonNode ms = r.path("initialize_ms");
                if (ms.isNumber()) {
                    initializeSeconds.labelValues(server).observe(ms.asDouble() / 1e3);
                }
                // "exited(1)" → "exited": the outcome label stays one of Outcome's few labels
                probeStarts.labelValues(server, r.path("outcome").asText("unknown").replaceFirst("\\(.*", "")).inc();
            }
            if (newest) {
                JsonNode summary = report.path("summary");
                overTimeout.set(summary.path("over_timeout").asLong());
                try {
                    lastProbe.set(Instant.parse(summary.path("started_at").asText()).toEpochMilli() / 1e3);
                } catch (java.time.format.DateTimeParseException e) {
                    LOG.debug("{}: no started_at", run);
                }
            }
            newest = false;
        }
    }

    /** Size and modification time, or null when absent: a changed stamp means new journal lines. */
    private static @Nullable Object stamp(Path f) {
        try {
            BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
            return List.of(a.size(), a.lastModifiedTime());
        } catch (IOException e) {
            return null;
        }
    }
}
