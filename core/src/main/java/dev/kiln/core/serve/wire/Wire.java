package dev.kiln.core.serve.wire;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.archive.ArchiveEvent;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.EngineEvent;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.engine.ProbeRequest;
import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.http.BoundedRead;
import dev.kiln.core.projection.DaemonMetrics;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.projection.TickRecord;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.startup.BytecodeMode;
import dev.kiln.core.startup.ProbeEvent;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.watch.WatchChanged;
import dev.kiln.core.telemetry.Figures;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.watch.WatchStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The API's wire format, in one place: routes, the JSON bodies of requests, answers and events, and the SSE
 * framing. The server ({@code ApiServer}, {@code SseHub}, {@code ProjectionDaemon}) writes through it and the clients
 * ({@code ServeClient}, {@code DaemonFollower}) read through it, so a shape changes in one place for both sides.
 *
 * <p>The state document itself ({@code GET /api/state}, the {@code snapshot} event) is the projector's
 * {@code observer/state.json}, served byte for byte; its shape belongs to {@code projection}, not here.
 *
 * <p>Concurrency: stateless; the one {@link ObjectMapper} is configured once and then only used (thread-safe).
 */
public final class Wire {
    /**
     * The one mapper of the API (both sides). Core records never travel as themselves: {@link #value} and {@link #read}
     * go through their explicit wire records ({@link WireTypes}), whose {@code @JsonProperty} names are the wire;
     * {@code Instant} is RFC 3339 text. A field a newer daemon adds is ignored by an older client.
     */
    public static final ObjectMapper JSON = com.fasterxml.jackson.databind.json.JsonMapper.builder()
            .addModule(new com.fasterxml.jackson.datatype.jdk8.Jdk8Module())
            .addModule(new com.fasterxml.jackson.datatype.jsr310.JavaTimeModule())
            .disable(com.fasterxml.jackson.databind.SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(com.fasterxml.jackson.databind.SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
            .disable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(com.fasterxml.jackson.databind.DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
            // the wire records are package-private: module-info opens this package (only) to Jackson
            .build();

    // ---- the API's version: a client refuses a daemon whose api_version it does not speak --------------------------
    /**
     * The version this build speaks, served at {@link #VERSION}; it changes only when a shape breaks. 2: the first
     * published contract (explicit wire types, one naming rule, docs/API.md); builds that spoke 1 wrote core records
     * by reflection (camelCase, ISO durations, {@code file:} URIs) and refuse a daemon of 2 as "speaks API v2", and a
     * client of 2 refuses theirs the same way. The routes stay under {@code /api/v1/}: the path names the family,
     * this number the shapes.
     */
    public static final int API_VERSION = 2;
    private static final String V1 = "api/v1/";
    /** Unversioned paths of the first API ({@code /api/state}…), kept as aliases of their v1 route. */
    private static final String LEGACY = "api/";

    // ---- routes (relative to the base URL, e.g. http://127.0.0.1:7117/) --------------------------------------------
    public static final String STATE = V1 + "state";
    public static final String EVENTS = V1 + "events";
    public static final String METRICS = V1 + "metrics";
    public static final String PROJECT = V1 + "project";
    public static final String HEAL = V1 + "heal";
    /** {@code {"api_version": 1}}: the one shape that never changes, so any client can tell what a daemon speaks. */
    public static final String VERSION = V1 + "version";
    /** A daemon's health at a glance, for {@code kiln status} and a fleet view: see {@link #health}. */
    public static final String HEALTH = V1 + "health";
    /** Prometheus' conventional path, outside {@code api/}: the text exposition, not Kiln's JSON. */
    public static final String PROMETHEUS = "metrics";
    /** {@code {root, default_startup_timeout_ms, archive_max_bytes, archive_policy}}: what an engine knows from memory. */
    public static final String WORKSPACE = V1 + "workspace";
    public static final String SEEDS = V1 + "seeds";
    public static final String WARM_HISTORY = V1 + "seeds/history";
    /** {@code GET …?target=T}: the dry run of a warm. */
    public static final String WARM_PLAN = V1 + "seeds/plan";
    /** {@code POST {"target": T}}: 202 {@code {"id": …}}. */
    public static final String WARM = V1 + "seeds/warm";
    /** The servers of servers.json, env and header values redacted. */
    public static final String SERVERS = V1 + "servers";
    /** {@code POST} a {@link #probeRequest}: 202 {@code {"id": …}}. */
    public static final String PROBE = V1 + "probe";
    public static final String PROBE_RUNS = V1 + "probe/runs";
    /** {@code GET …/{id}}: one saved run. */
    public static final String PROBE_RUN = V1 + "probe/runs/{id}";
    /** The latest CPU sweep; 404 when there is none. */
    public static final String PROBE_SWEEP = V1 + "probe/sweep";
    /** {@code GET …?server=S}: the bytecode audit. */
    public static final String BYTECODE = V1 + "bytecode";
    /** {@code POST {"server": S}}: 202 {@code {"id": …}}. */
    public static final String PRECOMPILE = V1 + "bytecode/precompile";
    public static final String ARCHIVE_STATS = V1 + "archive/stats";
    public static final String ARCHIVE_ENTRIES = V1 + "archive/entries";
    /** {@code POST {"directory": D, "members": [..]}}: the entry built (or hit). */
    public static final String ARCHIVE_BUILD = V1 + "archive/build";
    public static final String ARCHIVE_INVALIDATE = V1 + "archive/invalidate";
    /** The staleness doctor's diagnosis, run on the daemon's host. */
    public static final String DOCTOR = V1 + "doctor";
    /** {@code GET}: {@link #action}. */
    public static final String ACTION = V1 + "actions/{id}";
    public static final String ACTION_CANCEL = V1 + "actions/{id}/cancel";
    /**
     * The OpenAPI 3.1 document of this API (a resource of core, served byte for byte; no token on loopback, like every
     * GET). docs/API.md says how to read it and what the goldens under core's test resources prove.
     */
    public static final String OPENAPI = V1 + "openapi.json";

    // The object store (StoreWire): its state per target, and push / pull actions ({@code POST {"target": T}}: 202 {@code {"id"}}).
    public static final String STORE_STATUS = V1 + "store";
    public static final String STORE_PUSH = V1 + "store/push";
    public static final String STORE_PULL = V1 + "store/pull";

    // Server seeds (WireServerSeeds): runtime seeds of npx/uvx-launched servers; a warm {@code POST {"servers": [..]}}: 202 {@code {"id"}}.
    public static final String SERVER_SEEDS = V1 + "seeds/servers";
    public static final String SERVER_SEEDS_WARM = V1 + "seeds/servers/warm";
    // Server seeds against the store (WireStoreServers): per seedable server, here / in the store / both / differing.
    public static final String STORE_SERVERS = V1 + "store/servers";

    // The store client's counters alone (StoreWire.Stats), without asking the store anything: issue #26's worked example.
    public static final String STORE_STATS = V1 + "store/stats";

    // Source archives through the store (issue #28): the daemon builds and pushes {@code {"directory", "members"}}, or
    // pulls {@code {"sha256"}} into its workspace's observer/archives/, on its own host; 202 {@code {"id"}}.
    public static final String STORE_ARCHIVES_PUSH = V1 + "store/archives/push";
    public static final String STORE_ARCHIVES_PULL = V1 + "store/archives/pull";
    /** {@code GET …?sha256=S}: {@code {"sha256", "object"}}, the store's manifest of that archive (null: none). */
    public static final String STORE_ARCHIVE = V1 + "store/archives";
    /** {@code POST /api/heal?dry_run=true} previews. */

    public static final String DRY_RUN = "dry_run";

    // ---- headers -----------------------------------------------------------------------------------------------
    public static final String AUTHORIZATION = "Authorization";
    /** A mutation sent twice with the same key (a retry after a timeout) runs once; the second answers the first. */
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    private static final String BEARER = "Bearer ";
    public static final String EVENT_STREAM = "text/event-stream";
    /** On the state: the id of the last SSE frame the revision includes; the stream resumes after it. */
    public static final String EVENT_ID = "Kiln-Event-Id";
    /** The events route's query parameter asking for the replay ring's events first (an attaching reader's backfill). */
    public static final String BACKFILL = "backfill";
    /** The answer's header naming how many of the stream's first frames are that backfill (history). */
    public static final String BACKFILL_COUNT = "Kiln-Backfill";

    // ---- SSE ---------------------------------------------------------------------------------------------------
    /** The first event of a stream (and after a gap the history cannot fill): the whole state document. */
    public static final String SNAPSHOT = "snapshot";
    /** One per revision after that: {@code {revision, previous, added, changed, removed[, failures][, meta]}}. */
    public static final String DELTA = "delta";

    private Wire() {
    }

    private static final String OPENAPI_RESOURCE = "openapi.json";
    private static volatile byte @org.jspecify.annotations.Nullable [] openApi;

    /** The OpenAPI document's bytes, read once from core's resources. */
    public static byte[] openApiDocument() throws IOException {
        byte[] b = openApi;
        if (b == null) {
            try (java.io.InputStream in = Wire.class.getResourceAsStream(OPENAPI_RESOURCE)) {
                if (in == null) {
                    throw new IOException("the OpenAPI document is missing from this build (dev/kiln/core/serve/wire/" + OPENAPI_RESOURCE + ")");
                }
                b = in.readAllBytes();
            }
            openApi = b;
        }
        return b;
    }

    /** The route as an absolute path, for the server's routing table. */
    public static String path(String route) {
        return "/" + route;
    }

    /**
     * The unversioned alias of a v1 route ({@code /api/state} for {@code api/v1/state}), or null when the route is
     * not versioned or is new in v1 (no client of the first API knew it).
     */
    public static @Nullable String legacyPath(String route) {
        if (!route.startsWith(V1) || route.equals(VERSION) || route.equals(HEALTH) || route.equals(OPENAPI)) {
            return null;
        }
        return "/" + LEGACY + route.substring(V1.length());
    }

    // ---- GET /api/v1/version -------------------------------------------------------------------------------------

    public static ObjectNode version() {
        return JSON.createObjectNode().put("api_version", API_VERSION);
    }

    /**
     * The {@code api_version} of a version answer.
     *
     * @throws IOException when {@code body} is not a version answer
     */
    public static int readVersion(String body) throws IOException {
        JsonNode n;
        try {
            n = JSON.readTree(body);
        } catch (IOException e) {
            throw new IOException("the answer is not JSON: " + abbreviate(body), e);
        }
        if (n == null || !n.path("api_version").isInt()) {
            throw new IOException("the answer has no integer \"api_version\": " + abbreviate(body));
        }
        return n.path("api_version").asInt();
    }

    // ---- GET /api/v1/health ----------------------------------------------------------------------------------------

    /**
     * {@code {api_version, revision, projections, last_projection_at, last_projection_age_ms, last_error, heartbeat_ms,
     * watch: {mode, live, reason, since}, contracts, failures[, state_file_error]}}. The age is the daemon's own (no
     * clock skew between hosts); the counters of the last tick that did not fail give contracts and failures. {@code state_file_error} is
     * there only while {@code observer/state.json} cannot be written (the revision is served from memory).
     */
    public static ObjectNode health(DaemonMetrics m, long revision, WatchStatus ws, Instant now, java.time.Duration heartbeat,
            @org.jspecify.annotations.Nullable String stateFileError) {
        ObjectNode o = JSON.createObjectNode();
        o.put("api_version", API_VERSION);
        o.put("revision", revision);
        o.put("projections", m.projections());
        m.last().ifPresent(t -> {
            o.put("last_projection_at", t.at().toString());
            o.put("last_projection_age_ms", Math.max(0, java.time.Duration.between(t.at(), now).toMillis()));
            if (!t.error().isEmpty()) {
                o.put("last_error", t.error());
            }
            // a failed tick counts nothing: the counts are those of the projection still served (the last good tick)
            TickRecord counted = t;
            for (int i = m.history().size() - 1; i >= 0 && !counted.error().isEmpty(); i--) {
                counted = m.history().get(i);
            }
            if (counted.error().isEmpty()) {
                o.put("contracts", counted.counters().getOrDefault("leaves", 0L));
                o.put("failures", counted.counters().getOrDefault("failed", 0L));
            } else {
                o.put("contracts", 0L);
                o.put("failures", 0L);
            }
        });
        o.put("heartbeat_ms", heartbeat.toMillis());
        ObjectNode watch = o.putObject("watch");
        watch.put("mode", ws.mode());
        watch.put("live", ws.live());
        watch.put("reason", ws.reason());
        watch.put("since", ws.since().toString());
        if (stateFileError != null) {
            o.put("state_file_error", stateFileError);
        }
        return o;
    }

    public static String bearer(String token) {
        return BEARER + token;
    }

    /** Whether a raw query string carries a token ({@code token=}, {@code access_token=}…), which is always refused. */
    public static boolean tokenInQuery(String rawQuery) {
        if (rawQuery == null) {
            return false;
        }
        for (String kv : rawQuery.split("&")) {
            String name = kv.split("=", 2)[0].toLowerCase(java.util.Locale.ROOT);
            if (name.equals("token") || name.endsWith("_token") || name.equals("auth") || name.equals("authorization")
                    || name.equals("bearer")) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code Accept-Encoding} headers accept gzip (and do not refuse it with {@code q=0}). */
    public static boolean acceptsGzip(java.util.@Nullable List<String> acceptEncoding) {
        if (acceptEncoding == null) {
            return false;
        }
        for (String header : acceptEncoding) {
            for (String part : header.split(",")) {
                String[] p = part.trim().split(";");
                String coding = p[0].trim().toLowerCase(java.util.Locale.ROOT);
                if (!coding.equals("gzip") && !coding.equals("x-gzip")) {
                    continue;
                }
                for (int i = 1; i < p.length; i++) {
                    String q = p[i].trim().toLowerCase(java.util.Locale.ROOT);
                    if (q.startsWith("q=") && q.substring(2).trim().matches("0(\\.0*)?")) {
                        return false;
                    }
                }
                return true;
            }
        }
        return false;
    }

    /** The token an {@code Authorization} header carries, or null when it is no bearer header. */
    static @Nullable String bearerToken(@Nullable String header) {
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        return header.substring(BEARER.length()).trim();
    }

    // ---- errors: {"error": code, "message": text} ---------------------------------------------------------------

    public static ObjectNode error(String code, String message) {
        return JSON.valueToTree(new WireEvents.Error(code, message));
    }

    /** What an error answer says, for a client's message; the raw body when it is not the error shape. */
    public static String errorText(String body) {
        try {
            JsonNode n = JSON.readTree(body);
            if (n != null && n.hasNonNull("message")) {
                return abbreviate(n.path("message").asText()) + " (" + abbreviate(n.path("error").asText()) + ")";
            }
        } catch (IOException e) {
            // not JSON: say what came
        }
        return abbreviate(body);
    }

    // ---- a tick: POST /api/project's answer, /api/metrics' last_tick and history, meta.daemon.previous_tick ----------

    public static ObjectNode tick(TickRecord t) {
        ObjectNode n = JSON.createObjectNode();
        n.put("seq", t.seq());
        n.put("reason", t.reason().jsonName());
        n.put("full", t.full());
        n.put("at", t.at().toString());
        n.put("duration_ms", micros(t.durationMillis()));
        n.put("changed_paths", t.changedPaths());
        n.put("revision", t.revision());
        n.put("changed", t.changed());
        ObjectNode c = n.putObject("counters");
        t.counters().forEach(c::put);
        if (!t.error().isEmpty()) {
            n.put("error", t.error());
        }
        return n;
    }

    /**
     * Reads {@link #tick} back.
     *
     * @throws IOException when {@code body} is not a tick (naming what is missing)
     */
    public static TickRecord readTick(String body) throws IOException {
        JsonNode n = JSON.readTree(body);
        for (String field : new String[] {"seq", "reason", "at", "duration_ms", "revision", "changed", "counters"}) {
            if (n == null || !n.has(field)) {
                throw new IOException("the answer is not a tick (no \"" + field + "\"): " + abbreviate(body));
            }
        }
        Map<String, Long> counters = new LinkedHashMap<>();
        n.path("counters").fields().forEachRemaining(e -> counters.put(e.getKey(), e.getValue().asLong()));
        try {
            return new TickRecord(n.path("seq").asLong(), reason(n.path("reason").asText()),
                    n.path("full").asBoolean(), Instant.parse(n.path("at").asText()),
                    Math.round(n.path("duration_ms").asDouble() * 1e6), n.path("changed_paths").asInt(),
                    n.path("revision").asLong(), n.path("changed").asBoolean(), counters, n.path("error").asText(""));
        } catch (RuntimeException e) {
            throw new IOException("the answer is not a tick (" + e.getMessage() + "): " + abbreviate(body), e);
        }
    }

    /**
     * Reads {@link #health} back.
     *
     * @throws IOException when {@code body} is not a health answer (naming what is missing)
     */
    public static DaemonHealth readHealth(java.net.URI url, String body, java.util.Optional<String> pin) throws IOException {
        JsonNode n;
        try {
            n = JSON.readTree(body);
        } catch (IOException e) {
            throw new IOException("the health answer is not JSON: " + abbreviate(body), e);
        }
        for (String field : new String[] {"api_version", "revision", "projections", "heartbeat_ms", "watch"}) {
            if (n == null || !n.has(field)) {
                throw new IOException("the answer is not a health report (no \"" + field + "\"): " + abbreviate(body));
            }
        }
        JsonNode w = n.path("watch");
        try {
            return new DaemonHealth(url, n.path("api_version").asInt(), n.path("revision").asLong(),
                    n.path("projections").asLong(),
                    n.hasNonNull("last_projection_at") ? java.util.Optional.of(Instant.parse(n.path("last_projection_at").asText()))
                            : java.util.Optional.empty(),
                    n.hasNonNull("last_projection_age_ms")
                            ? java.util.Optional.of(java.time.Duration.ofMillis(n.path("last_projection_age_ms").asLong()))
                            : java.util.Optional.empty(),
                    n.path("last_error").asText(""), java.time.Duration.ofMillis(n.path("heartbeat_ms").asLong()),
                    w.path("live").asBoolean(false), HealthWire.watchReason(w), n.path("contracts").asLong(),
                    n.path("failures").asLong(), pin, readSeeds(n), readProbe(n), n.path("state_file_error").asText(""),
                    HealthWire.failedContracts(n), w.path("partial").asBoolean(false), HealthWire.readVerdict(n),
                    n.path("store_error").asText(""));
        } catch (RuntimeException e) {
            throw new IOException("the answer is not a health report (" + e.getMessage() + "): " + abbreviate(body), e);
        }
    }

    /**
     * Adds what the daemon's host knows of its workspace to a {@link #health} body: {@code seeds: {targets, stale}}
     * and {@code last_probe: {at, servers, slowest, slowest_ms, timeout_ms, over_timeout, failed}}, each only when
     * known (a reader of an older daemon finds neither).
     */
    public static ObjectNode healthFacts(ObjectNode o, java.util.Optional<DaemonHealth.Seeds> seeds,
            java.util.Optional<DaemonHealth.Probe> lastProbe) {
        seeds.ifPresent(s -> HealthWire.seedNames(o.putObject("seeds").put("targets", s.targets()).put("stale", s.stale()), s));
        lastProbe.ifPresent(p -> {
            ObjectNode n = o.putObject("last_probe");
            n.put("at", p.at().toString());
            n.put("servers", p.servers());
            p.slowest().ifPresent(x -> n.put("slowest", x));
            p.slowestStart().ifPresent(d -> n.put("slowest_ms", d.toNanos() / 1e6));
            p.slowestTimeout().ifPresent(d -> n.put("timeout_ms", d.toMillis()));
            n.put("over_timeout", p.overTimeout());
            n.put("failed", p.failed());
        });
        return o;
    }

    private static java.util.Optional<DaemonHealth.Seeds> readSeeds(JsonNode n) {
        JsonNode s = n.path("seeds");
        return s.isObject() ? java.util.Optional.of(new DaemonHealth.Seeds(s.path("targets").asInt(), s.path("stale").asInt(),
                HealthWire.strings(s.path("stale_targets")), HealthWire.strings(s.path("failed_targets"))))
                : java.util.Optional.empty();
    }

    private static java.util.Optional<DaemonHealth.Probe> readProbe(JsonNode n) {
        JsonNode p = n.path("last_probe");
        if (!p.isObject()) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new DaemonHealth.Probe(Instant.parse(p.path("at").asText()), p.path("servers").asInt(),
                java.util.Optional.ofNullable(p.path("slowest").textValue()),
                p.path("slowest_ms").isNumber() ? java.util.Optional.of(java.time.Duration.ofNanos(Math.round(p.path("slowest_ms").asDouble() * 1e6)))
                        : java.util.Optional.empty(),
                p.path("timeout_ms").isNumber() ? java.util.Optional.of(java.time.Duration.ofMillis(p.path("timeout_ms").asLong()))
                        : java.util.Optional.empty(),
                p.path("over_timeout").asInt(), p.path("failed").asInt()));
    }

    // ---- the state document's meta: watch (stable) and daemon (volatile) --------------------------------------------

    /** {@code meta.watch}: a degrade is a new revision, so only what changes with the mode is in it. */
    /**
     * {@code meta.writer}: the process that writes this workspace's state.json and holds its lock. Stable content,
     * so a new owner's first tick writes a revision of its own, and the doctor can tell a second writer from the
     * owner (a writer that is alive but does not hold the lock).
     */
    public static ObjectNode writerMeta(ObjectNode meta, long pid, String kind) {
        ObjectNode w = meta.putObject("writer");
        w.put("pid", pid);
        w.put("kind", kind);
        return meta;
    }

    public static ObjectNode watchMeta(WatchStatus ws) {
        ObjectNode meta = JSON.createObjectNode();
        ObjectNode watch = meta.putObject("watch");
        watch.put("mode", ws.mode());
        if (!ws.live()) {
            watch.put("reason", ws.reason());
        }
        if (ws.partial()) {
            watch.put("partial", true); // part of tasks/ is stat-walked: the note says how much and the sysctl
            watch.put("note", ws.note());
        }
        watch.put("since", ws.since().toString());
        return meta;
    }

    /**
     * {@code meta.daemon}, written by the tick {@code now} is the reason of: it counts itself (the loop records a tick
     * only once it returns).
     */
    public static ObjectNode daemonMeta(DaemonMetrics m, WakeReason now) {
        ObjectNode o = JSON.createObjectNode();
        o.put("projections", m.projections() + 1);
        o.put("last_wake_reason", now.jsonName());
        ObjectNode by = o.putObject("by_reason");
        m.byReason().forEach((r, n) -> by.put(r.jsonName(), n + (r == now ? 1 : 0)));
        m.last().ifPresent(t -> o.set("previous_tick", tick(t)));
        return o;
    }

    // ---- GET /api/metrics --------------------------------------------------------------------------------------

    public static ObjectNode metrics(Path root, DaemonMetrics m, long revision, WatchStatus ws, int sseClients,
            long droppedSseClients, Projector.StateSyncs syncs, @org.jspecify.annotations.Nullable String stateFileError,
            ChangePacer.Settings pacing) {
        ObjectNode o = JSON.createObjectNode();
        o.put("workspace", root.toString());
        // What the daemon runs with, so that a doctor need not guess from kiln.json or a command line.
        o.putObject("pacing").put("settle_ms", pacing.settle().toMillis()).put("interval_ms", pacing.interval().toMillis())
                .put("heartbeat_ms", pacing.heartbeat().toMillis());
        o.put("projections", m.projections());
        o.put("revision", revision);
        m.last().ifPresent(t -> o.put("last_wake_reason", t.reason().jsonName()));
        ObjectNode by = o.putObject("by_reason");
        m.byReason().forEach((r, n) -> by.put(r.jsonName(), n));
        m.last().ifPresent(t -> o.set("last_tick", tick(t)));
        ObjectNode watch = o.putObject("watch");
        watch.put("mode", ws.mode());
        watch.put("reason", ws.reason());
        watch.put("since", ws.since().toString());
        watch.put("watched_directories", ws.watchedDirectories());
        watch.put("inotify_limit", ws.inotifyLimit());
        watch.put("polled_directories", ws.polledDirectories());
        watch.put("note", ws.note());
        ArrayNode roots = watch.putArray("roots");
        ws.roots().forEach(r -> roots.add(root.relativize(r).toString()));
        o.putObject("sse").put("clients", sseClients).put("dropped", droppedSseClients);
        ObjectNode stateFile = o.putObject("state_file").put("syncs", syncs.syncs()).put("sync_ms_total", micros(syncs.totalMillis()));
        if (stateFileError != null) {
            stateFile.put("write_error", stateFileError); // the file trails the served revision while this lasts
        }
        o.put("history_size", m.history().size());
        ArrayNode h = o.putArray("history"); // oldest first
        m.history().forEach(t -> h.add(tick(t)));
        return o;
    }

    // ---- POST /api/heal ----------------------------------------------------------------------------------------

    /** The heal report as it is everywhere: {@link HealReport#toJson()}. */
    public static ObjectNode heal(HealReport r) {
        return JSON.valueToTree(WireEvents.Heal.of(r));
    }

    // ---- routes with an {id} segment ---------------------------------------------------------------------------

    /** {@code route} with its {@code {id}} replaced (URL-encoded). */
    public static String withId(String route, String id) {
        return route.replace("{id}", java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20"));
    }

    // ---- core values as JSON (records, lists of records) -------------------------------------------------------

    /**
     * A core value (or a list of them) as its wire record's JSON.
     *
     * @throws IllegalStateException for a type without a wire record: core records never travel as themselves
     */
    public static JsonNode value(Object v) {
        if (v instanceof java.util.List<?> l) {
            ArrayNode a = JSON.createArrayNode();
            l.forEach(e -> a.add(value(e)));
            return a;
        }
        StoreWire.TransferWire t = StoreWire.transfer(v);
        if (t != null) {
            return JSON.valueToTree(t);
        }
        return JSON.valueToTree(WireTypes.codec(v.getClass()).write(v));
    }

    /**
     * Reads a core value back.
     *
     * @throws IOException naming the type, when {@code n} is not one
     */
    public static <T> T read(JsonNode n, Class<T> type) throws IOException {
        try {
            if (type.isRecord() && type.getPackageName().equals(Wire.class.getPackageName())) {
                // already a wire record (StoreWire's): read as it is, no core value behind a codec
                T w = JSON.treeToValue(n, type);
                if (w == null) {
                    throw new IOException("null");
                }
                return w;
            }
            WireTypes.Codec<?, ?> codec = WireTypes.codec(type);
            Object w = JSON.treeToValue(n, codec.wire());
            if (w == null) {
                throw new IOException("null");
            }
            return type.cast(codec.read(w));
        } catch (IOException | RuntimeException e) {
            throw new IOException("the answer is not a " + type.getSimpleName() + " (" + e.getMessage() + "): "
                    + abbreviate(String.valueOf(n)), e);
        }
    }

    public static <T> java.util.List<T> readList(JsonNode n, Class<T> type) throws IOException {
        if (n == null || !n.isArray()) {
            throw new IOException("the answer is not a list of " + type.getSimpleName() + ": " + abbreviate(String.valueOf(n)));
        }
        java.util.List<T> out = new java.util.ArrayList<>(n.size());
        for (JsonNode e : n) {
            out.add(read(e, type));
        }
        return java.util.List.copyOf(out);
    }

    /** {@link HealReport#toJson()} read back. */
    public static HealReport readHeal(JsonNode n) throws IOException {
        if (n == null || !n.has("dry_run") || !n.has("scanned")) {
            throw new IOException("the answer is not a heal report: " + abbreviate(String.valueOf(n)));
        }
        return read(n, HealReport.class);
    }

    /** What replaces a secret: the key stays (an operator sees that it is set), the value never leaves the host. */
    public static final String REDACTED = "<redacted>";

    /** A server as the API shows it: env and header values, and a URL's user info, never leave the daemon's host. */
    public static ServerConfig redacted(ServerConfig s) {
        Map<String, String> env = new java.util.TreeMap<>();
        s.env().keySet().forEach(k -> env.put(k, REDACTED));
        Map<String, String> headers = new java.util.TreeMap<>();
        s.headers().keySet().forEach(k -> headers.put(k, REDACTED));
        java.net.URI url = s.url();
        if (url != null && url.getRawUserInfo() != null) {
            try {
                url = new java.net.URI(url.getScheme(), REDACTED, url.getHost(), url.getPort(), url.getPath(), url.getQuery(),
                        url.getFragment());
            } catch (java.net.URISyntaxException e) {
                url = java.net.URI.create(url.getScheme() + "://" + url.getHost());
            }
        }
        return new ServerConfig(s.name(), s.transport(), s.command(), s.args(), env, s.cwd(), url, headers,
                s.startupTimeout(), s.enabled(), s.source());
    }

    // ---- POST /api/v1/probe ------------------------------------------------------------------------------------

    /** {@code {servers: [..], cpus, bytecode, timeout_ms?}}. */
    public static ObjectNode probeRequest(ProbeRequest r) {
        ObjectNode o = JSON.createObjectNode();
        ArrayNode s = o.putArray("servers");
        r.servers().forEach(s::add);
        o.put("cpus", r.cpus());
        o.put("bytecode", WireTypes.name(r.bytecode()));
        r.timeout().ifPresent(t -> o.put("timeout_ms", t.toMillis()));
        return o;
    }

    public static ProbeRequest readProbeRequest(JsonNode n) {
        java.util.List<String> servers = new java.util.ArrayList<>();
        n.path("servers").forEach(x -> servers.add(x.asText()));
        BytecodeMode mode;
        try {
            mode = WireTypes.constant(BytecodeMode.class, n.path("bytecode").asText(WireTypes.name(BytecodeMode.AS_IS)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("\"bytecode\": " + e.getMessage());
        }
        java.util.Optional<java.time.Duration> timeout = n.hasNonNull("timeout_ms")
                ? java.util.Optional.of(java.time.Duration.ofMillis(n.path("timeout_ms").asLong()))
                : java.util.Optional.empty();
        return new ProbeRequest(servers, n.path("cpus").asText(""), mode, timeout);
    }

    // ---- GET /api/v1/actions/{id} ------------------------------------------------------------------------------

    /**
     * {@code {id, kind, state: running|succeeded|failed|cancelled[, result][, error: {kind, message}]}}: the result is
     * the action's value (a WarmResult, ProbeReport or CompileResult) once it has one.
     */
    public static ObjectNode action(Action<?> a) {
        String kind = dev.kiln.core.engine.WorkspaceActions.kindOf(a.id());
        java.util.concurrent.CompletableFuture<?> f = a.result();
        WireEvents.Action doc;
        if (!f.isDone()) {
            doc = new WireEvents.Action(a.id(), kind, "running", null, null);
        } else {
            try {
                Object v = f.getNow(null);
                String state = v instanceof dev.kiln.core.seed.WarmResult w && w.outcome() == dev.kiln.core.seed.WarmOutcome.CANCELLED
                        ? EngineEvent.Status.CANCELLED.jsonName() : EngineEvent.Status.SUCCEEDED.jsonName();
                doc = new WireEvents.Action(a.id(), kind, state, value(v), null);
            } catch (java.util.concurrent.CancellationException e) {
                doc = new WireEvents.Action(a.id(), kind, EngineEvent.Status.CANCELLED.jsonName(), null,
                        new WireEvents.ActionError("cancelled", String.valueOf(e.getMessage())));
            } catch (java.util.concurrent.CompletionException e) {
                Throwable c = e.getCause() == null ? e : e.getCause();
                if (c instanceof java.util.concurrent.CancellationException) {
                    doc = new WireEvents.Action(a.id(), kind, EngineEvent.Status.CANCELLED.jsonName(), null,
                            new WireEvents.ActionError("cancelled", String.valueOf(c.getMessage())));
                } else {
                    EngineException.Kind k = c instanceof EngineException ee ? ee.kind() : EngineException.Kind.FAILED;
                    doc = new WireEvents.Action(a.id(), kind, EngineEvent.Status.FAILED.jsonName(), null,
                            new WireEvents.ActionError(WireTypes.name(k), String.valueOf(c.getMessage())));
                }
            }
        }
        return JSON.valueToTree(doc);
    }

    public static ObjectNode started(Action<?> a) {
        return JSON.valueToTree(new WireEvents.Started(a.id()));
    }

    // ---- SSE: core events --------------------------------------------------------------------------------------

    /**
     * The SSE event name of each core event type that reaches clients. Events of other types (a console's own
     * ownership and follow notices) stay in the daemon's process.
     */
    private static final Map<String, Class<? extends KilnEvent>> EVENT_TYPES = eventTypes();

    private static Map<String, Class<? extends KilnEvent>> eventTypes() {
        Map<String, Class<? extends KilnEvent>> m = new LinkedHashMap<>();
        m.put("tick", TickFinished.class);
        m.put("watch", WatchChanged.class);
        m.put("warm_started", SeedEvent.WarmStarted.class);
        m.put("warm_output", SeedEvent.WarmOutput.class);
        m.put("warm_finished", SeedEvent.WarmFinished.class);
        m.put("seed_copied", SeedEvent.SeedCopied.class);
        m.put("probe_run_started", ProbeEvent.RunStarted.class);
        m.put("probe_spawned", ProbeEvent.Spawned.class);
        m.put("probe_first_output", ProbeEvent.FirstOutput.class);
        m.put("probe_initialized", ProbeEvent.Initialized.class);
        m.put("probe_tools_listed", ProbeEvent.ToolsListed.class);
        m.put("probe_exited", ProbeEvent.Exited.class);
        m.put("probe_finished", ProbeEvent.Finished.class);
        m.put("archive_hit", ArchiveEvent.Hit.class);
        m.put("archive_miss", ArchiveEvent.Miss.class);
        m.put("archive_built", ArchiveEvent.Built.class);
        m.put("archive_build_failed", ArchiveEvent.BuildFailed.class);
        m.put("archive_evicted", ArchiveEvent.Evicted.class);
        m.put("heal", EngineEvent.HealFinished.class);
        m.put(ACTION_FINISHED, EngineEvent.ActionFinished.class);
        m.put("store", dev.kiln.core.store.StoreEvent.class); // a push or pull started, done or failed (its phase)
        return java.util.Collections.unmodifiableMap(m);
    }

    /** {@code action_finished}: the event's fields, and {@code action}: {@link #action} (with the result). */
    public static final String ACTION_FINISHED = "action_finished";

    /** Every SSE event name of a core event type, in the order of {@link #EVENT_TYPES}. */
    public static java.util.Set<String> eventNames() {
        return EVENT_TYPES.keySet();
    }

    /** The SSE event name of {@code e}, or null when it does not go to clients. */
    public static @org.jspecify.annotations.Nullable String eventName(KilnEvent e) {
        for (Map.Entry<String, Class<? extends KilnEvent>> t : EVENT_TYPES.entrySet()) {
            if (t.getValue() == e.getClass()) {
                return t.getKey();
            }
        }
        return null;
    }

    /** The class an SSE event name stands for, or null for the state's own events and names this build does not know. */
    public static @org.jspecify.annotations.Nullable Class<? extends KilnEvent> eventType(String name) {
        return EVENT_TYPES.get(name);
    }

    /** The event's data: its wire record as JSON. */
    public static ObjectNode event(KilnEvent e) {
        return (ObjectNode) value(e);
    }

    // ---- SSE framing -------------------------------------------------------------------------------------------

    /** One SSE event: {@code id}, {@code event}, the data line by line, a blank line. */
    public static String frame(String event, long id, String data) {
        StringBuilder b = new StringBuilder(data.length() + 64);
        b.append("id: ").append(id).append('\n').append("event: ").append(event).append('\n');
        for (String line : data.split("\n", -1)) {
            b.append("data: ").append(line).append('\n');
        }
        return b.append('\n').toString();
    }

    /** Whether a line of an event stream belongs to an event (a comment or {@code retry:} does not). */
    static boolean isEventLine(String line) {
        return line.startsWith("id:") || line.startsWith("data:");
    }

    /** A JSON string literal. */
    public static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a string always serializes", e);
        }
    }

    /** Milliseconds with three decimals (microsecond resolution): the unit of every duration on the wire. */
    private static double micros(double millis) {
        return Figures.round(millis, 3);
    }

    private static WakeReason reason(String jsonName) {
        for (WakeReason r : WakeReason.values()) {
            if (r.jsonName().equals(jsonName)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown wake reason \"" + jsonName + "\"");
    }

    /** At most 200 characters of a daemon's answer, fit for a terminal (control characters escaped). */
    private static String abbreviate(String s) {
        return BoundedRead.excerpt(s);
    }

    /**
     * The most bytes a client reads of an answer to {@code route} (decompressed): the state, a diagnosis and a heal
     * report scale with the workspace; version, health and workspace are a few hundred bytes; the rest are lists and
     * documents of the API.
     */
    public static long answerBytes(String route) {
        if (route.equals(STATE) || route.equals(DOCTOR) || route.equals(HEAL)) {
            return BoundedRead.STATE;
        }
        if (route.equals(VERSION) || route.equals(HEALTH) || route.equals(WORKSPACE)) {
            return BoundedRead.SMALL;
        }
        return BoundedRead.DOCUMENT;
    }
}
