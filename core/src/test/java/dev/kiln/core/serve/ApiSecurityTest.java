package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.projection.TickRecord;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.core.serve.wire.ApiToken;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, first slice: the API's versioning and security rules, over real sockets on loopback (raw requests where
 * a header must be one an HTTP client would not send, such as a foreign {@code Host}), and TLS with a self-signed
 * keystore made by the JDK's keytool.
 */
@DaemonTest @ProcessTest
class ApiSecurityTest {
    private static final ObjectMapper M = new ObjectMapper();

    @TempDir
    Path dir;
    private final AtomicReference<Published> current = new AtomicReference<>();
    private final AtomicInteger mutations = new AtomicInteger();
    private ApiToken token;
    private ApiServer server;

    private ApiServer start(UnaryOperator<ApiServer.Builder> config) throws Exception {
        token = ApiToken.writeNew(dir.resolve("observer/api-token"));
        server = config.apply(ApiServer.builder(new ApiServer.Backend() {
            @Override
            public Published current() {
                return current.get();
            }

            @Override
            public JsonNode metrics() {
                return M.createObjectNode().put("projections", 1);
            }

            @Override
            public JsonNode project() {
                return Wire.tick(new TickRecord(mutations.incrementAndGet(), dev.kiln.core.projection.WakeReason.MANUAL,
                        false, java.time.Instant.EPOCH, 1_000_000, 0, 1, false, Map.of(), ""));
            }

            @Override
            public dev.kiln.core.engine.WorkspaceActions actions() {
                mutations.incrementAndGet(); // a route reached its handler
                throw new UnsupportedOperationException("no workspace behind this test API");
            }

            @Override
            public JsonNode doctor() {
                throw new UnsupportedOperationException("no workspace behind this test API");
            }

            @Override
            public JsonNode heal(boolean dryRun, String idempotencyKey) {
                return M.createObjectNode().put("mutations", mutations.incrementAndGet());
            }

            @Override
            public JsonNode health() {
                return M.createObjectNode().put("api_version", Wire.API_VERSION);
            }
        }, token).port(0)).build().start();
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void publish(int leaves) throws Exception {
        ObjectNode doc = M.createObjectNode().put("revision", 1);
        ArrayNode a = doc.putArray("leaves");
        for (int i = 0; i < leaves; i++) {
            a.addObject().put("leaf_id", "area/leaf-" + i).put("title", "Leaf number " + i).put("status", "running");
        }
        doc.putArray("failures");
        doc.putObject("meta");
        Published p = new Published(1, M.writeValueAsBytes(doc));
        current.set(p);
        server.publish(p);
    }

    /** One raw HTTP/1.1 exchange with exactly these header lines ({@code Connection: close} added). */
    record Raw(int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String error() throws IOException {
            return M.readTree(body).path("error").asText();
        }
    }

    private Raw raw(String method, String target, String... headerLines) throws IOException {
        URI u = server.url();
        try (Socket s = new Socket(u.getHost(), u.getPort())) {
            s.setSoTimeout(30_000);
            StringBuilder req = new StringBuilder(method + " " + target + " HTTP/1.1\r\n");
            for (String h : headerLines) {
                req.append(h).append("\r\n");
            }
            req.append("Connection: close\r\n");
            if (method.equals("POST")) {
                req.append("Content-Length: 0\r\n");
            }
            req.append("\r\n");
            s.getOutputStream().write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            return parse(s.getInputStream().readAllBytes());
        }
    }

    private static Raw parse(byte[] all) {
        int end = 0;
        while (!(all[end] == '\r' && all[end + 1] == '\n' && all[end + 2] == '\r' && all[end + 3] == '\n')) {
            end++;
        }
        String[] lines = new String(all, 0, end, StandardCharsets.ISO_8859_1).split("\r\n");
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int c = lines[i].indexOf(':');
            headers.put(lines[i].substring(0, c).trim().toLowerCase(Locale.ROOT), lines[i].substring(c + 1).trim());
        }
        byte[] body = java.util.Arrays.copyOfRange(all, end + 4, all.length);
        return new Raw(Integer.parseInt(lines[0].split(" ")[1]), headers, body);
    }

    private String host() {
        return "Host: " + server.url().getAuthority();
    }

    private String bearer() {
        return "Authorization: Bearer " + token.value();
    }

    // ---- versioning ------------------------------------------------------------------------------------------

    @Test
    void v1AndLegacyPaths_sameAnswers_versionRouteSaysApiVersion() throws Exception {
        start(b -> b);
        publish(3);
        Raw v1 = raw("GET", "/api/v1/state", host());
        Raw legacy = raw("GET", "/api/state", host());
        assertThat(v1.status()).isEqualTo(200);
        assertThat(legacy.status()).isEqualTo(200);
        assertThat(legacy.body()).isEqualTo(v1.body());
        assertThat(raw("GET", "/api/v1/metrics", host()).status()).isEqualTo(200);
        assertThat(raw("GET", "/api/metrics", host()).status()).isEqualTo(200);
        Raw version = raw("GET", "/api/v1/version", host());
        assertThat(M.readTree(version.body()).path("api_version").asInt()).isEqualTo(Wire.API_VERSION);
        assertThat(raw("GET", "/api/version", host()).status()).as("new in v1: no legacy alias").isEqualTo(404);
        assertThat(raw("POST", "/api/v1/project", host(), bearer()).status()).isEqualTo(200);
        assertThat(raw("POST", "/api/project", host(), bearer()).status()).isEqualTo(200);
        assertThat(mutations.get()).isEqualTo(2);
    }

    // ---- the token ---------------------------------------------------------------------------------------------

    @Test
    void everyMutatingRoute_withoutOrWithWrongToken_401AndNothingRuns() throws Exception {
        start(b -> b);
        for (String path : List.of("/api/v1/project", "/api/v1/heal", "/api/v1/heal?dry_run=true", "/api/project",
                "/api/heal", "/api/v1/seeds/warm", "/api/v1/probe", "/api/v1/bytecode/precompile", "/api/v1/archive/build",
                "/api/v1/archive/invalidate", "/api/v1/actions/warm-1/cancel")) {
            Raw none = raw("POST", path, host());
            assertThat(none.status()).as(path + " without a token").isEqualTo(401);
            assertThat(none.error()).isEqualTo("unauthorized");
            assertThat(none.headers()).containsKey("www-authenticate");
            Raw wrong = raw("POST", path, host(), "Authorization: Bearer " + "0".repeat(64));
            assertThat(wrong.status()).as(path + " with a wrong token").isEqualTo(401);
            assertThat(wrong.text()).contains("not this daemon's").doesNotContain(token.value());
            assertThat(raw("POST", path, host(), "Authorization: Bearer " + token.value() + "x").status())
                    .as(path + " with the token and one more character").isEqualTo(401);
            assertThat(raw("POST", path, host(), "Authorization: Basic " + token.value()).status()).isEqualTo(401);
        }
        assertThat(mutations.get()).as("no refused call ran").isZero();
        assertThat(raw("POST", "/api/v1/heal", host(), bearer()).status()).isEqualTo(200);
        assertThat(mutations.get()).isEqualTo(1);
    }

    @Test
    void tokenInQueryString_400EvenWhenTheHeaderIsRight() throws Exception {
        start(b -> b);
        publish(1);
        for (String target : List.of("/api/v1/project?token=" + token.value(), "/api/v1/state?token=abc",
                "/api/v1/heal?dry_run=true&access_token=" + token.value())) {
            Raw r = raw(target.contains("state") ? "GET" : "POST", target, host(), bearer());
            assertThat(r.status()).as(target).isEqualTo(400);
            assertThat(r.error()).isEqualTo("token_in_query");
            assertThat(r.text()).contains("Authorization: Bearer").doesNotContain(token.value());
        }
        assertThat(mutations.get()).isZero();
    }

    // ---- Host and Origin ---------------------------------------------------------------------------------------

    @Test
    void foreignHost_403_loopbackNamesWithThePort_answer() throws Exception {
        start(b -> b);
        publish(1);
        int port = server.port();
        Raw evil = raw("GET", "/api/v1/state", "Host: evil.example");
        assertThat(evil.status()).isEqualTo(403);
        assertThat(evil.error()).isEqualTo("forbidden_host");
        assertThat(evil.text()).contains("evil.example");
        assertThat(raw("GET", "/api/v1/state", "Host: evil.example:" + port).status()).isEqualTo(403);
        assertThat(raw("POST", "/api/v1/project", "Host: evil.example:" + port, bearer()).status())
                .as("a rebound name is refused even with the token").isEqualTo(403);
        assertThat(raw("GET", "/api/v1/state", "Host: 127.0.0.1:" + (port == 65_535 ? 1 : port + 1)).status())
                .as("another port").isEqualTo(403);
        assertThat(raw("GET", "/api/v1/state").status()).as("no Host at all").isEqualTo(403);
        for (String ok : List.of("127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port)) {
            assertThat(raw("GET", "/api/v1/state", "Host: " + ok).status()).as(ok).isEqualTo(200);
        }
        assertThat(mutations.get()).isZero();
    }

    @Test
    void foreignOrigin_403_ownOrigin_answers() throws Exception {
        start(b -> b);
        publish(1);
        int port = server.port();
        for (String origin : List.of("https://evil.example", "http://evil.example:" + port, "null",
                "http://127.0.0.1:" + (port == 65_535 ? 1 : port + 1), "https://127.0.0.1:" + port)) {
            Raw r = raw("POST", "/api/v1/project", host(), bearer(), "Origin: " + origin);
            assertThat(r.status()).as(origin).isEqualTo(403);
            assertThat(r.error()).isEqualTo("forbidden_origin");
            assertThat(r.headers()).doesNotContainKey("access-control-allow-origin");
            assertThat(raw("GET", "/api/v1/state", host(), "Origin: " + origin).status()).as("GET from " + origin)
                    .isEqualTo(403);
        }
        assertThat(raw("GET", "/api/v1/state", host(), "Sec-Fetch-Site: cross-site").status()).isEqualTo(403);
        assertThat(mutations.get()).isZero();
        assertThat(raw("POST", "/api/v1/project", host(), bearer(), "Origin: http://127.0.0.1:" + port).status())
                .isEqualTo(200);
        assertThat(raw("GET", "/api/v1/state", host(), "Origin: http://localhost:" + port, "Sec-Fetch-Site: same-origin")
                .status()).isEqualTo(200);
    }

    // ---- gzip --------------------------------------------------------------------------------------------------

    @Test
    void state_acceptsGzip_gzippedBodyEqualsPlainAndIsSmaller() throws Exception {
        start(b -> b);
        publish(2_000);
        Raw plain = raw("GET", "/api/v1/state", host());
        Raw gz = raw("GET", "/api/v1/state", host(), "Accept-Encoding: br, gzip;q=0.8");
        assertThat(plain.headers()).doesNotContainKey("content-encoding");
        assertThat(gz.headers()).containsEntry("content-encoding", "gzip").containsEntry("vary", "Accept-Encoding");
        byte[] inflated;
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz.body()))) {
            inflated = in.readAllBytes();
        }
        assertThat(inflated).isEqualTo(plain.body()).isEqualTo(current.get().document());
        assertThat(gz.body().length).isLessThan(plain.body().length / 4);
        assertThat(gz.headers()).containsEntry("etag", plain.headers().get("etag"));
        assertThat(raw("GET", "/api/v1/state", host(), "Accept-Encoding: gzip;q=0").headers())
                .doesNotContainKey("content-encoding");
        assertThat(raw("GET", "/api/v1/version", host(), "Accept-Encoding: gzip").headers())
                .as("a small body goes out plain").doesNotContainKey("content-encoding");
    }

    // ---- beyond loopback and TLS ---------------------------------------------------------------------------------

    @Test
    void checkExposure_beyondLoopbackWithoutTls_refusedSayingHowToFixIt() throws Exception {
        assertThatThrownBy(() -> ApiServer.checkExposure("0.0.0.0", false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("without TLS")
                .hasMessageContaining("--tls-keystore").hasMessageContaining("keytool -genkeypair");
        ApiServer.checkExposure("127.0.0.1", false);
        ApiServer.checkExposure("::1", false);
        ApiServer.checkExposure("0.0.0.0", true);
        ApiServer.Builder b = ApiServer.builder(new ApiServer.Backend() {
            @Override
            public Published current() {
                return null;
            }

            @Override
            public JsonNode metrics() {
                return M.createObjectNode();
            }

            @Override
            public JsonNode project() {
                return M.createObjectNode();
            }

            @Override
            public dev.kiln.core.engine.WorkspaceActions actions() {
                throw new UnsupportedOperationException("no workspace behind this test API");
            }

            @Override
            public JsonNode doctor() {
                throw new UnsupportedOperationException("no workspace behind this test API");
            }

            @Override
            public JsonNode heal(boolean dryRun, String idempotencyKey) {
                return M.createObjectNode();
            }

            @Override
            public JsonNode health() {
                return M.createObjectNode();
            }
        }, ApiToken.generate()).bind("0.0.0.0").port(0);
        assertThatThrownBy(() -> b.build().start()).as("the server itself refuses, whoever builds it")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("without TLS");
    }

    @Test
    void tls_pinnedSelfSignedCertificate_works_anotherCertificate_refusedNamingBoth() throws Exception {
        Path pw = Files.writeString(dir.resolve("tls-password"), "s3cret-pass\n");
        Path served = Keystores.selfSigned(dir.resolve("served.p12"), "s3cret-pass", "localhost");
        Path other = Keystores.selfSigned(dir.resolve("other.p12"), "s3cret-pass", "localhost");
        TlsIdentity identity = TlsIdentity.load(served, pw);
        String otherPin = TlsIdentity.load(other, pw).fingerprint();
        start(b -> b.tls(identity));
        publish(1);
        assertThat(server.url().getScheme()).isEqualTo("https");
        assertThat(server.tlsFingerprint()).isEqualTo(identity.fingerprint()).isEqualTo(Keystores.keytoolSha256(served,
                "s3cret-pass"));

        ServeClient pinned = ServeClient.remote(server.url(), dir.resolve("observer/api-token"),
                identity.fingerprint().replace(":", "").toLowerCase(Locale.ROOT));
        assertThat(pinned.checkVersion()).isEqualTo(Wire.API_VERSION);
        assertThat(pinned.project().seq()).isEqualTo(1);
        assertThat(mutations.get()).isEqualTo(1);

        ServeClient wrong = ServeClient.remote(server.url(), dir.resolve("observer/api-token"), otherPin);
        assertThatThrownBy(wrong::checkVersion).isInstanceOf(IOException.class)
                .hasMessageContaining("certificate fingerprint mismatch")
                .hasMessageContaining(identity.fingerprint()).hasMessageContaining(otherPin);
        assertThatThrownBy(wrong::project).hasMessageContaining("certificate fingerprint mismatch");
        assertThat(mutations.get()).as("nothing was sent to a certificate that is not the pinned one").isEqualTo(1);

        ServeClient unpinned = ServeClient.remote(server.url(), null, null);
        assertThatThrownBy(unpinned::checkVersion).hasMessageContaining("--pin");
        URI plain = URI.create("http://" + server.url().getAuthority() + "/");
        assertThatThrownBy(() -> ServeClient.remote(plain, null, null).checkVersion()).isInstanceOf(IOException.class);
    }

    @Test
    void beyondLoopback_readsNeedTheTokenToo_wrongTokenFileNamedInTheClientsMessage() throws Exception {
        java.net.InetAddress address = null;
        for (java.net.NetworkInterface ni : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
            for (java.net.InetAddress a : java.util.Collections.list(ni.getInetAddresses())) {
                if (a instanceof java.net.Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                    address = a;
                }
            }
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(address != null, "this machine has no non-loopback IPv4 address");
        Path pw = Files.writeString(dir.resolve("tls-password"), "s3cret-pass\n");
        TlsIdentity identity = TlsIdentity.load(Keystores.selfSigned(dir.resolve("k.p12"), "s3cret-pass", "localhost"), pw);
        String bind = address.getHostAddress();
        start(b -> b.bind(bind).tls(identity));
        publish(1);
        Path tokenFile = dir.resolve("observer/api-token");
        Path wrongToken = Files.writeString(dir.resolve("old-token"), "0".repeat(64) + "\n");

        ServeClient anonymous = ServeClient.remote(server.url(), null, identity.fingerprint());
        assertThatThrownBy(anonymous::checkVersion).hasMessageContaining("401").hasMessageContaining("--token-file");
        ServeClient stale = ServeClient.remote(server.url(), wrongToken, identity.fingerprint());
        assertThatThrownBy(stale::checkVersion).hasMessageContaining("401").hasMessageContaining(wrongToken.toString())
                .hasMessageContaining("not its current one");
        ServeClient right = ServeClient.remote(server.url(), tokenFile, identity.fingerprint());
        assertThat(right.checkVersion()).isEqualTo(Wire.API_VERSION);
        assertThat(right.project().seq()).isEqualTo(1);
    }

    @Test
    void localClient_ofATlsDaemon_trustsTheFingerprintItsLockFileNames() throws Exception {
        Path ws = dir.resolve("ws");
        dev.kiln.core.workspace.WorkspaceLayout layout = dev.kiln.core.workspace.WorkspaceLayout.of(ws);
        dev.kiln.core.snapshot.TestTrees.contract(layout.tasksDir(), "payments/refunds/retry", "running");
        Path pw = Files.writeString(dir.resolve("tls-password"), "s3cret-pass\n");
        Path ks = Keystores.selfSigned(dir.resolve("k.p12"), "s3cret-pass", "localhost");
        try (ProjectionDaemon d = ProjectionDaemon.builder(layout).port(0).tls(ks, pw).start()) {
            d.awaitFirstProjection(java.time.Duration.ofSeconds(60));
            assertThat(d.url().getScheme()).isEqualTo("https");
            ServeClient local = ServeClient.of(layout).orElseThrow();
            assertThat(local.holder().tlsSha256()).isEqualTo(d.tlsFingerprint().orElseThrow())
                    .isEqualTo(Keystores.keytoolSha256(ks, "s3cret-pass"));
            assertThat(local.project().revision()).isPositive();
            assertThat(local.health().contracts()).isEqualTo(1);
        }
    }

    @Test
    void tlsIdentity_wrongPasswordOrMissingFile_clearMessage() throws Exception {
        Path ks = Keystores.selfSigned(dir.resolve("k.p12"), "right-pass", "localhost");
        Path wrong = Files.writeString(dir.resolve("wrong"), "wrong-pass\n");
        assertThatThrownBy(() -> TlsIdentity.load(ks, wrong)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ks.toString()).hasMessageContaining("password");
        assertThatThrownBy(() -> TlsIdentity.load(dir.resolve("none.p12"), wrong))
                .hasMessageContaining("does not exist");
        assertThatThrownBy(() -> TlsIdentity.load(ks, dir.resolve("no-password-file")))
                .hasMessageContaining("--tls-password-file");
    }

    @Test
    void remoteClient_oldDaemonWithoutV1OrGarbage_refusedWithWhatItIs() throws Exception {
        // an old daemon: only the unversioned paths (a plain JDK server stands in for it)
        com.sun.net.httpserver.HttpServer old = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        old.createContext("/", x -> {
            byte[] b = (x.getRequestURI().getPath().equals("/garbage/api/v1/version") ? "<html>hi</html>"
                    : "{\"error\":\"not_found\",\"message\":\"no such endpoint\"}").getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(x.getRequestURI().getPath().startsWith("/garbage") ? 200 : 404, b.length);
            x.getResponseBody().write(b);
            x.close();
        });
        old.start();
        try {
            URI base = URI.create("http://127.0.0.1:" + old.getAddress().getPort() + "/");
            assertThatThrownBy(() -> ServeClient.remote(base, null, null).checkVersion())
                    .hasMessageContaining("older API");
            assertThatThrownBy(() -> ServeClient.remote(base.resolve("garbage/"), null, null).checkVersion())
                    .hasMessageContaining("no kiln serve").hasMessageContaining("<html>");
        } finally {
            old.stop(0);
        }
        assertThatThrownBy(() -> ServeClient.remote(URI.create("http://127.0.0.1:1/"), null, null).checkVersion())
                .hasMessageContaining("nothing listens");
        assertThatThrownBy(() -> ServeClient.remote(URI.create("http://127.0.0.1:1/?token=x"), null, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("never in a URL");
        assertThatThrownBy(() -> ServeClient.remote(URI.create("http://127.0.0.1:1/"), null, "AB:CD"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Self-signed PKCS12 keystores made with the JDK's own keytool, as an operator would. */
    static final class Keystores {
        private Keystores() {
        }

        static Path keytool() {
            return Path.of(System.getProperty("java.home"), "bin", "keytool");
        }

        static Path selfSigned(Path file, String password, String cn) throws Exception {
            run(keytool().toString(), "-genkeypair", "-alias", "kiln", "-keyalg", "EC", "-groupname", "secp256r1",
                    "-validity", "30", "-storetype", "PKCS12", "-keystore", file.toString(), "-storepass", password,
                    "-keypass", password, "-dname", "CN=" + cn, "-ext", "san=dns:" + cn + ",ip:127.0.0.1");
            return file;
        }

        /** The SHA-256 keytool itself prints for the key's certificate: the pin agrees with the operator's tool. */
        static String keytoolSha256(Path file, String password) throws Exception {
            String out = run(keytool().toString(), "-list", "-v", "-storetype", "PKCS12", "-keystore", file.toString(),
                    "-storepass", password);
            for (String line : out.split("\n")) {
                if (line.trim().startsWith("SHA256:")) {
                    return line.trim().substring("SHA256:".length()).trim();
                }
            }
            throw new AssertionError("keytool printed no SHA256 line: " + out);
        }

        private static String run(String... cmd) throws Exception {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            p.getInputStream().transferTo(out);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("keytool finished").isTrue();
            assertThat(p.exitValue()).as("keytool: " + out).isZero();
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
