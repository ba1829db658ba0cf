package dev.kiln.core.serve.client;

import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.http.BoundedRead;
import dev.kiln.core.projection.TickRecord;
import dev.kiln.core.serve.wire.ApiToken;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A client of a {@code kiln serve}'s API, speaking {@link Wire#API_VERSION} through the same {@link Wire} format the
 * daemon writes in. Two kinds:
 *
 * <ul>
 *   <li>{@link #of}: the daemon that owns a local workspace, found through its lock file (where) and its token file
 *       (the right to ask): for a command or a console beside the daemon, which must ask it rather than write the
 *       state document themselves.
 *   <li>{@link #remote}: a daemon at a URL, possibly on another host, with a token file and, over TLS, the pinned
 *       SHA-256 fingerprint of its certificate ({@link PinnedTls}).
 * </ul>
 *
 * <p>Every answer is read through {@link BoundedRead}: a size bound per route ({@link Wire#answerBytes}, on the wire
 * and decompressed) and one deadline for all of it, so a hostile or broken daemon ends a question with an error
 * naming it, never with a client that grows or waits without end.
 *
 * <p>Concurrency: immutable; local clients share one {@link HttpClient}, a remote one has its own (its TLS trust is
 * its pin); both are thread-safe.
 */
public final class ServeClient {
    /**
     * Local daemons without a pin speak plain HTTP (ServeLock.Holder), so this client needs no certificate store. Made
     * on first use, not with the class: {@code kiln project} asks {@link #of} whether a daemon owns the workspace, and
     * when none does it never speaks HTTP, yet building the client set up the JDK's TLS (its providers and curve
     * tables) and a selector thread first.
     */
    private static final class Local {
        static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                .sslContext(PinnedTls.plainHttpOnly()).build();
    }
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

    private final @Nullable WorkspaceLayout layout;
    private final ServeLock.@Nullable Holder holder;
    private final @Nullable URI base;
    private final @Nullable Path tokenFile;
    private final @Nullable String pin;
    private final HttpClient http;
    /** How long one question may take in all (connect, head and body; health's two exchanges together). */
    private final Duration timeout;

    private ServeClient(WorkspaceLayout layout, ServeLock.Holder holder) {
        this.layout = layout;
        this.holder = holder;
        this.base = holder.url();
        this.tokenFile = layout.apiTokenFile();
        this.pin = holder.tlsSha256();
        this.http = httpFor(holder);
        this.timeout = READ_TIMEOUT;
    }

    private ServeClient(ServeClient c, Duration timeout) {
        this.layout = c.layout;
        this.holder = c.holder;
        this.base = c.base;
        this.tokenFile = c.tokenFile;
        this.pin = c.pin;
        this.http = c.http;
        this.timeout = timeout;
    }

    private ServeClient(URI base, @Nullable Path tokenFile, @Nullable String pin) {
        this.layout = null;
        this.holder = null;
        this.base = base;
        this.tokenFile = tokenFile;
        this.pin = pin;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                .version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NEVER);
        if (pin != null) {
            b.sslContext(PinnedTls.context(pin));
        } else if ("http".equalsIgnoreCase(base.getScheme())) {
            b.sslContext(PinnedTls.plainHttpOnly());
        }
        this.http = b.build();
        this.timeout = READ_TIMEOUT;
    }

    /**
     * This client with another bound on each question it asks ({@link #checkVersion()}, {@link #health()}: connect,
     * answer and body together, however slowly the daemon sends); the default is 10 s.
     *
     * @throws IllegalArgumentException when {@code timeout} is not positive
     */
    public ServeClient withTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a timeout is a positive duration, not " + timeout);
        }
        return new ServeClient(this, timeout);
    }

    /** Pinned clients of local TLS daemons, by fingerprint (a daemon restarted with the same keystore reuses one). */
    private static final java.util.concurrent.ConcurrentHashMap<String, HttpClient> PINNED =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** The client for the daemon a lock file names: over TLS, one that trusts exactly the certificate it names. */
    static HttpClient httpFor(ServeLock.Holder h) {
        String pin = h.tlsSha256();
        if (pin == null) {
            return Local.HTTP;
        }
        return PINNED.computeIfAbsent(PinnedTls.normalize(pin), p -> HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(5)).sslContext(PinnedTls.context(p)).build());
    }

    /** The client of the daemon serving {@code layout}'s workspace right now, or empty when none does. */
    public static Optional<ServeClient> of(WorkspaceLayout layout) {
        return ServeLock.holder(layout).map(h -> new ServeClient(layout, h));
    }

    /**
     * The client of the daemon at {@code url} ({@code http://host:port/} or {@code https://…}).
     *
     * @param tokenFile the daemon's token (a copy of its {@code observer/api-token}), or null to send none (enough
     *     for reads of a loopback daemon)
     * @param pin the SHA-256 fingerprint of the daemon's certificate ({@code AB:CD:…} or bare hex), or null to trust
     *     the JVM's certificate authorities
     * @throws IllegalArgumentException when the URL is no http(s) URL, or a pin comes without https
     */
    public static ServeClient remote(URI url, @Nullable Path tokenFile, @Nullable String pin) {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(java.util.Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || url.getHost() == null) {
            throw new IllegalArgumentException("a daemon's URL is http://HOST:PORT/ or https://HOST:PORT/ (as kiln serve"
                    + " prints it), not \"" + url + "\"");
        }
        if (url.getRawQuery() != null) {
            throw new IllegalArgumentException("a daemon's URL has no query (a token goes in --token-file, never in a"
                    + " URL): " + url.getScheme() + "://" + url.getRawAuthority() + "/");
        }
        if (pin != null && !scheme.equals("https")) {
            throw new IllegalArgumentException("a certificate pin needs an https:// URL; " + url + " is plain HTTP");
        }
        String normalized = pin == null ? null : PinnedTls.normalize(pin);
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        URI base = URI.create(scheme + "://" + url.getRawAuthority() + (path.endsWith("/") ? path : path + "/"));
        return new ServeClient(base, tokenFile, normalized);
    }

    /**
     * A certificate pin in its canonical form {@code AB:CD:…}, from that form, lower case or bare hex, with or without
     * a {@code SHA256:} prefix: what a daemon list stores.
     *
     * @throws IllegalArgumentException when it is not a SHA-256 fingerprint
     */
    public static String normalizePin(String pin) {
        return PinnedTls.normalize(pin);
    }

    /**
     * The SHA-256 fingerprint of the certificate the TLS daemon at {@code url} presents, read without trusting it: for
     * a console that asks the operator, on first contact, whether it is the one {@code kiln serve} printed. Empty when
     * the URL is plain HTTP or nothing presented a certificate. Blocks up to a few seconds.
     */
    public static Optional<String> presentedFingerprint(URI url) {
        if (!"https".equalsIgnoreCase(url.getScheme()) || url.getHost() == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(PinnedTls.presented(url.getHost(), url.getPort() < 0 ? 443 : url.getPort()));
    }

    /** The daemon, as its lock file names it (a client {@linkplain #of of a local workspace} only). */
    public ServeLock.Holder holder() {
        if (holder == null) {
            throw new IllegalStateException("a remote client has no lock file; its daemon is " + base);
        }
        return holder;
    }

    private String name() {
        return holder != null ? holder.name() : "the daemon at " + base;
    }

    private String describe() {
        return holder != null ? holder.describe() : "the daemon at " + base;
    }

    private URI base() throws IOException {
        if (base == null) {
            throw new IOException(name() + " is starting; its API is not listening yet. Retry in a moment");
        }
        return base;
    }

    private @Nullable String token(boolean required) throws IOException {
        if (tokenFile == null) {
            if (required) {
                throw new IOException(describe() + " needs its token for this; pass --token-file (a copy of the"
                        + " daemon's observer/api-token)");
            }
            return null;
        }
        try {
            return ApiToken.read(tokenFile).value();
        } catch (IOException e) {
            if (!required && layout != null) {
                return null; // a local reader may not be the daemon's user: reads of a loopback daemon need no token
            }
            // SecretFile's message names the file and what is wrong with it, never its content
            throw new IOException(e.getMessage() + (layout != null ? "; run this as the user who runs kiln serve" : ""), e);
        }
    }

    private Answer send(String method, String route, boolean needsToken, Duration timeout)
            throws IOException, InterruptedException {
        HttpRequest.Builder rb = HttpRequest.newBuilder(base().resolve(route))
                .method(method, HttpRequest.BodyPublishers.noBody());
        String t = token(needsToken);
        if (t != null) {
            rb.header(Wire.AUTHORIZATION, Wire.bearer(t));
        }
        return read(rb, method, route, timeout);
    }

    /** One exchange through {@link BoundedRead}: the route's size bound, {@code timeout} for all of it. */
    private Answer read(HttpRequest.Builder rb, String method, String route, Duration timeout)
            throws IOException, InterruptedException {
        try {
            BoundedRead.Answer a = BoundedRead.exchange(http, rb, method + " /" + route, Wire.answerBytes(route), timeout);
            return new Answer(a.status(), a.body(), a.headers());
        } catch (IOException e) {
            throw failed(method, route, e);
        }
    }

    /** One exchange's answer: its status, body (decompressed) and headers. */
    record Answer(int status, byte[] body, java.net.http.HttpHeaders headers) {
        String text() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** A failed exchange in the operator's words: which daemon, what happened, what to do. */
    private IOException failed(String method, String route, IOException e) {
        BoundedRead.Exceeded x = BoundedRead.Exceeded.in(e);
        if (x == null) {
            return new IOException(describe() + " did not answer " + method + " /" + route + ": " + why(e), e);
        }
        String advice = switch (x.bound()) {
            case DEADLINE -> "; it is overloaded, its network stalls, or it is no kiln serve: retry, or allow it longer"
                    + " (--timeout)";
            case SIZE, FRAME -> route.equals(Wire.STATE) ? "; a state of 100,000 contracts is about 34 MB: is " + base
                    + " a kiln serve of this release?" : "; that is no kiln serve's answer: check the URL (kiln serve"
                    + " prints it at start)";
        };
        return new IOException(describe() + " " + x.getMessage() + advice, e);
    }

    /**
     * One exchange with the daemon, for {@link RemoteEngine}: gzip accepted (and undone), the token sent when there
     * is one (required for every method but GET), a JSON body and an idempotency key when given.
     *
     * @throws IOException when the daemon did not answer (the message says why, in the operator's words), or when a
     *     mutation needs the token and there is none
     */
    Answer exchange(String method, String route, @Nullable String rawQuery, byte @Nullable [] jsonBody,
            @Nullable String idempotencyKey, Duration timeout) throws IOException, InterruptedException {
        URI uri = base().resolve(route + (rawQuery == null ? "" : "?" + rawQuery));
        HttpRequest.Builder rb = HttpRequest.newBuilder(uri)
                .method(method, jsonBody == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(jsonBody));
        if (jsonBody != null) {
            rb.header("Content-Type", "application/json");
        }
        if (idempotencyKey != null && !idempotencyKey.isEmpty()) {
            rb.header(Wire.IDEMPOTENCY_KEY, idempotencyKey);
        }
        String t = method.equals("GET") ? readToken() : token(true);
        if (t != null) {
            rb.header(Wire.AUTHORIZATION, Wire.bearer(t));
        }
        return read(rb, method, route, timeout);
    }

    /**
     * Opens the daemon's event stream, resuming after {@code lastEventId} when given. The answer's headers arrive
     * within {@code timeout}; its body is the stream (the caller closes it, and reads it through
     * {@link BoundedRead.Frames}). With {@code backfill} the daemon sends its replay ring's events first (how many:
     * {@link Wire#BACKFILL_COUNT}).
     */
    HttpResponse<java.io.InputStream> events(@Nullable String lastEventId, boolean backfill, Duration timeout)
            throws IOException, InterruptedException {
        HttpRequest.Builder rb = HttpRequest.newBuilder(base().resolve(backfill ? Wire.EVENTS + "?" + Wire.BACKFILL
                + "=true" : Wire.EVENTS))
                .header("Accept", Wire.EVENT_STREAM).GET();
        if (lastEventId != null) {
            rb.header("Last-Event-ID", lastEventId);
        }
        String t = readToken();
        if (t != null) {
            rb.header(Wire.AUTHORIZATION, Wire.bearer(t));
        }
        try {
            return BoundedRead.head(http, rb, "GET /" + Wire.EVENTS, timeout);
        } catch (IOException e) {
            throw failed("GET", Wire.EVENTS, e);
        }
    }

    /**
     * The token for a read, or null when there is none or it cannot be read now: a loopback daemon answers reads
     * without it, and one beyond loopback answers 401, which names the token file. (A daemon that stopped removed
     * its token file; the read then fails for what it is, an unreachable daemon.)
     */
    private @Nullable String readToken() {
        try {
            return token(false);
        } catch (IOException e) {
            return null;
        }
    }

    /** Whether a failed exchange failed because the daemon's certificate is not the pinned one. */
    static boolean pinMismatch(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof java.security.cert.CertificateException && String.valueOf(c.getMessage()).startsWith(PinnedTls.MISMATCH)) {
                return true;
            }
        }
        return false;
    }

    /** Where the token comes from, for messages; null without one. */
    @Nullable Path tokenFile() {
        return tokenFile;
    }

    /** What a failed exchange means, in the operator's words (a pin mismatch names both fingerprints). */
    private String why(IOException e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            String m = String.valueOf(c.getMessage());
            if (c instanceof java.security.cert.CertificateException && m.startsWith(PinnedTls.MISMATCH)) {
                return m;
            }
            if (m.contains("PKIX path") || m.contains("unable to find valid certification path")) {
                String seen = base == null ? null : PinnedTls.presented(base.getHost(), base.getPort() < 0 ? 443 : base.getPort());
                return "its certificate is not signed by an authority this JVM trusts (self-signed?); pin it with"
                        + " --pin SHA256 (kiln serve prints its certificate's fingerprint at start)" + (seen == null ? ""
                        : ". It presented SHA256 " + seen + ": pin that only if it is what kiln serve printed");
            }
            if (c instanceof javax.net.ssl.SSLException && m.contains("Unsupported or unrecognized SSL message")) {
                return "it does not speak TLS; try http:// instead of https://";
            }
            if (c instanceof java.net.ConnectException) {
                return "nothing listens there" + (c.getMessage() == null ? "" : " (" + m + ")")
                        + "; is kiln serve running, on that port?";
            }
            if (c instanceof java.net.http.HttpTimeoutException) {
                return "no answer in time (" + m + ")";
            }
        }
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (base != null && base.getScheme().equals("http") && m.contains("header parser received no bytes")) {
            return "it closed the connection without an HTTP answer (does it speak https? then use https:// and --pin)";
        }
        return m;
    }

    private IOException refused(String what, Answer r) {
        if (r.status() == 401) {
            return new IOException(name() + " refused " + what + " (401): " + Wire.errorText(r.text())
                    + (tokenFile == null ? "; pass --token-file" : "; the token in " + tokenFile + " is not its current one"));
        }
        return new IOException(name() + " answered " + r.status() + " to " + what + ": " + Wire.errorText(r.text()));
    }

    /** How the doctor reaches daemons: this client, with its token, pin and version check (see {@link DoctorAccess}). */
    public static dev.kiln.core.doctor.DaemonAccess forDoctor() {
        return DoctorAccess.INSTANCE;
    }

    /**
     * A read-only answer's body ({@code GET route}, bounded like the route's answers), after {@link #checkVersion()}:
     * both within this client's timeout together.
     *
     * @throws IOException naming what failed, as {@link #health()} does
     */
    byte[] get(String route) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        checkVersion(timeout);
        Duration left = Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
        Answer r = send("GET", route, false, left);
        if (r.status() != 200) {
            throw refused("GET /" + route, r);
        }
        return r.body();
    }

    /**
     * Checks that the daemon speaks this client's API version.
     *
     * @return that version
     * @throws IOException saying what it speaks instead (an older daemon without {@code /api/v1}, another version,
     *     no Kiln at all), or why it did not answer
     */
    public int checkVersion() throws IOException, InterruptedException {
        return checkVersion(timeout);
    }

    private int checkVersion(Duration within) throws IOException, InterruptedException {
        Answer r = send("GET", Wire.VERSION, false, within);
        if (r.status() == 404) {
            throw new IOException(name() + " speaks an older API than v" + Wire.API_VERSION + " (no /" + Wire.VERSION
                    + "): upgrade kiln on its host, or use the kiln it runs");
        }
        if (r.status() != 200) {
            throw refused("GET /" + Wire.VERSION, r);
        }
        int v;
        try {
            v = Wire.readVersion(r.text());
        } catch (IOException e) {
            throw new IOException(name() + " is no kiln serve of a known version: " + e.getMessage(), e);
        }
        if (v != Wire.API_VERSION) {
            throw new IOException(name() + " speaks API v" + v + ", this kiln speaks v" + Wire.API_VERSION + ": use a kiln"
                    + " of the same release on both sides");
        }
        return v;
    }

    /**
     * The daemon's health ({@code GET /api/v1/health}), after {@link #checkVersion()}: both within this client's
     * timeout together.
     *
     * @throws IOException naming what failed: unreachable, not this API version, a refused token, a certificate
     *     that is not the pinned one, an answer too large or too slow, or an answer that is not health
     */
    public DaemonHealth health() throws IOException, InterruptedException {
        return healthAnswer().health();
    }

    /**
     * {@link #health()} with the answer's JSON as it came, for readers of fields {@link DaemonHealth} does not carry
     * (the fleet reads the daemon's {@code verdict} and {@code reasons} there, absent from older daemons).
     */
    public HealthAnswer healthAnswer() throws IOException, InterruptedException {
        long start = System.nanoTime();
        checkVersion(timeout);
        Duration left = timeout.minusNanos(System.nanoTime() - start);
        if (left.isNegative() || left.isZero()) {
            throw slow(null);
        }
        Answer r;
        try {
            r = send("GET", Wire.HEALTH, false, left);
        } catch (IOException e) {
            BoundedRead.Exceeded x = BoundedRead.Exceeded.in(e);
            throw x != null && x.bound() == BoundedRead.Exceeded.Bound.DEADLINE ? slow(e) : e;
        }
        if (r.status() != 200) {
            throw refused("GET /" + Wire.HEALTH, r);
        }
        return new HealthAnswer(Wire.readHealth(base(), r.text(), Optional.ofNullable(pin)), r.text());
    }

    /** A health answer: read, and its body as the daemon sent it (bounded like every answer). */
    public record HealthAnswer(DaemonHealth health, String body) {
    }

    /** Health did not come in time: the deadline was the question's (version and health together), not what was left. */
    private IOException slow(@Nullable IOException cause) {
        return new IOException(describe() + " did not finish answering GET /" + Wire.VERSION + " and /" + Wire.HEALTH
                + " within " + BoundedRead.seconds(timeout) + "; it is overloaded, its network stalls, or it is no kiln"
                + " serve: retry, or allow it longer (--timeout)", cause);
    }

    /**
     * Asks the daemon for a manual projection ({@code POST /api/v1/project}) and waits for it.
     *
     * @return the tick it ran (its duration rounded to the microsecond, as the wire carries it)
     * @throws IOException naming what failed: its API not listening yet, no readable token, or its answer
     */
    public TickRecord project() throws IOException, InterruptedException {
        Answer r = send("POST", Wire.PROJECT, true, Duration.ofMinutes(3));
        if (r.status() != 200) {
            throw refused("POST /" + Wire.PROJECT, r);
        }
        return Wire.readTick(r.text());
    }
}
