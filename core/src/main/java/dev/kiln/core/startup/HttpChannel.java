package dev.kiln.core.startup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * MCP Streamable HTTP: each message is a POST accepting JSON or an SSE stream; the answer's body is parsed on a daemon
 * thread into the same inbox the handshake polls, so a slow stream is bounded by the handshake's deadline. The
 * {@code Mcp-Session-Id} the server hands out is echoed, {@code MCP-Protocol-Version} is sent once negotiated, and
 * {@link #close} ends the session with a DELETE.
 *
 * <p>Concurrency: one reader thread per answer body feeds {@code inbox} (a blocking queue); the session id and
 * protocol version are written by a reader and read by the handshake thread, hence volatile; open bodies are a
 * concurrent queue closed by {@link #close} from the handshake thread.
 */
final class HttpChannel implements Channel {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client;
    private final URI url;
    private final Map<String, String> headers;
    private final Recorder recorder;
    private final BlockingQueue<Incoming> inbox = new LinkedBlockingQueue<>();
    /** Answer bodies still being read; closed with the channel so a server holding a stream open leaks nothing. */
    private final java.util.Queue<InputStream> openBodies = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** What the server's answers set (its session, the version agreed on), sent back with every later request; null before. */
    private volatile @Nullable String sessionId;
    private volatile @Nullable String protocolVersion;

    HttpChannel(URI url, Map<String, String> headers, Recorder recorder) {
        this.client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).version(HttpClient.Version.HTTP_1_1).build();
        this.url = url;
        this.headers = headers;
        this.recorder = recorder;
    }

    @Override
    public boolean fallsBackOnSilence() {
        return false;
    }

    @Override
    public void negotiated(String version) {
        this.protocolVersion = version;
    }

    /**
     * Sends {@code request}, once more if a pooled connection turned out closed before a single byte of an answer
     * came (a server answering HTTP/1.0 closes after each reply, and the client may already have picked that
     * connection for the next request): nothing was answered, so the server never acted on it.
     */
    private HttpResponse<InputStream> exchange(HttpRequest request, long deadline)
            throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return client.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream()).get(deadline - recorder.now(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            String m = String.valueOf(e.getCause() == null ? null : e.getCause().getMessage());
            long left = deadline - recorder.now();
            if (!(e.getCause() instanceof java.io.IOException) || !m.contains("received no bytes") || left <= 0) {
                throw e;
            }
            return client.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream()).get(left, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void send(ObjectNode message, long deadline) throws InterruptedException {
        String method = message.path("method").asText("answer");
        HttpRequest.Builder b = request().header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes(message)));
        recorder.spawned(0);
        long left = deadline - recorder.now();
        if (left <= 0) {
            throw new Handshake.HttpFailure(Outcome.TIMEOUT, "no time left to send " + method);
        }
        HttpResponse<InputStream> response;
        try {
            response = exchange(b.build(), deadline);
        } catch (TimeoutException e) {
            throw new Handshake.HttpFailure(Outcome.TIMEOUT, "no HTTP answer to " + method + " from " + url + " in time");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof ConnectException) {
                throw new Handshake.HttpFailure(Outcome.SPAWN_FAILED, "cannot connect to " + url + " (" + c.getMessage()
                        + "): is the server running?");
            }
            throw new Handshake.HttpFailure(Outcome.PROTOCOL_ERROR, "POST " + method + " to " + url + " failed: " + c);
        }
        recorder.firstOutput(false);
        response.headers().firstValue("Mcp-Session-Id").ifPresent(id -> sessionId = id);
        int status = response.statusCode();
        String type = response.headers().firstValue("Content-Type").orElse("").toLowerCase(Locale.ROOT);
        if (status == 202 || status == 204) {
            drain(response.body());
            return;
        }
        if (status / 100 != 2) {
            String body = read(response.body());
            throw new Handshake.HttpFailure(Outcome.PROTOCOL_ERROR, "HTTP " + status + " to POST " + method + " at " + url
                    + (body.isBlank() ? "" : ": " + Handshake.clip(body.strip())), status);
        }
        InputStream body = response.body();
        openBodies.add(body);
        Thread reader = new Thread(type.startsWith("text/event-stream") ? () -> readEvents(body) : () -> readJson(body, type),
                "kiln-probe-" + recorder.server + "-http");
        reader.setDaemon(true);
        reader.start();
    }

    @Override
    public Incoming poll(long timeoutNanos) throws InterruptedException {
        return inbox.poll(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
    }

    /** Ends the server-side session (DELETE), bounded; servers that do not support it answer 405, which is fine. */
    void close() {
        for (InputStream body; (body = openBodies.poll()) != null; ) {
            try {
                body.close();
            } catch (IOException ignored) {
                // Closing is best-effort: the connection is abandoned either way.
            }
        }
        String id = sessionId;
        if (id == null) {
            return;
        }
        try {
            client.send(request().timeout(Duration.ofSeconds(2)).DELETE().build(), HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            // The session expires on its own; nothing to report for a startup probe.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private HttpRequest.Builder request() {
        HttpRequest.Builder b = HttpRequest.newBuilder(url);
        headers.forEach(b::header);
        String session = sessionId; // volatile: read once
        String version = protocolVersion;
        if (session != null) {
            b.header("Mcp-Session-Id", session);
        }
        if (version != null) {
            b.header("MCP-Protocol-Version", version);
        }
        return b;
    }

    private void readJson(InputStream body, String type) {
        String text = read(body);
        if (!type.startsWith("application/json")) {
            inbox.add(new Incoming.Garbage("(Content-Type " + type + ") " + text));
            return;
        }
        offer(text);
    }

    private void readEvents(InputStream body) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            StringBuilder data = new StringBuilder();
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isEmpty()) {
                    if (data.length() > 0) {
                        offer(data.toString());
                        data.setLength(0);
                    }
                } else if (line.startsWith("data:")) {
                    if (data.length() > 0) {
                        data.append('\n');
                    }
                    data.append(line.substring(line.startsWith("data: ") ? 6 : 5));
                }
                // event:, id:, retry: and comments carry nothing the startup needs.
            }
            if (data.length() > 0) {
                offer(data.toString());
            }
        } catch (IOException e) {
            inbox.add(new Incoming.Closed("the SSE stream broke: " + e.getMessage()));
        }
    }

    private void offer(String text) {
        if (text.isBlank()) {
            return;
        }
        long at = recorder.now();
        try {
            JsonNode node = JSON.readTree(text);
            if (node != null && node.isArray()) {
                node.forEach(n -> inbox.add(n.isObject() ? new Incoming.Message(n, at) : new Incoming.Garbage(n.toString())));
            } else {
                inbox.add(node != null && node.isObject() ? new Incoming.Message(node, at) : new Incoming.Garbage(text));
            }
        } catch (IOException e) {
            inbox.add(new Incoming.Garbage(text));
        }
    }

    private static byte[] bytes(ObjectNode message) {
        try {
            return JSON.writeValueAsBytes(message);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialize a JSON-RPC message", e);
        }
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static void drain(InputStream in) {
        read(in);
    }
}
