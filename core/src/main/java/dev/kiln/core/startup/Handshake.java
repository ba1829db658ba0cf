package dev.kiln.core.startup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The client side of MCP's startup, over any {@link Channel}: by default {@code server/discover} of the stateless
 * 2026-07-28 revision first, falling back to {@code initialize} (newest version first, negotiating down),
 * {@code notifications/initialized}; then {@code tools/list} following {@code nextCursor}. In the
 * {@link HandshakeOrder#INITIALIZE_FIRST} order, {@code initialize} first and {@code server/discover} only for servers
 * that reject it.
 *
 * <p>Kiln advertises no client capability (no roots, sampling, elicitation) and still answers every server-to-client
 * request ({@code ping} → {@code {}}, anything else → "method not found"): servers that wait on an unanswered
 * {@code roots/list} would otherwise never exit.
 */
final class Handshake {
    /** Versions Kiln speaks through {@code initialize}, newest first. */
    static final List<String> VERSIONS = List.of("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05");
    /** The stateless revision, reached through {@code server/discover}. */
    static final String MODERN = "2026-07-28";
    static final String CLIENT_NAME = "kiln";
    static final String CLIENT_VERSION = "0.1.0";
    private static final int METHOD_NOT_FOUND = -32601;
    private static final int MAX_TOOL_PAGES = 1_000;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** The longest a stdio server's silence to {@code server/discover} is waited out before {@code initialize} is sent. */
    static final Duration FALLBACK_WINDOW = Duration.ofSeconds(1);
    /** The step named when a server ends while both first requests may be outstanding. */
    static final String DISCOVER_OR_INITIALIZE = "initialize or server/discover";

    private final Channel channel;
    private final Recorder recorder;
    private final long deadline;
    private final Duration timeout;
    private final HandshakeOrder order;
    private int nextId = 1;
    private boolean modern;
    /** Why the modern request did not start the server, once it did not; null before. */
    private @Nullable String discoverRejected;

    /** Thrown to end the handshake with an outcome other than ok. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        final Outcome outcome;

        /** Why, for the report (the message too; this field is never null). */
        final String reason;

        Failure(Outcome outcome, String reason) {
            super(reason, null, false, false);
            this.outcome = outcome;
            this.reason = reason;
        }
    }

    /** The server's output ended; the caller finds out whether the process exited. */
    static final class Closed extends Exception {
        private static final long serialVersionUID = 1L;
        final String step;

        Closed(String step, String why) {
            super(why, null, false, false);
            this.step = step;
        }
    }

    /** What a finished handshake learned. */
    record Result(String protocolVersion, int tools) {
    }

    Handshake(Channel channel, Recorder recorder, long deadline, Duration timeout) {
        this(channel, recorder, deadline, timeout, HandshakeOrder.INITIALIZE_FIRST);
    }

    Handshake(Channel channel, Recorder recorder, long deadline, Duration timeout, HandshakeOrder order) {
        this.order = order;
        this.channel = channel;
        this.recorder = recorder;
        this.deadline = deadline;
        this.timeout = timeout;
    }

    Result run() throws Failure, Closed, InterruptedException {
        String version = order == HandshakeOrder.DISCOVER_FIRST ? discoverFirst() : initialize();
        channel.negotiated(version);
        if (!modern) {
            notify("notifications/initialized");
        }
        int tools = listTools(version);
        return new Result(version, tools);
    }

    /**
     * The modern revision first, as a client that speaks both does: {@code server/discover}; on an answer that is not
     * the modern revision's (an error, another version), on HTTP 400, or when a stdio server says nothing within
     * {@link #fallbackWindowNanos}, {@code initialize} as before. Over stdio both requests may then be outstanding:
     * whichever is answered successfully first is the start, timed at its last byte.
     */
    private String discoverFirst() throws Failure, Closed, InterruptedException {
        int discoverId;
        try {
            discoverId = send("server/discover", discoverParams());
        } catch (HttpFailure e) {
            if (e.status == 400 || e.status == 404 || e.status == 405) {
                discoverRejected = "HTTP " + e.status;
                return initialize();
            }
            throw new Failure(e.outcome, e.reason);
        }
        long window = channel.fallsBackOnSilence() ? recorder.now() + fallbackWindowNanos() : deadline;
        Integer initializeId = null;
        String asked = VERSIONS.get(0);
        int versionIndex = 0;
        String lastError = null;
        while (true) {
            List<Integer> waiting = initializeId == null ? List.of(discoverId) : List.of(discoverId, initializeId);
            String step = initializeId == null ? "server/discover" : DISCOVER_OR_INITIALIZE;
            Incoming.Message reply = initializeId == null ? await(waiting, step, Math.min(window, deadline))
                    : await(waiting, "initialize", deadline);
            if (reply == null) {
                // The fallback window passed in silence: the server may ignore what it does not know.
                discoverRejected = "no answer within " + Math.round(fallbackWindowNanos() / 1e6) + " ms";
                initializeId = sendOrFail("initialize", initializeParams(asked));
                continue;
            }
            JsonNode answer = reply.json();
            int id = answer.get("id").asInt();
            if (id == discoverId) {
                String modernVersion = modernAnswer(answer);
                if (modernVersion != null) {
                    modern = true;
                    recorder.initialized(modernVersion, reply.at());
                    return modernVersion;
                }
                discoverRejected = answer.has("error") ? describe(answer.get("error"))
                        : "answered without " + MODERN + " in supportedVersions";
                if (initializeId == null) {
                    initializeId = sendOrFail("initialize", initializeParams(asked));
                }
                discoverId = -1; // answered: stop waiting for it
                continue;
            }
            JsonNode error = answer.get("error");
            if (error != null) {
                lastError = describe(error);
                if (error.path("code").asInt() != METHOD_NOT_FOUND && versionIndex + 1 < VERSIONS.size()) {
                    asked = VERSIONS.get(++versionIndex);
                    initializeId = sendOrFail("initialize", initializeParams(asked));
                    continue;
                }
                throw new Failure(Outcome.PROTOCOL_ERROR, "the server answered neither server/discover (" + discoverRejected
                        + ") nor initialize at any version Kiln speaks (" + String.join(", ", VERSIONS) + "; last error: "
                        + lastError + ")");
            }
            return acceptInitialize(reply);
        }
    }

    /** The version a {@code server/discover} answer offers that Kiln speaks, or null. */
    private static @Nullable String modernAnswer(JsonNode answer) {
        for (JsonNode v : answer.path("result").path("supportedVersions")) {
            if (MODERN.equals(v.asText())) {
                return MODERN;
            }
        }
        return null;
    }

    /** A quarter of the timeout, at most one second: long enough for a live server to say "method not found". */
    private long fallbackWindowNanos() {
        return Math.min(FALLBACK_WINDOW.toNanos(), timeout.toNanos() / 4);
    }

    private String acceptInitialize(Incoming.Message reply) throws Failure {
        JsonNode answer = reply.json();
        JsonNode result = answer.get("result");
        if (result == null || !result.isObject()) {
            throw new Failure(Outcome.PROTOCOL_ERROR, "the initialize answer has no result object: " + clip(answer.toString()));
        }
        String chosen = result.path("protocolVersion").asText(null);
        if (chosen == null) {
            throw new Failure(Outcome.PROTOCOL_ERROR, "the initialize answer names no protocolVersion: " + clip(result.toString()));
        }
        if (!VERSIONS.contains(chosen)) {
            // Servers answer a version they do not know with their own latest; the client must check.
            throw new Failure(Outcome.PROTOCOL_ERROR, "the server chose protocol version " + chosen
                    + ", which Kiln does not speak (it speaks " + String.join(", ", VERSIONS) + ")");
        }
        recorder.initialized(chosen, reply.at());
        return chosen;
    }

    /** The old order: {@code initialize}, newest version first; {@code server/discover} only when it is unknown. */
    private String initialize() throws Failure, Closed, InterruptedException {
        String lastError = null;
        for (String asked : VERSIONS) {
            Incoming.Message reply = request("initialize", initializeParams(asked));
            JsonNode answer = reply.json();
            JsonNode error = answer.get("error");
            if (error != null) {
                if (error.path("code").asInt() == METHOD_NOT_FOUND && discoverRejected == null) {
                    return discover();
                }
                // Some servers reject a version they do not know with an error instead of counter-offering: try older.
                lastError = describe(error);
                continue;
            }
            return acceptInitialize(reply);
        }
        if (discoverRejected != null) {
            throw new Failure(Outcome.PROTOCOL_ERROR, "the server answered neither server/discover (" + discoverRejected
                    + ") nor initialize at any version Kiln speaks (" + String.join(", ", VERSIONS) + "; last error: "
                    + lastError + ")");
        }
        // A stateless-only server may reject initialize with its own error rather than "method not found".
        try {
            return discover();
        } catch (Failure f) {
            throw new Failure(f.outcome, "the server rejected initialize at every version Kiln speaks ("
                    + String.join(", ", VERSIONS) + "; last error: " + lastError + ") and server/discover: " + f.getMessage());
        }
    }

    private String discover() throws Failure, Closed, InterruptedException {
        modern = true;
        Incoming.Message reply = request("server/discover", discoverParams());
        JsonNode answer = reply.json();
        if (answer.has("error")) {
            throw new Failure(Outcome.PROTOCOL_ERROR, "the server rejected initialize as unknown and server/discover too: "
                    + describe(answer.get("error")));
        }
        String v = modernAnswer(answer);
        if (v != null) {
            recorder.initialized(v, reply.at());
            return v;
        }
        throw new Failure(Outcome.PROTOCOL_ERROR, "server/discover offers " + answer.path("result").path("supportedVersions")
                + "; Kiln speaks " + MODERN + " on that path");
    }

    private ObjectNode discoverParams() {
        ObjectNode params = NODES.objectNode();
        params.set("_meta", meta());
        return params;
    }

    private int listTools(String version) throws Failure, Closed, InterruptedException {
        int count = 0;
        String cursor = null;
        for (int page = 0; page < MAX_TOOL_PAGES; page++) {
            ObjectNode params = NODES.objectNode();
            if (cursor != null) {
                params.put("cursor", cursor);
            }
            if (modern) {
                params.set("_meta", meta());
            }
            Incoming.Message reply = request("tools/list", params);
            JsonNode answer = reply.json();
            if (answer.has("error")) {
                JsonNode error = answer.get("error");
                if (error.path("code").asInt() == METHOD_NOT_FOUND) {
                    recorder.toolsListed(0, reply.at()); // a server without tools is still a server that started
                    return 0;
                }
                throw new Failure(Outcome.PROTOCOL_ERROR, "tools/list failed: " + describe(error));
            }
            JsonNode tools = answer.path("result").path("tools");
            if (!tools.isArray()) {
                throw new Failure(Outcome.PROTOCOL_ERROR, "the tools/list answer has no tools array: " + clip(answer.toString()));
            }
            count += tools.size();
            JsonNode next = answer.path("result").get("nextCursor");
            if (next == null || next.isNull() || next.asText().isEmpty()) {
                recorder.toolsListed(count, reply.at());
                return count;
            }
            if (next.asText().equals(cursor)) {
                throw new Failure(Outcome.PROTOCOL_ERROR, "tools/list returned the same nextCursor twice (" + clip(next.asText()) + ")");
            }
            cursor = next.asText();
        }
        throw new Failure(Outcome.PROTOCOL_ERROR, "tools/list did not end after " + MAX_TOOL_PAGES + " pages");
    }

    private ObjectNode initializeParams(String version) {
        ObjectNode p = NODES.objectNode();
        p.put("protocolVersion", version);
        p.putObject("capabilities"); // nothing Kiln does not serve
        p.putObject("clientInfo").put("name", CLIENT_NAME).put("version", CLIENT_VERSION);
        return p;
    }

    private ObjectNode meta() {
        ObjectNode m = NODES.objectNode();
        m.put("io.modelcontextprotocol/protocolVersion", MODERN);
        m.putObject("io.modelcontextprotocol/clientInfo").put("name", CLIENT_NAME).put("version", CLIENT_VERSION);
        m.putObject("io.modelcontextprotocol/clientCapabilities");
        return m;
    }

    private void notify(String method) throws Failure, Closed, InterruptedException {
        ObjectNode n = NODES.objectNode();
        n.put("jsonrpc", "2.0");
        n.put("method", method);
        sendRaw(n, method);
    }

    /** Sends a request and returns its answer (a result or an error), serving the server's own requests meanwhile. */
    private Incoming.Message request(String method, ObjectNode params) throws Failure, Closed, InterruptedException {
        int id;
        try {
            id = send(method, params);
        } catch (HttpFailure e) {
            throw new Failure(e.outcome, e.reason);
        }
        return Objects.requireNonNull(await(List.of(id), method, deadline), "until the deadline, await answers or fails");
    }

    private int sendOrFail(String method, ObjectNode params) throws Failure, Closed, InterruptedException {
        try {
            return send(method, params);
        } catch (HttpFailure e) {
            throw new Failure(e.outcome, e.reason);
        }
    }

    /** Sends a request; its answer is read by {@link #await}. */
    private int send(String method, ObjectNode params) throws Failure, Closed, InterruptedException {
        int id = nextId++;
        ObjectNode r = NODES.objectNode();
        r.put("jsonrpc", "2.0");
        r.put("id", id);
        r.put("method", method);
        r.set("params", params);
        try {
            channel.send(r, deadline);
        } catch (StdioChannel.WriteTimeout e) {
            // The deadline passed with the request unwritten (a server not reading, or no time left): a timeout, not
            // a closed pipe. Taken for a close, a live server was reported as a protocol error.
            throw new Failure(Outcome.TIMEOUT, "could not send " + method + " within " + seconds(timeout) + ": "
                    + e.getMessage());
        } catch (IOException e) {
            // A stdio server that has exited breaks the pipe: that is its exit, reported as such by the caller.
            throw new Closed(method, "sending " + method + " failed: " + e.getMessage());
        }
        return id;
    }

    /**
     * The answer to one of {@code ids}, serving the server's own requests meanwhile; null when {@code until} (ticker
     * nanos) passed first and it is earlier than the deadline, a timeout failure at the deadline.
     */
    private Incoming.@Nullable Message await(List<Integer> ids, String method, long until)
            throws Failure, Closed, InterruptedException {
        while (true) {
            long left = until - recorder.now();
            Incoming in = left <= 0 ? null : channel.poll(left);
            if (in == null) {
                if (until < deadline) {
                    return null;
                }
                throw new Failure(Outcome.TIMEOUT, "no answer to " + method + " within " + seconds(timeout));
            }
            if (in instanceof Incoming.Garbage g) {
                throw new Failure(Outcome.PROTOCOL_ERROR, "a line on stdout is not JSON-RPC: " + clip(g.line()));
            }
            if (in instanceof Incoming.Oversized o) {
                throw new Failure(Outcome.PROTOCOL_ERROR, "a line on stdout is " + o.bytes() + " bytes, over Kiln's cap;"
                        + " it was not read");
            }
            if (in instanceof Incoming.Closed c) {
                throw new Closed(ids.size() > 1 || "server/discover".equals(method) && order == HandshakeOrder.DISCOVER_FIRST
                        ? DISCOVER_OR_INITIALIZE : method, c.why());
            }
            Incoming.Message message = (Incoming.Message) in;
            JsonNode m = message.json();
            if (m.hasNonNull("method")) {
                if (m.has("id")) {
                    answerServerRequest(m);
                }
                continue; // notifications (logging, progress) do not concern startup
            }
            JsonNode answerId = m.get("id");
            if (answerId == null || !(m.has("result") || m.has("error"))) {
                throw new Failure(Outcome.PROTOCOL_ERROR, "a message is neither request, notification nor answer: "
                        + clip(m.toString()));
            }
            if (answerId.isIntegralNumber() && answerId.asLong() < nextId && !ids.contains(answerId.asInt())) {
                continue; // a late answer to a request Kiln stopped waiting for (a rejected server/discover)
            }
            if (!answerId.isIntegralNumber() || !ids.contains(answerId.asInt())) {
                throw new Failure(Outcome.PROTOCOL_ERROR, "an answer carries id " + answerId + " while Kiln waited for id "
                        + ids.stream().filter(i -> i > 0).map(String::valueOf).collect(java.util.stream.Collectors.joining(" or "))
                        + " (" + method + ")");
            }
            return message;
        }
    }

    private void answerServerRequest(JsonNode request) throws Failure, Closed, InterruptedException {
        ObjectNode a = NODES.objectNode();
        a.put("jsonrpc", "2.0");
        a.set("id", request.get("id"));
        String method = request.get("method").asText();
        if ("ping".equals(method)) {
            a.putObject("result");
        } else {
            a.putObject("error").put("code", METHOD_NOT_FOUND)
                    .put("message", "Kiln's startup probe does not serve " + method);
        }
        sendRaw(a, method + " answer");
    }

    private void sendRaw(ObjectNode message, String what) throws Failure, Closed, InterruptedException {
        try {
            channel.send(message, deadline);
        } catch (StdioChannel.WriteTimeout e) {
            throw new Failure(Outcome.TIMEOUT, "could not send " + what + " within " + seconds(timeout) + ": " + e.getMessage());
        } catch (IOException e) {
            // A stdio server that has exited breaks the pipe: that is its exit, reported as such by the caller.
            throw new Closed(what, "sending " + what + " failed: " + e.getMessage());
        } catch (HttpFailure e) {
            throw new Failure(e.outcome, e.reason);
        }
    }

    /** An HTTP transport error that already knows its outcome. */
    static final class HttpFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final Outcome outcome;

        /** The HTTP status when the server answered with one, else 0. */
        final int status;
        /** Why, for the report (the message too; this field is never null). */
        final String reason;

        HttpFailure(Outcome outcome, String message) {
            this(outcome, message, 0);
        }

        HttpFailure(Outcome outcome, String message, int status) {
            super(message, null, false, false);
            this.outcome = outcome;
            this.status = status;
            this.reason = message;
        }
    }

    static String describe(JsonNode error) {
        return error.path("code").asText("?") + " " + error.path("message").asText("");
    }

    static String clip(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300) + "… (" + s.length() + " chars)";
    }

    static String seconds(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : String.format(java.util.Locale.ROOT, "%.3f s", ms / 1000.0);
    }
}
