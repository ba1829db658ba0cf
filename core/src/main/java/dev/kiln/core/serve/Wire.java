package dev.kiln.core.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.telemetry.Figures;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.watch.WatchStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The API's wire format, in one place: routes, the JSON bodies of requests, answers and events, and the SSE
 * framing. The server ({@link ApiServer}, {@link SseHub}, {@link ProjectionDaemon}) writes through it and the clients
 * ({@link ServeClient}, {@link DaemonFollower}) read through it, so a shape changes in one place for both sides.
 *
 * <p>The state document itself ({@code GET /api/state}, the {@code snapshot} event) is the projector's
 * {@code observer/state.json}, served byte for byte; its shape belongs to {@code projection}, not here.
 *
 * <p>Concurrency: stateless; the one {@link ObjectMapper} is configured once and then only used (thread-safe).
 */
final class Wire {
    /** The one mapper of the API (both sides). */
    static final ObjectMapper JSON = new ObjectMapper();

    // ---- routes (relative to the base URL, e.g. http://127.0.0.1:7117/) --------------------------------------------
    static final String STATE = "api/state";
    static final String EVENTS = "api/events";
    static final String METRICS = "api/metrics";
    static final String PROJECT = "api/project";
    static final String HEAL = "api/heal";
    /** {@code POST /api/heal?dry_run=true} previews. */
    static final String DRY_RUN = "dry_run";

    // ---- headers -----------------------------------------------------------------------------------------------
    static final String AUTHORIZATION = "Authorization";
    private static final String BEARER = "Bearer ";
    static final String EVENT_STREAM = "text/event-stream";

    // ---- SSE ---------------------------------------------------------------------------------------------------
    /** The first event of a stream (and after a gap the history cannot fill): the whole state document. */
    static final String SNAPSHOT = "snapshot";
    /** One per revision after that: {@code {revision, previous, added, changed, removed[, failures][, meta]}}. */
    static final String DELTA = "delta";

    private Wire() {
    }

    /** The route as an absolute path, for the server's routing table. */
    static String path(String route) {
        return "/" + route;
    }

    static String bearer(String token) {
        return BEARER + token;
    }

    /** The token an {@code Authorization} header carries, or null when it is no bearer header. */
    static String bearerToken(String header) {
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        return header.substring(BEARER.length()).trim();
    }

    // ---- errors: {"error": code, "message": text} ---------------------------------------------------------------

    static ObjectNode error(String code, String message) {
        ObjectNode o = JSON.createObjectNode();
        o.put("error", code);
        o.put("message", message);
        return o;
    }

    /** What an error answer says, for a client's message; the raw body when it is not the error shape. */
    static String errorText(String body) {
        try {
            JsonNode n = JSON.readTree(body);
            if (n != null && n.hasNonNull("message")) {
                return n.path("message").asText() + " (" + n.path("error").asText() + ")";
            }
        } catch (IOException e) {
            // not JSON: say what came
        }
        return body;
    }

    // ---- a tick: POST /api/project's answer, /api/metrics' last_tick and history, meta.daemon.previous_tick ----------

    static ObjectNode tick(TickRecord t) {
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
    static TickRecord readTick(String body) throws IOException {
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

    // ---- the state document's meta: watch (stable) and daemon (volatile) --------------------------------------------

    /** {@code meta.watch}: a degrade is a new revision, so only what changes with the mode is in it. */
    static ObjectNode watchMeta(WatchStatus ws) {
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
    static ObjectNode daemonMeta(DaemonMetrics m, WakeReason now) {
        ObjectNode o = JSON.createObjectNode();
        o.put("projections", m.projections() + 1);
        o.put("last_wake_reason", now.jsonName());
        ObjectNode by = o.putObject("by_reason");
        m.byReason().forEach((r, n) -> by.put(r.jsonName(), n + (r == now ? 1 : 0)));
        m.last().ifPresent(t -> o.set("previous_tick", tick(t)));
        return o;
    }

    // ---- GET /api/metrics --------------------------------------------------------------------------------------

    static ObjectNode metrics(Path root, DaemonMetrics m, long revision, WatchStatus ws, int sseClients,
            long droppedSseClients, Projector.StateSyncs syncs) {
        ObjectNode o = JSON.createObjectNode();
        o.put("workspace", root.toString());
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
        o.putObject("state_file").put("syncs", syncs.syncs()).put("sync_ms_total", micros(syncs.totalMillis()));
        o.put("history_size", m.history().size());
        ArrayNode h = o.putArray("history"); // oldest first
        m.history().forEach(t -> h.add(tick(t)));
        return o;
    }

    // ---- POST /api/heal ----------------------------------------------------------------------------------------

    /** The heal report as it is everywhere: {@link HealReport#toJson()}. */
    static ObjectNode heal(HealReport r) {
        return r.toJson();
    }

    // ---- SSE framing -------------------------------------------------------------------------------------------

    /** One SSE event: {@code id}, {@code event}, the data line by line, a blank line. */
    static String frame(String event, long id, String data) {
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
    static String quote(String s) {
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

    private static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "…";
    }
}
