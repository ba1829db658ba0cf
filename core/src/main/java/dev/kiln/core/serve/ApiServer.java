package dev.kiln.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.kiln.core.telemetry.Ticker;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * The daemon's HTTP API on the JDK's {@code com.sun.net.httpserver} (no framework), loopback by default.
 *
 * <ul>
 *   <li>{@code GET /api/state}: the projection, {@code ETag: W/"<revision>"}, {@code Cache-Control: no-cache};
 *       {@code If-None-Match} with the current revision gives 304; 503 with a JSON reason before the first tick.
 *   <li>{@code GET /api/events}: Server-Sent Events — {@code snapshot}, then one {@code delta} per revision;
 *       {@code Last-Event-ID} resumes.
 *   <li>{@code GET /api/metrics}: the projector's instrumentation.
 *   <li>{@code POST /api/project}, {@code POST /api/heal[?dry_run=true]}: need {@code Authorization: Bearer <token>}.
 *   <li>{@code GET /metrics}: Prometheus text exposition; open to a peer on loopback, else it needs the token.
 * </ul>
 * Errors are JSON ({@code {"error": …, "message": …}}): 401, 404, 405, 503.
 *
 * <p>Exhaustion: requests run on a {@link RequestPool} of {@code workers} + {@code maxSseClients} threads with a
 * bounded queue (beyond it a connection is closed at once) and a deadline for the request's head. An SSE client
 * gets a heartbeat comment when idle, so one that went away shows up as a failed write; one whose write blocks
 * longer than the write timeout (it does not read) is dropped. Both free its slot and thread.
 *
 * <p>Concurrency: each SSE client holds one pool thread that only writes what the hub queued for it, so the
 * projector never waits on a client. One watchdog thread sweeps the request deadlines and the stalled SSE writes.
 */
final class ApiServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);
    /** The request deadline while requests wait for a thread: a real request's head arrives at once. */
    private static final Duration SHED_AFTER = Duration.ofMillis(250);

    static {
        // The JDK server writes the headers and a small body as two segments; with Nagle on, the second waits for the
        // client's delayed ACK (~40 ms per response: a scrape took 48.8 ms p50, 8.8 ms with this). Read once, when the
        // JDK's server configuration loads: set before the first server is created; an explicit setting wins.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    /** What the API serves and does; implemented by the daemon. */
    interface Backend {
        /** The current projection, or null before the first tick. */
        Published current();

        /** The instrumentation document. */
        JsonNode metrics();

        /** Runs a manual projection and describes it. */
        JsonNode project() throws Exception;

        /** Runs (or previews, when {@code dryRun}) the leaf-id heal sweep and describes it. */
        JsonNode heal(boolean dryRun) throws Exception;
    }

    @FunctionalInterface
    private interface Handler {
        void handle(HttpExchange x) throws Exception;
    }

    private final Backend backend;
    private final ApiToken token;
    private final String bind;
    private final int requestedPort;
    private final SseHub hub;
    private final Duration keepAlive;
    private final int workers;
    private final Duration requestTimeout;
    private final Duration writeTimeout;
    private final int maxSseClients;
    private final Ticker ticker = Ticker.systemTicker();
    private final Map<String, Map<String, Handler>> routes = new LinkedHashMap<>();
    private final AtomicInteger threads = new AtomicInteger();
    private HttpServer server;
    private RequestPool executor;
    private ScheduledExecutorService watchdog;
    private volatile boolean closed;

    private ApiServer(Builder b) {
        this.backend = b.backend;
        this.token = b.token;
        this.bind = b.bind;
        this.requestedPort = b.port;
        this.hub = new SseHub(b.sseQueue, b.history, b.maxSseClients);
        this.keepAlive = b.keepAlive;
        this.workers = b.workers;
        this.requestTimeout = b.requestTimeout;
        this.writeTimeout = b.writeTimeout;
        this.maxSseClients = b.maxSseClients;
        route(Wire.STATE, "GET", this::state);
        route(Wire.EVENTS, "GET", this::events);
        route(Wire.METRICS, "GET", this::metrics);
        route(Wire.PROJECT, "POST", authorized(x -> json(x, 200, backend.project())));
        route(Wire.HEAL, "POST", authorized(x -> json(x, 200, backend.heal(dryRun(x)))));
        if (b.prometheus != null) {
            HttpHandler prometheus = b.prometheus;
            route(Wire.PROMETHEUS, "GET", x -> {
                if (needsToken(x.getRemoteAddress().getAddress())) {
                    authorized(prometheus::handle).handle(x);
                } else {
                    prometheus.handle(x);
                }
            });
        }
    }

    /**
     * Whether a read of {@code /metrics} from {@code peer} needs the token: yes unless the connection never left the
     * host. The peer decides, not the bind address: a daemon bound to every interface still answers a local Prometheus
     * without a token, and a fleet's Prometheus on another host sends it ({@code authorization: credentials_file}).
     */
    static boolean needsToken(InetAddress peer) {
        return peer == null || !peer.isLoopbackAddress();
    }

    static Builder builder(Backend backend, ApiToken token) {
        return new Builder(backend, token);
    }

    /**
     * Binds and starts serving.
     *
     * @throws IOException with a message naming the address when it cannot bind
     */
    ApiServer start() throws IOException {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(bind), requestedPort);
        try {
            server = HttpServer.create(address, 64);
        } catch (BindException e) {
            throw new IOException("cannot listen on " + bind + ":" + requestedPort + " (" + e.getMessage()
                    + "); choose another port with --port (0 picks a free one)", e);
        }
        // SSE clients hold a thread each (at most maxSseClients: the hub refuses more), the rest serve requests
        executor = new RequestPool(maxSseClients + workers, 4 * workers, requestTimeout, SHED_AFTER, ticker, r -> {
            Thread t = new Thread(r, "kiln-api-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kiln-api-watchdog");
            t.setDaemon(true);
            return t;
        });
        long period = Math.min(executor.sweepPeriod().toNanos(), Math.max(writeTimeout.toNanos() / 4, 1_000_000));
        watchdog.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.NANOSECONDS);
        server.setExecutor(executor);
        server.createContext("/", this::dispatch);
        server.start();
        return this;
    }

    /** Closes requests whose head is late and drops SSE clients whose write is stuck. Never throws. */
    private void sweep() {
        try {
            executor.sweep();
            hub.dropStalled(ticker.read(), writeTimeout.toNanos());
        } catch (RuntimeException e) {
            LOG.error("API watchdog sweep failed; it runs again shortly", e);
        }
    }

    /** Sends a new revision to SSE clients. Never blocks on a client. */
    void publish(Published p) {
        hub.publish(p);
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** The base URL, e.g. {@code http://127.0.0.1:7117/}. */
    URI url() {
        String host = server.getAddress().getAddress().getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        return URI.create("http://" + host + ":" + port() + "/");
    }

    /** Connected SSE clients. */
    int sseClients() {
        return hub.clientCount();
    }

    /** Requests closed because their head did not arrive in time. */
    long timedOutRequests() {
        return executor.timedOut();
    }

    /** Connections closed at once because every thread was busy and the queue full. */
    long refusedConnections() {
        return executor.refused();
    }

    /** SSE clients dropped because they could not keep up. */
    long droppedSseClients() {
        return hub.droppedClients();
    }

    @Override
    public void close() {
        closed = true;
        if (server != null) {
            server.stop(0);
        }
        if (watchdog != null) {
            watchdog.shutdownNow();
        }
        if (executor != null) {
            executor.close();
        }
    }

    // ---- routing ----------------------------------------------------------------------------------------------

    private void route(String route, String method, Handler h) {
        routes.computeIfAbsent(Wire.path(route), p -> new LinkedHashMap<>()).put(method, h);
    }

    private void dispatch(HttpExchange x) throws IOException {
        try (x) {
            if (!RequestPool.headRead()) {
                return; // too late: the deadline closed the connection (closing x makes sure)
            }
            String path = x.getRequestURI().getPath();
            Map<String, Handler> byMethod = routes.get(path);
            if (byMethod == null) {
                error(x, 404, "not_found", "no such endpoint: " + path + " (try /api/state, /api/events, /api/metrics, /metrics,"
                        + " POST /api/project, POST /api/heal)");
                return;
            }
            Handler h = byMethod.get(x.getRequestMethod());
            if (h == null) {
                x.getResponseHeaders().set("Allow", String.join(", ", byMethod.keySet()));
                error(x, 405, "method_not_allowed", x.getRequestMethod() + " is not allowed on " + path + "; use "
                        + String.join(" or ", byMethod.keySet()));
                return;
            }
            try {
                h.handle(x);
            } catch (IOException e) {
                LOG.debug("client went away during {} {}: {}", x.getRequestMethod(), path, e.toString());
            } catch (Exception e) {
                LOG.error("{} {} failed", x.getRequestMethod(), path, e);
                error(x, 500, "internal_error", e.toString());
            }
        } catch (IOException e) {
            LOG.debug("client went away: {}", e.toString());
        }
    }

    private Handler authorized(Handler h) {
        return x -> {
            if (!token.authorizes(x.getRequestHeaders().getFirst(Wire.AUTHORIZATION))) {
                x.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"kiln\"");
                error(x, 401, "unauthorized", x.getRequestMethod() + " " + x.getRequestURI().getPath()
                        + " needs 'Authorization: Bearer <token>'; the token is in the workspace's observer/api-token");
                return;
            }
            h.handle(x);
        };
    }

    // ---- endpoints --------------------------------------------------------------------------------------------

    private void state(HttpExchange x) throws IOException {
        Published p = backend.current();
        if (p == null) {
            x.getResponseHeaders().set("Retry-After", "1");
            error(x, 503, "not_ready", "the first projection has not finished yet; retry shortly");
            return;
        }
        String etag = "W/\"" + p.revision() + "\"";
        x.getResponseHeaders().set("ETag", etag);
        x.getResponseHeaders().set("Cache-Control", "no-cache");
        if (matches(x.getRequestHeaders().getFirst("If-None-Match"), p.revision())) {
            x.sendResponseHeaders(304, -1);
            return;
        }
        send(x, 200, "application/json", p.document());
    }

    private void metrics(HttpExchange x) throws IOException {
        x.getResponseHeaders().set("Cache-Control", "no-cache");
        json(x, 200, backend.metrics());
    }

    private void events(HttpExchange x) throws IOException {
        SseHub.Client client = hub.connect(x.getRequestHeaders().getFirst("Last-Event-ID"));
        if (client == null) {
            error(x, 503, "too_many_clients", "too many event-stream clients are connected; retry later");
            return;
        }
        client.attach(Thread.currentThread());
        try {
            x.getResponseHeaders().set("Content-Type", Wire.EVENT_STREAM + "; charset=utf-8");
            x.getResponseHeaders().set("Cache-Control", "no-cache");
            x.sendResponseHeaders(200, 0);
            OutputStream out = x.getResponseBody();
            out.write("retry: 1000\n\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            long idleSince = System.nanoTime();
            while (!closed && !client.dropped) {
                String frame = client.queue.poll(250, TimeUnit.MILLISECONDS);
                if (frame == null) {
                    if (System.nanoTime() - idleSince < keepAlive.toNanos()) {
                        continue;
                    }
                    frame = ": keep-alive\n\n"; // a dead client shows up as a failed write
                }
                byte[] bytes = frame.getBytes(StandardCharsets.UTF_8);
                client.writing(ticker.read()); // a write that blocks too long (the client does not read) drops it
                try {
                    out.write(bytes);
                    out.flush();
                } finally {
                    client.written();
                }
                idleSince = System.nanoTime();
            }
        } catch (InterruptedException | IOException e) {
            LOG.debug("SSE client ended: {}", e.toString());
        } finally {
            hub.disconnect(client);
            client.detach();
            Thread.interrupted(); // a release() may have interrupted this pooled thread; the next request must not see it
        }
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    private static boolean matches(String ifNoneMatch, long revision) {
        if (ifNoneMatch == null) {
            return false;
        }
        for (String tag : ifNoneMatch.split(",")) {
            String t = tag.trim();
            if (t.equals("*")) {
                return true;
            }
            if (t.startsWith("W/")) {
                t = t.substring(2);
            }
            if (t.equals("\"" + revision + "\"")) {
                return true;
            }
        }
        return false;
    }

    private static boolean dryRun(HttpExchange x) {
        String q = x.getRequestURI().getRawQuery();
        if (q == null) {
            return false;
        }
        for (String kv : q.split("&")) {
            String[] p = kv.split("=", 2);
            if (p[0].equals(Wire.DRY_RUN)) {
                return p.length == 1 || p[1].equalsIgnoreCase("true") || p[1].equals("1");
            }
        }
        return false;
    }

    private static void json(HttpExchange x, int status, JsonNode body) throws IOException {
        send(x, status, "application/json", Wire.JSON.writeValueAsBytes(body));
    }

    private static void error(HttpExchange x, int status, String code, String message) throws IOException {
        json(x, status, Wire.error(code, message));
    }

    private static void send(HttpExchange x, int status, String type, byte[] body) throws IOException {
        x.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
        boolean head = x.getRequestMethod().equals("HEAD");
        x.sendResponseHeaders(status, head ? -1 : (body.length == 0 ? -1 : body.length));
        if (!head && body.length > 0) {
            try (OutputStream out = x.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** Configures an {@link ApiServer}; bad values are rejected when set. */
    static final class Builder {
        private final Backend backend;
        private final ApiToken token;
        private String bind = "127.0.0.1";
        private int port = 0;
        private int sseQueue = 256;
        private int history = 256;
        private int maxSseClients = 64;
        private Duration keepAlive = Duration.ofSeconds(2);
        private int workers = 16;
        private Duration requestTimeout = Duration.ofSeconds(10);
        private Duration writeTimeout = Duration.ofSeconds(10);
        private @Nullable HttpHandler prometheus;

        private Builder(Backend backend, ApiToken token) {
            this.backend = Objects.requireNonNull(backend, "backend");
            this.token = Objects.requireNonNull(token, "token");
        }

        /** Address to bind (default {@code 127.0.0.1}: the API is local unless asked otherwise). */
        Builder bind(String address) {
            this.bind = Objects.requireNonNull(address, "bind address");
            return this;
        }

        /** Port; 0 picks any free port (default 0). */
        Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be 0..65535, got " + port);
            }
            this.port = port;
            return this;
        }

        /** Events queued per SSE client before it is dropped as too slow (default 256). */
        Builder sseQueue(int events) {
            if (events < 1) {
                throw new IllegalArgumentException("SSE queue must hold at least 1 event, got " + events);
            }
            this.sseQueue = events;
            return this;
        }

        /** Deltas kept for {@code Last-Event-ID} resumption (default 256). */
        Builder history(int revisions) {
            if (revisions < 0) {
                throw new IllegalArgumentException("history must not be negative, got " + revisions);
            }
            this.history = revisions;
            return this;
        }

        Builder maxSseClients(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("max SSE clients must be at least 1, got " + n);
            }
            this.maxSseClients = n;
            return this;
        }

        /**
         * Idle time after which an SSE comment is sent (default 2 s). A client that went away shows up as a failed
         * write, so this bounds how long its slot stays taken (about twice this).
         */
        Builder keepAlive(Duration d) {
            this.keepAlive = positive(d, "keep-alive");
            return this;
        }

        /** Threads for requests, besides one per SSE client (default 16). */
        Builder workers(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("workers must be at least 1, got " + n);
            }
            this.workers = n;
            return this;
        }

        /** Time a client has to send a request's line and headers; then the connection is closed (default 10 s). */
        Builder requestTimeout(Duration d) {
            this.requestTimeout = positive(d, "request timeout");
            return this;
        }

        /**
         * Time one write to an SSE client may block (the client does not read, its buffers are full) before the
         * client is dropped as dead (default 10 s).
         */
        Builder writeTimeout(Duration d) {
            this.writeTimeout = positive(d, "write timeout");
            return this;
        }

        private static Duration positive(Duration d, String what) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, got " + d);
            }
            return d;
        }

        /** Serves {@code GET /metrics} with this handler (default: no such route). */
        Builder prometheus(HttpHandler handler) {
            this.prometheus = Objects.requireNonNull(handler, "handler");
            return this;
        }

        ApiServer build() {
            return new ApiServer(this);
        }
    }
}
