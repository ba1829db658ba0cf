package dev.kiln.core.startup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The client side of MCP's startup, over any {@link Channel}: {@code initialize} (newest version first, negotiating
 * down), {@code notifications/initialized}, {@code tools/list} following {@code nextCursor}; {@code server/discover}
 * for servers of the stateless 2026-07-28 revision that reject {@code initialize}.
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

    private final Channel channel;
    private final Recorder recorder;
    private final long deadline;
    private final Duration timeout;
    private int nextId = 1;
    private boolean modern;

    /** Thrown to end the handshake with an outcome other than ok. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        final Outcome outcome;

        Failure(Outcome outcome, String reason) {
            super(reason, null, false, false);
            this.outcome = outcome;
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
        this.channel = channel;
        this.recorder = recorder;
        this.deadline = deadline;
        this.timeout = timeout;
    }

    Result run() throws Failure, Closed, InterruptedException {
        String version = initialize();
        channel.negotiated(version);
        if (!modern) {
            notify("notifications/initialized");
        }
        int tools = listTools(version);
        return new Result(version, tools);
    }

    private String initialize() throws Failure, Closed, InterruptedException {
        String lastError = null;
        for (String asked : VERSIONS) {
            Incoming.Message reply = request("initialize", initializeParams(asked));
            JsonNode answer = reply.json();
            JsonNode error = answer.get("error");
            if (error != null) {
                if (error.path("code").asInt() == METHOD_NOT_FOUND) {
                    return discover();
                }
                // Some servers reject a version they do not know with an error instead of counter-offering: try older.
                lastError = describe(error);
                continue;
            }
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
        ObjectNode params = NODES.objectNode();
        params.set("_meta", meta());
        Incoming.Message reply = request("server/discover", params);
        JsonNode answer = reply.json();
        if (answer.has("error")) {
            throw new Failure(Outcome.PROTOCOL_ERROR, "the server rejected initialize as unknown and server/discover too: "
                    + describe(answer.get("error")));
        }
        JsonNode supported = answer.path("result").path("supportedVersions");
        for (JsonNode v : supported) {
            if (MODERN.equals(v.asText())) {
                recorder.initialized(MODERN, reply.at());
                return MODERN;
            }
        }
        throw new Failure(Outcome.PROTOCOL_ERROR, "server/discover offers " + supported + "; Kiln speaks " + MODERN
                + " on that path");
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
                throw new Failure(Outcome.PROTOCOL_ERROR, "tools/list returned the same nextCursor twice (" + clip(cursor) + ")");
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
        send(n, method);
    }

    /** Sends a request and returns its answer (a result or an error), serving the server's own requests meanwhile. */
    private Incoming.Message request(String method, ObjectNode params) throws Failure, Closed, InterruptedException {
        int id = nextId++;
        ObjectNode r = NODES.objectNode();
        r.put("jsonrpc", "2.0");
        r.put("id", id);
        r.put("method", method);
        r.set("params", params);
        send(r, method);
        while (true) {
            long left = deadline - recorder.now();
            Incoming in = left <= 0 ? null : channel.poll(left);
            if (in == null) {
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
                throw new Closed(method, c.why());
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
            if (!answerId.isIntegralNumber() || answerId.asLong() != id) {
                throw new Failure(Outcome.PROTOCOL_ERROR, "an answer carries id " + answerId + " while Kiln waited for id "
                        + id + " (" + method + ")");
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
        send(a, method + " answer");
    }

    private void send(ObjectNode message, String what) throws Failure, Closed, InterruptedException {
        try {
            channel.send(message, deadline);
        } catch (StdioChannel.WriteTimeout e) {
            throw new Failure(Outcome.TIMEOUT, "could not send " + what + " within " + seconds(timeout) + ": " + e.getMessage());
        } catch (IOException e) {
            // A stdio server that has exited breaks the pipe: that is its exit, reported as such by the caller.
            throw new Closed(what, "sending " + what + " failed: " + e.getMessage());
        } catch (HttpFailure e) {
            throw new Failure(e.outcome, e.getMessage());
        }
    }

    /** An HTTP transport error that already knows its outcome. */
    static final class HttpFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final Outcome outcome;

        HttpFailure(Outcome outcome, String message) {
            super(message, null, false, false);
            this.outcome = outcome;
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
