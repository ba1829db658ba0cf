package dev.kiln.core.serve;

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
 * <p>Concurrency: immutable; local clients share one {@link HttpClient}, a remote one has its own (its TLS trust is
 * its pin); both are thread-safe.
 */
public final class ServeClient {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

    private final @Nullable WorkspaceLayout layout;
    private final ServeLock.@Nullable Holder holder;
    private final @Nullable URI base;
    private final @Nullable Path tokenFile;
    private final @Nullable String pin;
    private final HttpClient http;

    private ServeClient(WorkspaceLayout layout, ServeLock.Holder holder) {
        this.layout = layout;
        this.holder = holder;
        this.base = holder.url();
        this.tokenFile = layout.apiTokenFile();
        this.pin = holder.tlsSha256();
        this.http = httpFor(holder);
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
        }
        this.http = b.build();
    }

    /** Pinned clients of local TLS daemons, by fingerprint (a daemon restarted with the same keystore reuses one). */
    private static final java.util.concurrent.ConcurrentHashMap<String, HttpClient> PINNED =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** The client for the daemon a lock file names: over TLS, one that trusts exactly the certificate it names. */
    static HttpClient httpFor(ServeLock.Holder h) {
        String pin = h.tlsSha256();
        if (pin == null) {
            return HTTP;
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

    private HttpResponse<String> send(String method, String route, boolean needsToken, Duration timeout)
            throws IOException, InterruptedException {
        HttpRequest.Builder rb = HttpRequest.newBuilder(base().resolve(route)).timeout(timeout)
                .method(method, HttpRequest.BodyPublishers.noBody());
        String t = token(needsToken);
        if (t != null) {
            rb.header(Wire.AUTHORIZATION, Wire.bearer(t));
        }
        try {
            return http.send(rb.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IOException(describe() + " did not answer " + method + " /" + route + ": " + why(e), e);
        }
    }

    /** One exchange's answer: its status, body (decompressed) and headers. */
    record Answer(int status, byte[] body, java.net.http.HttpHeaders headers) {
        String text() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }
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
        HttpRequest.Builder rb = HttpRequest.newBuilder(uri).timeout(timeout).header("Accept-Encoding", "gzip")
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
        HttpResponse<byte[]> r;
        try {
            r = http.send(rb.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new IOException(describe() + " did not answer " + method + " /" + route + ": " + why(e), e);
        }
        byte[] body = r.body();
        if (r.headers().firstValue("Content-Encoding").map(v -> v.equalsIgnoreCase("gzip")).orElse(false)) {
            try (java.util.zip.GZIPInputStream in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(body))) {
                body = in.readAllBytes();
            }
        }
        return new Answer(r.statusCode(), body, r.headers());
    }

    /**
     * Opens the daemon's event stream, resuming after {@code lastEventId} when given. The answer's headers arrive
     * within {@code timeout}; its body is the stream (the caller closes it).
     */
    HttpResponse<java.io.InputStream> events(@Nullable String lastEventId, Duration timeout)
            throws IOException, InterruptedException {
        HttpRequest.Builder rb = HttpRequest.newBuilder(base().resolve(Wire.EVENTS)).timeout(timeout)
                .header("Accept", Wire.EVENT_STREAM).GET();
        if (lastEventId != null) {
            rb.header("Last-Event-ID", lastEventId);
        }
        String t = readToken();
        if (t != null) {
            rb.header(Wire.AUTHORIZATION, Wire.bearer(t));
        }
        try {
            return http.send(rb.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw new IOException(describe() + " did not answer GET /" + Wire.EVENTS + ": " + why(e), e);
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

    private IOException refused(String what, HttpResponse<String> r) {
        if (r.statusCode() == 401) {
            return new IOException(name() + " refused " + what + " (401): " + Wire.errorText(r.body())
                    + (tokenFile == null ? "; pass --token-file" : "; the token in " + tokenFile + " is not its current one"));
        }
        return new IOException(name() + " answered " + r.statusCode() + " to " + what + ": " + Wire.errorText(r.body()));
    }

    /**
     * Checks that the daemon speaks this client's API version.
     *
     * @return that version
     * @throws IOException saying what it speaks instead (an older daemon without {@code /api/v1}, another version,
     *     no Kiln at all), or why it did not answer
     */
    public int checkVersion() throws IOException, InterruptedException {
        HttpResponse<String> r = send("GET", Wire.VERSION, false, READ_TIMEOUT);
        if (r.statusCode() == 404) {
            throw new IOException(name() + " speaks an older API than v" + Wire.API_VERSION + " (no /" + Wire.VERSION
                    + "): upgrade kiln on its host, or use the kiln it runs");
        }
        if (r.statusCode() != 200) {
            throw refused("GET /" + Wire.VERSION, r);
        }
        int v;
        try {
            v = Wire.readVersion(r.body());
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
     * The daemon's health ({@code GET /api/v1/health}), after {@link #checkVersion()}.
     *
     * @throws IOException naming what failed: unreachable, not this API version, a refused token, a certificate
     *     that is not the pinned one, or an answer that is not health
     */
    public DaemonHealth health() throws IOException, InterruptedException {
        checkVersion();
        HttpResponse<String> r = send("GET", Wire.HEALTH, false, READ_TIMEOUT);
        if (r.statusCode() != 200) {
            throw refused("GET /" + Wire.HEALTH, r);
        }
        return Wire.readHealth(base(), r.body(), Optional.ofNullable(pin));
    }

    /**
     * Asks the daemon for a manual projection ({@code POST /api/v1/project}) and waits for it.
     *
     * @return the tick it ran (its duration rounded to the microsecond, as the wire carries it)
     * @throws IOException naming what failed: its API not listening yet, no readable token, or its answer
     */
    public TickRecord project() throws IOException, InterruptedException {
        HttpResponse<String> r = send("POST", Wire.PROJECT, true, Duration.ofMinutes(3));
        if (r.statusCode() != 200) {
            throw refused("POST /" + Wire.PROJECT, r);
        }
        return Wire.readTick(r.body());
    }
}
