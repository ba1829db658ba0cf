package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.DaemonTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, items 16–18: what the daemon's API must refuse, provoked for real against a {@link ProjectionDaemon} on
 * loopback: an idempotency key given to another request, an archive of a directory outside the workspace reached
 * through a symlink, and an archive larger than the workspace's {@code archive_max_bytes} — each in the API's error
 * shape, with nothing run or read, and the daemon healthy afterwards.
 */
@DaemonTest
class ApiRefusalsTest {
    private static final ObjectMapper M = new ObjectMapper();
    /** The workspace's archive bound: small, so a tree above it is small too. */
    private static final long ARCHIVE_MAX = 64 * 1024;

    @TempDir
    Path dir;
    private Path ws;
    private Path outside;
    private ProjectionDaemon daemon;
    private String token;

    private record Answer(int status, JsonNode body) {
    }

    @BeforeEach
    void daemon() throws Exception {
        ws = dir.resolve("ws");
        new DemoWorkspace().write(ws, 4, 7, false);
        // uv is /bin/false: a warm started here fails at once, so nothing heavy runs
        Files.writeString(ws.resolve("kiln.json"), "{\"archive_cache_max_bytes\": " + ARCHIVE_MAX + ", \"uv\": \"/bin/false\"}\n");
        for (String t : new String[] {"app", "lib"}) {
            Path target = Files.createDirectories(ws.resolve("targets").resolve(t));
            Files.writeString(target.resolve("target.json"), "{\"source\": {\"dir\": \".\"}}\n");
        }
        outside = Files.createDirectories(dir.resolve("outside/secrets"));
        Files.writeString(outside.resolve("id_ed25519"), "PRIVATE KEY of the daemon's user\n");
        daemon = ProjectionDaemon.builder(WorkspaceLayout.of(ws)).port(0).start();
        daemon.awaitFirstProjection(java.time.Duration.ofSeconds(60));
        token = Files.readString(daemon.tokenFile()).trim();
    }

    @AfterEach
    void stop() {
        if (daemon != null) {
            daemon.close();
        }
    }

    private Answer post(String route, String key, String body) throws IOException {
        HttpURLConnection c = (HttpURLConnection) daemon.url().resolve("/api/v1/" + route).toURL().openConnection();
        c.setRequestMethod("POST");
        c.setConnectTimeout(10_000);
        c.setReadTimeout(60_000);
        c.setRequestProperty("Authorization", "Bearer " + token);
        c.setRequestProperty("Content-Type", "application/json");
        if (key != null) {
            c.setRequestProperty("Idempotency-Key", key);
        }
        c.setDoOutput(true);
        try (OutputStream out = c.getOutputStream()) {
            out.write(body.getBytes(StandardCharsets.UTF_8));
        }
        int status = c.getResponseCode();
        try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
            byte[] b = in == null ? new byte[0] : in.readAllBytes();
            return new Answer(status, b.length == 0 ? M.createObjectNode() : M.readTree(b));
        } finally {
            c.disconnect();
        }
    }

    private JsonNode get(String route) throws IOException {
        Http.Response r = Http.call("GET", daemon.url().resolve("/api/v1/" + route));
        assertThat(r.statusCode()).as("GET " + route).isEqualTo(200);
        return M.readTree(r.body());
    }

    @Test
    void idempotencyKey_givenToAnotherRouteOrBody_is422NamingTheKey_theSameRequestAnswersTheFirstAction() throws Exception {
        String server = get("servers").get(0).path("name").asText();
        Answer first = post("seeds/warm", "retry-7", "{\"target\": \"app\"}");
        assertThat(first.status()).isEqualTo(202);
        String id = first.body().path("id").asText();
        assertThat(id).startsWith("warm-");

        Answer again = post("seeds/warm", "retry-7", "{ \"target\" : \"app\" }");
        assertThat(again.status()).as("the same request again (a retry)").isEqualTo(202);
        assertThat(again.body().path("id").asText()).as("the first action's id").isEqualTo(id);

        for (String[] other : new String[][] {{"seeds/warm", "{\"target\": \"lib\"}"}, {"probe", "{}"},
                {"bytecode/precompile", "{\"server\": \"" + server + "\"}"}, {"heal", ""}}) {
            Answer a = post(other[0], "retry-7", other[1]);
            assertThat(a.status()).as(other[0] + " " + other[1] + " with the warm's key").isEqualTo(422);
            assertThat(a.body().path("error").asText()).isEqualTo("idempotency_key_reused");
            assertThat(a.body().path("message").asText()).contains("'retry-7'").contains("target 'app'");
        }
        JsonNode actions = get("actions/" + id);
        assertThat(actions.path("kind").asText()).isEqualTo("warm");
        assertThat(get("health").isObject()).isTrue();
    }

    @Test
    void archiveBuild_directoryThatIsASymlinkOutOfTheWorkspace_is403AndNothingOfItIsArchived() throws Exception {
        Files.createSymbolicLink(ws.resolve("vendor"), outside);
        Files.createDirectories(ws.resolve("src"));
        Files.createSymbolicLink(ws.resolve("src/keys"), outside); // a member that leads out

        Answer root = post("archive/build", null, "{\"directory\": \"vendor\"}");
        assertThat(root.status()).isEqualTo(403);
        assertThat(root.body().path("error").asText()).isEqualTo("outside_workspace");
        assertThat(root.body().path("message").asText()).contains("vendor").contains("symlink");

        Answer member = post("archive/build", null, "{\"directory\": \"src\", \"members\": [\"keys\"]}");
        assertThat(member.status()).isEqualTo(403);
        assertThat(member.body().path("error").asText()).isEqualTo("outside_workspace");

        Answer lexical = post("archive/build", null, "{\"directory\": \"../outside\"}");
        assertThat(lexical.status()).isEqualTo(403);

        JsonNode stats = get("archive/stats");
        assertThat(stats.path("builds").asLong()).as("nothing was built").isZero();
        assertThat(stats.path("misses").asLong()).as("nothing was even looked up").isZero();
        assertThat(get("archive/entries").size()).isZero();
    }

    @Test
    void archiveBuild_treeAboveArchiveMaxBytes_is413BeforeAnyBuild_andTheDaemonStaysHealthy() throws Exception {
        Path big = Files.createDirectories(ws.resolve("data/blobs"));
        Random r = new Random(25);
        byte[] chunk = new byte[16 * 1024];
        for (int i = 0; i < 6; i++) { // 96 KiB of incompressible files under a 64 KiB bound
            r.nextBytes(chunk);
            Files.write(big.resolve("blob-" + i + ".bin"), chunk);
        }
        Answer a = post("archive/build", null, "{\"directory\": \"data\"}");
        assertThat(a.status()).isEqualTo(413);
        assertThat(a.body().path("error").asText()).isEqualTo("too_large");
        assertThat(a.body().path("message").asText()).contains(Long.toString(ARCHIVE_MAX)).contains("archive_max_bytes");
        JsonNode stats = get("archive/stats");
        assertThat(stats.path("builds").asLong()).as("no archive was built").isZero();
        assertThat(stats.path("bytes_held").asLong()).isZero();

        assertThat(get("health").isObject()).as("the daemon answers afterwards").isTrue();
        Files.delete(big.resolve("blob-0.bin"));
        Files.delete(big.resolve("blob-1.bin"));
        Files.delete(big.resolve("blob-2.bin"));
        Answer small = post("archive/build", null, "{\"directory\": \"data\"}");
        assertThat(small.status()).as("the same directory within the bound").isEqualTo(200);
        assertThat(small.body().path("sha256").asText()).hasSize(64);
    }
}
