package dev.kiln.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.engine.WorkspaceActions;
import dev.kiln.core.serve.wire.ApiToken;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.telemetry.Ticker;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * The daemon's HTTP API on the JDK's {@code com.sun.net.httpserver} (no framework), loopback by default.
 *
 * <p>This class is the transport: the one gate, the pool, the event stream and the one mapping of failures to
 * statuses. The routes belong to their capabilities, each a {@link Rules.Routes} that registers its paths (Helidon
 * SE's {@code routing(rules)}): {@link ContractRoutes} (version, openapi.json, metrics, health, {@code /metrics}),
 * {@link ProjectionRoutes} (state, project, heal, workspace), {@link DoctorRoutes}, {@link SeedRoutes},
 * {@link ProbeRoutes}, {@link ArchiveRoutes}, {@link StoreRoutes} and {@link ActionRoutes}; {@code GET events} is
 * the Server-Sent Events stream of {@link SseHub} ({@code snapshot}, then one {@code delta} per revision and a frame
 * per core event, each with an increasing {@code id}; {@code Last-Event-ID} resumes). docs/API.md lists the routes.
 * The unversioned paths of the first API ({@code /api/state}…) answer as their v1 route does (aliases, not
 * redirects: a redirect would make old clients resend a POST). Errors are JSON ({@code {"error": …, "message": …}}):
 * 400 (a malformed or rejected request), 401, 403 (also a path outside the workspace: {@code outside_workspace}),
 * 404, 405, 413 ({@code too_large}: an archive above {@code archive_max_bytes}), 422
 * ({@code idempotency_key_reused}: a key given before to another route or body), 500 (an action failed), 503. A body of 1 KiB or more is gzipped when the request accepts it.
 *
 * <p>Security, checked in {@link #dispatch} for every route before its handler runs: a token in the query string
 * is refused (400); a {@code Host} that is not this daemon's address or name is refused (403: DNS rebinding); an
 * {@code Origin} or {@code Sec-Fetch-Site} of another site is refused (403: no CORS, a web page in the operator's
 * browser cannot drive it); every method but GET needs the bearer token, and beyond loopback GET needs it too.
 * Beyond loopback the server speaks TLS only ({@link #checkExposure}).
 *
 * <p>Exhaustion: requests run on a {@link RequestPool} of {@code workers} + {@code maxSseClients} threads with a
 * bounded queue (beyond it a connection is closed at once) and a deadline for the request's head. An SSE client
 * gets a heartbeat comment when idle, so one that went away shows up as a failed write; one whose write blocks
 * longer than the write timeout, or that reads nothing of its stream for that long while bytes wait for it (as the
 * kernel counts them: {@link TcpBacklog}), is dropped, and when every slot is taken a newcomer evicts the client that
 * has gone longest without reading (more than a keep-alive interval). All free its slot and thread.
 *
 * <p>Concurrency: each SSE client holds one pool thread that only writes what the hub queued for it, so the
 * projector never waits on a client. One watchdog thread sweeps the request deadlines, the stalled SSE writes and the
 * clients that do not read. The route table is filled by the constructor and only read after.
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
        @Nullable Published current();

        /** The instrumentation document. */
        JsonNode metrics();

        /** Runs a manual projection and describes it. */
        JsonNode project() throws Exception;

        /**
         * Runs (or previews, when {@code dryRun}) the leaf-id heal sweep and describes it; an applied heal with an
         * {@code idempotencyKey} seen before answers the first report.
         */
        JsonNode heal(boolean dryRun, String idempotencyKey) throws Exception;

        /** The health summary ({@link Wire#health}). */
        JsonNode health();

        /** The daemon workspace's heal, action table and facets (seeds, probes, archives, store): the local engine's own. */
        WorkspaceActions actions();

        /** The staleness doctor's diagnosis of the daemon's published state. */
        JsonNode doctor();
    }

    /** Bodies smaller than this go out plain: gzip would save little and cost a header. */
    static final int GZIP_MIN_BYTES = 1024;

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
    private final @org.jspecify.annotations.Nullable TlsIdentity tls;
    private final List<String> hostNames;
    /** Whether GETs need the token too: true when bound beyond loopback. Set by {@link #start()}. */
    private volatile boolean tokenForReads = true;
    /** {@code host:port} (lower case) a request's Host may name; set by {@link #start()}. */
    private volatile Set<String> hosts = Set.of();
    /** Large bodies compressed once: a state revision many clients ask for. */
    private final Exchange.Gzip gzip = new Exchange.Gzip();
    private final Ticker ticker = Ticker.systemTicker();
    /** Every capability's routes: filled by the constructor, then only read. */
    private final Rules rules = new Rules();
    private final AtomicInteger threads = new AtomicInteger();
    // set by start(), which the builder's caller runs at once; null before (and when it failed)
    private @Nullable HttpServer server;
    private @Nullable RequestPool executor;
    private @Nullable ScheduledExecutorService watchdog;
    /** When the sweep last read the kernel's table of connections (ticker time); only the watchdog uses it. */
    private long lastBacklogScan = Long.MIN_VALUE / 2;
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
        this.tls = b.tls;
        this.hostNames = List.copyOf(b.hostNames);
        // One gate in front of every capability's routes; each capability registers its own (Rules.Routes).
        rules.register(List.of(new ContractRoutes(backend, b.prometheus), new ProjectionRoutes(backend, hub::lastId),
                new DoctorRoutes(backend, ticker, b.doctorMaxAge), new SeedRoutes(backend), new ProbeRoutes(backend),
                new ArchiveRoutes(backend), new StoreRoutes(backend), new ActionRoutes(backend)));
        rules.get(Wire.EVENTS, this::events); // the event stream is transport: the hub and its pool threads are here
    }

    /**
     * Refuses to open the API beyond loopback without TLS: the token would cross the network in clear text.
     *
     * @throws IllegalArgumentException saying how to fix it
     */
    static void checkExposure(String bind, boolean tls) throws IOException {
        InetAddress a = InetAddress.getByName(bind);
        if (a.isLoopbackAddress() || tls) {
            return;
        }
        throw new IllegalArgumentException("refusing to serve the API on " + bind + " without TLS: beyond loopback"
                + " every request carries the token, which must not cross the network in clear text. Either pass"
                + " --tls-keystore FILE.p12 --tls-password-file FILE (make a self-signed one with: keytool -genkeypair"
                + " -alias kiln -keyalg EC -groupname secp256r1 -validity 825 -storetype PKCS12 -keystore kiln.p12"
                + " -dname CN=$(hostname) -ext san=dns:$(hostname)), or keep the default --bind 127.0.0.1 and"
                + " tunnel (ssh -L)");
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
        checkExposure(bind, tls != null);
        InetAddress ip = InetAddress.getByName(bind);
        InetSocketAddress address = new InetSocketAddress(ip, requestedPort);
        HttpServer server;
        try {
            if (tls != null) {
                HttpsServer https = HttpsServer.create(address, 64);
                SSLContext ctx = tls.context();
                https.setHttpsConfigurator(new HttpsConfigurator(ctx) {
                    @Override
                    public void configure(HttpsParameters params) {
                        SSLParameters p = ctx.getDefaultSSLParameters();
                        p.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
                        p.setNeedClientAuth(false);
                        params.setSSLParameters(p);
                    }
                });
                server = https;
            } else {
                server = HttpServer.create(address, 64);
            }
        } catch (BindException e) {
            throw new IOException("cannot listen on " + bind + ":" + requestedPort + " (" + e.getMessage()
                    + "); choose another port with --port (0 picks a free one)", e);
        }
        this.server = server;
        // SSE clients hold a thread each (at most maxSseClients: the hub refuses more), the rest serve requests
        RequestPool executor = new RequestPool(maxSseClients + workers, 4 * workers, requestTimeout, SHED_AFTER, ticker, r -> {
            Thread t = new Thread(r, "kiln-api-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.executor = executor;
        ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kiln-api-watchdog");
            t.setDaemon(true);
            return t;
        });
        this.watchdog = watchdog;
        long period = Math.min(executor.sweepPeriod().toNanos(), Math.max(writeTimeout.toNanos() / 4, 1_000_000));
        watchdog.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.NANOSECONDS);
        tokenForReads = !ip.isLoopbackAddress();
        hosts = allowedHosts(ip, server.getAddress().getPort());
        server.setExecutor(executor);
        server.createContext("/", this::dispatch);
        server.start();
        return this;
    }

    /**
     * Closes requests whose head is late and drops SSE clients whose write is stuck or who read nothing of their
     * stream for the write timeout. Never throws.
     */
    private void sweep() {
        try {
            pool().sweep();
            long now = ticker.read();
            hub.dropStalled(now, writeTimeout.toNanos());
            // The kernel's table is read only while clients are connected, and a few times per limit at most.
            if (hub.clientCount() > 0 && now - lastBacklogScan >= backlogScanNanos()) {
                lastBacklogScan = now;
                hub.dropUnread(TcpBacklog.read(), now, writeTimeout.toNanos());
            }
        } catch (RuntimeException e) {
            LOG.error("API watchdog sweep failed; it runs again shortly", e);
        }
    }

    /** How often the sweep reads the kernel's table: a quarter of the write timeout, within 50 ms .. 1 s. */
    private long backlogScanNanos() {
        return Math.max(TimeUnit.MILLISECONDS.toNanos(50), Math.min(writeTimeout.toNanos() / 4, TimeUnit.SECONDS.toNanos(1)));
    }

    /** Sends a new revision to SSE clients. Never blocks on a client. */
    void publish(Published p) {
        hub.publish(p);
    }

    /** Sends a core event to SSE clients (if its type goes to clients). Never blocks on a client. */
    void publishEvent(String name, String data) {
        hub.publishEvent(name, data);
    }

    /** Ends every SSE client's stream (they reconnect and resume): tests of resumption. */
    void dropSseClients() {
        hub.dropAll();
    }

    int port() {
        return started().getAddress().getPort();
    }

    private HttpServer started() {
        HttpServer s = server;
        if (s == null) {
            throw new IllegalStateException("the API server is not started (start() failed or was not called)");
        }
        return s;
    }

    private RequestPool pool() {
        RequestPool p = executor;
        if (p == null) {
            throw new IllegalStateException("the API server is not started (start() failed or was not called)");
        }
        return p;
    }

    /** The base URL, e.g. {@code http://127.0.0.1:7117/} ({@code https} with TLS). */
    URI url() {
        return URI.create(scheme() + "://" + literal(started().getAddress().getAddress()) + ":" + port() + "/");
    }

    private String scheme() {
        return tls == null ? "http" : "https";
    }

    /** The TLS certificate's SHA-256 fingerprint ({@code AB:CD:…}), or null without TLS. */
    @org.jspecify.annotations.Nullable String tlsFingerprint() {
        return tls == null ? null : tls.fingerprint();
    }

    private static String literal(InetAddress a) {
        String host = a.getHostAddress();
        int zone = host.indexOf('%');
        if (zone >= 0) {
            host = host.substring(0, zone);
        }
        return host.contains(":") ? "[" + host + "]" : host;
    }

    /**
     * The {@code host:port} a request's {@code Host} may name. Loopback: 127.0.0.1, localhost, [::1] and the bound
     * literal. A wildcard bind: every address of this machine's interfaces and its host names. Always the names
     * given with {@link Builder#hostNames}.
     */
    private Set<String> allowedHosts(InetAddress bound, int port) {
        Set<String> names = new HashSet<>();
        names.add(literal(bound));
        if (bound.isLoopbackAddress() || bound.isAnyLocalAddress()) {
            names.add("127.0.0.1");
            names.add("localhost");
            names.add("[::1]");
        }
        if (bound.isAnyLocalAddress()) {
            try {
                for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                    Collections.list(ni.getInetAddresses()).forEach(a -> names.add(literal(a)));
                }
            } catch (SocketException e) {
                LOG.warn("Cannot list this machine's addresses ({}); only names given with --host-name pass the Host"
                        + " check", e.getMessage());
            }
            try {
                InetAddress local = InetAddress.getLocalHost();
                names.add(local.getHostName());
                names.add(local.getCanonicalHostName());
            } catch (IOException e) {
                LOG.warn("Cannot resolve this machine's host name ({}); pass it with --host-name", e.getMessage());
            }
        }
        names.addAll(hostNames);
        Set<String> out = new HashSet<>();
        names.forEach(n -> out.add(n.toLowerCase(Locale.ROOT) + ":" + port));
        return Set.copyOf(out);
    }

    /** Every path the route table answers (the first API's aliases and the templates included). */
    Set<String> paths() {
        return rules.paths();
    }

    /** Connected SSE clients. */
    int sseClients() {
        return hub.clientCount();
    }

    /** Requests closed because their head did not arrive in time. */
    long timedOutRequests() {
        return pool().timedOut();
    }

    /** Connections closed at once because every thread was busy and the queue full. */
    long refusedConnections() {
        return pool().refused();
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

    // ---- dispatch: the one gate and the one mapping of failures to statuses ----------------------------------

    private void dispatch(HttpExchange x) throws IOException {
        Exchange ex = new Exchange(x, gzip);
        try (x) {
            if (!RequestPool.headRead()) {
                return; // too late: the deadline closed the connection (closing x makes sure)
            }
            String path = x.getRequestURI().getPath();
            if (!admissible(ex)) {
                return;
            }
            Map<String, Rules.Handler> byMethod = rules.find(ex);
            if (byMethod == null) {
                ex.error(404, "not_found", "no such endpoint: " + path + " (try /api/v1/state, /api/v1/events,"
                        + " /api/v1/metrics, /api/v1/health, /api/v1/version, /metrics, POST /api/v1/project, POST /api/v1/heal;"
                        + " docs/API.md lists every route)");
                return;
            }
            Rules.Handler h = byMethod.get(x.getRequestMethod());
            if (h == null) {
                x.getResponseHeaders().set("Allow", String.join(", ", byMethod.keySet()));
                ex.error(405, "method_not_allowed", x.getRequestMethod() + " is not allowed on " + path + "; use "
                        + String.join(" or ", byMethod.keySet()));
                return;
            }
            if ((tokenForReads || !x.getRequestMethod().equals("GET"))
                    && !token.authorizes(x.getRequestHeaders().getFirst(Wire.AUTHORIZATION))) {
                x.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"kiln\"");
                boolean given = x.getRequestHeaders().getFirst(Wire.AUTHORIZATION) != null;
                ex.error(401, "unauthorized", x.getRequestMethod() + " " + path + (given
                        ? ": the bearer token is not this daemon's (a new one is written at every start)"
                        : " needs 'Authorization: Bearer <token>'") + "; the token is in the workspace's observer/api-token"
                        + (tokenForReads ? " (beyond loopback every request needs it)" : ""));
                return;
            }
            try {
                h.handle(ex);
            } catch (IOException e) {
                LOG.debug("client went away during {} {}: {}", x.getRequestMethod(), path, e.toString());
            } catch (Exchange.BadRequest e) {
                ex.error(400, "bad_request", said(e));
            } catch (EngineException e) {
                if (e.kind() == EngineException.Kind.REJECTED) {
                    switch (e.refusal()) {
                        case OUTSIDE_WORKSPACE -> ex.error(403, "outside_workspace", said(e));
                        case TOO_LARGE -> ex.error(413, "too_large", said(e));
                        case KEY_REUSED -> ex.error(422, "idempotency_key_reused", said(e));
                        case INVALID -> ex.error(400, "rejected", said(e));
                    }
                } else {
                    LOG.warn("{} {} failed: {}", x.getRequestMethod(), path, e.getMessage());
                    ex.error(500, "failed", said(e));
                }
            } catch (IllegalArgumentException e) {
                ex.error(400, "bad_request", said(e));
            } catch (dev.kiln.core.workspace.WorkspaceException | dev.kiln.core.archive.ArchiveException e) { // ServerConfigException included
                // A workspace file on this host is malformed or unreadable, or an archive cannot be made of what was named:
                // the message says which; no stack trace.
                LOG.warn("{} {}: {}", x.getRequestMethod(), path, e.getMessage());
                ex.error(500, "failed", said(e));
            } catch (Exception e) {
                LOG.error("{} {} failed", x.getRequestMethod(), path, e);
                ex.error(500, "internal_error", e.toString());
            }
        } catch (IOException e) {
            LOG.debug("client went away: {}", e.toString());
        }
    }

    /**
     * The checks of every request before its route: no token in the query, this daemon's Host, no foreign Origin.
     * Answers and returns false when one fails. Values a client sent are quoted back only when they are short.
     */
    private boolean admissible(Exchange e) throws IOException {
        HttpExchange x = e.raw();
        if (Wire.tokenInQuery(x.getRequestURI().getRawQuery())) {
            e.error(400, "token_in_query", "a token is never accepted in the query string (URLs end up in logs,"
                    + " shell histories and proxies); send it as 'Authorization: Bearer <token>' and leave it out of the URL");
            return false;
        }
        String host = x.getRequestHeaders().getFirst("Host");
        if (host == null || !hosts.contains(normalizeHost(host))) {
            e.error(403, "forbidden_host", "this daemon does not answer to Host " + Exchange.shown(host) + "; reach it by its"
                    + " address (" + url() + ") or a name given with --host-name. A name that does not belong to it is"
                    + " refused so that a web page cannot rebind its DNS name to this address");
            return false;
        }
        String origin = x.getRequestHeaders().getFirst("Origin");
        if (origin != null && !ownOrigin(origin)) {
            e.error(403, "forbidden_origin", "requests from a web page of another origin (" + Exchange.shown(origin) + ") are"
                    + " refused; the API has no CORS: use kiln, curl or the console");
            return false;
        }
        String site = x.getRequestHeaders().getFirst("Sec-Fetch-Site");
        if (site != null && site.equalsIgnoreCase("cross-site")) {
            e.error(403, "forbidden_origin", "requests a browser makes for another site are refused; the API has no"
                    + " CORS: use kiln, curl or the console");
            return false;
        }
        return true;
    }

    /** {@code host:port} in lower case, with the scheme's default port when the header has none. */
    private String normalizeHost(String host) {
        String h = host.trim().toLowerCase(Locale.ROOT);
        int close = h.lastIndexOf(']');
        int colon = h.lastIndexOf(':');
        if (colon < 0 || colon < close) {
            return h + ":" + (tls == null ? 80 : 443);
        }
        return h;
    }

    private boolean ownOrigin(String origin) {
        try {
            URI o = new URI(origin.trim());
            if (!scheme().equalsIgnoreCase(o.getScheme()) || o.getHost() == null || o.getRawPath() != null
                    && !o.getRawPath().isEmpty()) {
                return false;
            }
            String host = o.getHost();
            int port = o.getPort() < 0 ? (tls == null ? 80 : 443) : o.getPort();
            return hosts.contains(host.toLowerCase(Locale.ROOT) + ":" + port);
        } catch (java.net.URISyntaxException e) {
            return false; // "null" (a sandboxed or file page) and garbage are no origin of this daemon
        }
    }

    // ---- the event stream --------------------------------------------------------------------------------------

    private void events(Exchange e) throws IOException {
        HttpExchange x = e.raw();
        String lastEventId = x.getRequestHeaders().getFirst("Last-Event-ID");
        boolean backfill = String.valueOf(x.getRequestURI().getRawQuery()).contains(Wire.BACKFILL + "=true");
        SseHub.Client client = backfill ? hub.connectWithHistory(lastEventId, x.getLocalAddress(), x.getRemoteAddress(),
                ticker.read()) : hub.connect(lastEventId, x.getLocalAddress(), x.getRemoteAddress(), ticker.read());
        if (client == null && hub.evictStalest(TcpBacklog.read(), ticker.read(), keepAlive.toNanos())) {
            // every slot was taken and one of them had not read for a keep-alive interval: this reader takes it
            client = backfill ? hub.connectWithHistory(lastEventId, x.getLocalAddress(), x.getRemoteAddress(), ticker.read())
                    : hub.connect(lastEventId, x.getLocalAddress(), x.getRemoteAddress(), ticker.read());
        }
        if (client == null) {
            e.error(503, "too_many_clients", "too many event-stream clients are connected; retry later");
            return;
        }
        client.attach(Thread.currentThread());
        try {
            x.getResponseHeaders().set("Content-Type", Wire.EVENT_STREAM + "; charset=utf-8");
            x.getResponseHeaders().set("Cache-Control", "no-cache");
            if (backfill) {
                x.getResponseHeaders().set(Wire.BACKFILL_COUNT, Integer.toString(client.history));
            }
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
                client.wrote(bytes.length);
                idleSince = System.nanoTime();
            }
        } catch (InterruptedException | IOException ex) {
            LOG.debug("SSE client ended: {}", ex.toString());
        } finally {
            hub.disconnect(client);
            client.detach();
            Thread.interrupted(); // a release() may have interrupted this pooled thread; the next request must not see it
        }
    }

    /** Configures an {@link ApiServer}; bad values are rejected when set. */
    static final class Builder {
        private final Backend backend;
        private final ApiToken token;
        private String bind = "127.0.0.1";
        private int port = 0;
        private int sseQueue = 1024;
        private int history = 1024;
        private int maxSseClients = 64;
        private Duration keepAlive = Duration.ofSeconds(2);
        private int workers = 16;
        private Duration requestTimeout = Duration.ofSeconds(10);
        private Duration writeTimeout = Duration.ofSeconds(10);
        private Duration doctorMaxAge = Duration.ofSeconds(5);
        private @Nullable HttpHandler prometheus;
        private @org.jspecify.annotations.Nullable TlsIdentity tls;
        private final List<String> hostNames = new ArrayList<>();

        private Builder(Backend backend, ApiToken token) {
            this.backend = Objects.requireNonNull(backend, "backend");
            this.token = Objects.requireNonNull(token, "token");
        }

        /** Address to bind (default {@code 127.0.0.1}: the API is local unless asked otherwise). */
        Builder bind(String address) {
            this.bind = Objects.requireNonNull(address, "bind address");
            return this;
        }

        /** Serves HTTPS with this identity (required beyond loopback: {@link ApiServer#checkExposure}). */
        Builder tls(TlsIdentity identity) {
            this.tls = Objects.requireNonNull(identity, "TLS identity");
            return this;
        }

        /** Further names a request's {@code Host} may give (the DNS names clients use for this machine). */
        Builder hostNames(List<String> names) {
            for (String n : names) {
                if (n.isBlank() || n.contains(":") && !n.startsWith("[") || n.contains("/")) {
                    throw new IllegalArgumentException("a host name is a DNS name or address without port, not \"" + n + "\"");
                }
            }
            this.hostNames.addAll(names);
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

        /** Frames queued per SSE client before it is dropped as too slow (default 1024). */
        Builder sseQueue(int events) {
            if (events < 1) {
                throw new IllegalArgumentException("SSE queue must hold at least 1 event, got " + events);
            }
            this.sseQueue = events;
            return this;
        }

        /** Frames (deltas and events) kept for {@code Last-Event-ID} resumption (default 1024). */
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
         * Time an SSE client may go without reading: one write to it may block this long (its buffers are full),
         * and it may leave what it was sent unread this long (default 10 s); then it is dropped.
         */
        Builder writeTimeout(Duration d) {
            this.writeTimeout = positive(d, "write timeout");
            return this;
        }

        /**
         * How long the doctor's verdict is served for one revision before it is computed again (default 5 s); a new
         * revision computes it at its first request.
         */
        Builder doctorMaxAge(Duration d) {
            this.doctorMaxAge = positive(d, "doctor verdict age");
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

    /** What an error body says of {@code e}: its message, or its type when it has none (never the text "null"). */
    private static String said(Throwable e) {
        String m = e.getMessage();
        return m != null ? m : e.getClass().getSimpleName();
    }
}
