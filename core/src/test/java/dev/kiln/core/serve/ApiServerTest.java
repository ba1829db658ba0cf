package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.serve.wire.ApiToken;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.testkit.DaemonTest;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real HTTP on a free loopback port, against an in-memory backend whose revisions the test sets. */
@DaemonTest
class ApiServerTest {
    private static final ObjectMapper M = new ObjectMapper();

    @TempDir
    Path dir;
    private final AtomicReference<Published> current = new AtomicReference<>();
    private final AtomicInteger projections = new AtomicInteger();
    private final AtomicReference<Boolean> lastDryRun = new AtomicReference<>();
    private ApiToken token;
    private ApiServer server;

    @BeforeEach
    void start() throws Exception {
        token = ApiToken.writeNew(dir.resolve("observer/api-token"));
        server = ApiServer.builder(new ApiServer.Backend() {
            @Override
            public Published current() {
                return current.get();
            }

            @Override
            public JsonNode metrics() {
                return M.createObjectNode().put("projections", projections.get());
            }

            @Override
            public JsonNode project() {
                return M.createObjectNode().put("projections", projections.incrementAndGet());
            }

            @Override
            public JsonNode health() {
                return M.createObjectNode().put("api_version", Wire.API_VERSION);
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
                lastDryRun.set(dryRun);
                return M.createObjectNode().put("dry_run", dryRun);
            }
        }, token).port(0).sseQueue(8).history(4).build().start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private void publish(long revision, String... leafTitles) throws Exception {
        ObjectNode doc = M.createObjectNode().put("revision", revision);
        ArrayNode leaves = doc.putArray("leaves");
        for (int i = 0; i < leafTitles.length; i++) {
            leaves.addObject().put("leaf_id", "area/leaf-" + i).put("title", leafTitles[i]);
        }
        doc.putArray("failures");
        doc.putObject("meta");
        Published p = new Published(revision, M.writeValueAsBytes(doc));
        current.set(p);
        server.publish(p);
    }

    private Http.Response get(String path, String... headers) throws Exception {
        return Http.call("GET", server.url().resolve(path), headers);
    }

    private Http.Response post(String path, String... headers) throws Exception {
        return Http.call("POST", server.url().resolve(path), headers);
    }

    @Test
    void url_defaultBind_loopback() {
        assertThat(server.url().getHost()).isEqualTo("127.0.0.1");
        assertThat(server.port()).isPositive();
    }

    @Test
    void state_beforeFirstTick_503WithJsonReason() throws Exception {
        Http.Response r = get("/api/state");
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(M.readTree(r.body()).path("error").asText()).isEqualTo("not_ready");
        assertThat(r.header("Retry-After")).contains("1");
    }

    @Test
    void state_published_bodyWithWeakEtagAndNoCache() throws Exception {
        publish(7, "Retry refunds");
        Http.Response r = get("/api/state");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.header("ETag")).contains("W/\"7\"");
        assertThat(r.header("Cache-Control")).contains("no-cache");
        assertThat(M.readTree(r.body()).path("leaves").get(0).path("title").asText()).isEqualTo("Retry refunds");
    }

    @Test
    void state_ifNoneMatchCurrentRevision_304ThenNewRevision200() throws Exception {
        publish(7, "a");
        assertThat(get("/api/state", "If-None-Match", "W/\"7\"").statusCode()).isEqualTo(304);
        assertThat(get("/api/state", "If-None-Match", "\"7\"").statusCode()).isEqualTo(304);
        publish(8, "b");
        Http.Response r = get("/api/state", "If-None-Match", "W/\"7\"");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.header("ETag")).contains("W/\"8\"");
    }

    @Test
    void project_withoutOrWithWrongToken_401Json() throws Exception {
        Http.Response none = post("/api/project");
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(M.readTree(none.body()).path("error").asText()).isEqualTo("unauthorized");
        assertThat(M.readTree(none.body()).path("message").asText()).contains("observer/api-token");
        assertThat(post("/api/project", "Authorization", "Bearer nope").statusCode()).isEqualTo(401);
        assertThat(post("/api/heal", "Authorization", "Basic " + token.value()).statusCode()).isEqualTo(401);
        assertThat(projections.get()).isZero();
    }

    @Test
    void project_withTokenFromTheFile_runs() throws Exception {
        String fromFile = Files.readString(dir.resolve("observer/api-token")).trim();
        Http.Response r = post("/api/project", "Authorization", "Bearer " + fromFile);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(M.readTree(r.body()).path("projections").asInt()).isEqualTo(1);
    }

    @Test
    void heal_dryRunQuery_passedThrough() throws Exception {
        assertThat(post("/api/heal?dry_run=true", "Authorization", "Bearer " + token.value()).statusCode()).isEqualTo(200);
        assertThat(lastDryRun.get()).isTrue();
        assertThat(post("/api/heal", "Authorization", "Bearer " + token.value()).statusCode()).isEqualTo(200);
        assertThat(lastDryRun.get()).isFalse();
    }

    @Test
    void tokenFile_mode600() throws Exception {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("observer/api-token"))))
                .isEqualTo("rw-------");
        assertThat(ApiToken.read(dir.resolve("observer/api-token")).value()).isEqualTo(token.value()).hasSize(64);
    }

    @Test
    void unknownPath_404Json_badMethod_405WithAllow() throws Exception {
        Http.Response nf = get("/api/nope");
        assertThat(nf.statusCode()).isEqualTo(404);
        assertThat(M.readTree(nf.body()).path("error").asText()).isEqualTo("not_found");
        Http.Response bad = post("/api/state");
        assertThat(bad.statusCode()).isEqualTo(405);
        assertThat(bad.header("Allow")).contains("GET");
        assertThat(M.readTree(bad.body()).path("error").asText()).isEqualTo("method_not_allowed");
        assertThat(get("/api/project").statusCode()).isEqualTo(405);
    }

    @Test
    void metrics_json() throws Exception {
        Http.Response r = get("/api/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.header("Content-Type").orElse("")).startsWith("application/json");
        assertThat(M.readTree(r.body()).has("projections")).isTrue();
    }

    @Test
    void events_snapshotThenOneDeltaPerRevision() throws Exception {
        publish(1, "a", "b");
        try (SseClient sse = new SseClient(server.url().resolve("/api/events"), null)) {
            SseClient.Event snap = sse.next();
            assertThat(snap.event()).isEqualTo("snapshot");
            assertThat(M.readTree(snap.data()).path("revision").asLong()).isEqualTo(1);
            assertThat(M.readTree(snap.data()).path("leaves")).hasSize(2);
            publish(2, "a", "B", "c");
            SseClient.Event delta = sse.next();
            assertThat(delta.event()).isEqualTo("delta");
            assertThat(Long.parseLong(delta.id())).as("the next frame's id").isEqualTo(Long.parseLong(snap.id()) + 1);
            JsonNode d = M.readTree(delta.data());
            assertThat(d.path("revision").asLong()).isEqualTo(2);
            assertThat(d.path("changed").has("area/leaf-1")).isTrue();
            assertThat(d.path("added").has("area/leaf-2")).isTrue();
            assertThat(d.path("removed")).isEmpty();
            publish(3, "a");
            JsonNode d3 = M.readTree(sse.next().data());
            assertThat(d3.path("removed")).extracting(JsonNode::asText).containsExactlyInAnyOrder("area/leaf-1", "area/leaf-2");
        }
    }

    @Test
    void events_beforeFirstTick_snapshotArrivesWithTheFirstRevision() throws Exception {
        try (SseClient sse = new SseClient(server.url().resolve("/api/events"), null)) {
            assertThat(sse.status()).isEqualTo(200);
            publish(1, "a");
            SseClient.Event first = sse.next();
            assertThat(first.event()).isEqualTo("snapshot");
            assertThat(M.readTree(first.data()).path("revision").asLong()).isEqualTo(1);
            assertThat(first.id()).isNotBlank();
        }
    }

    @Test
    void events_lastEventIdInHistory_missedDeltasOnly() throws Exception {
        publish(1, "a");
        String second;
        try (SseClient first = new SseClient(server.url().resolve("/api/events"), null)) {
            first.next(); // the snapshot of revision 1
            publish(2, "b");
            second = first.next().id();
        }
        publish(3, "c");
        publish(4, "d");
        try (SseClient sse = new SseClient(server.url().resolve("/api/events"), second)) {
            SseClient.Event e3 = sse.next();
            SseClient.Event e4 = sse.next();
            assertThat(e3.event()).isEqualTo("delta");
            assertThat(M.readTree(e3.data()).path("revision").asLong()).isEqualTo(3);
            assertThat(Long.parseLong(e3.id())).isEqualTo(Long.parseLong(second) + 1);
            assertThat(M.readTree(e4.data()).path("revision").asLong()).isEqualTo(4);
            assertThat(Long.parseLong(e4.id())).isEqualTo(Long.parseLong(second) + 2);
            assertThat(sse.poll(300)).as("nothing else").isNull();
        }
    }

    @Test
    void events_lastEventIdTooOld_freshSnapshot() throws Exception {
        publish(1, "t1");
        String old;
        try (SseClient first = new SseClient(server.url().resolve("/api/events"), null)) {
            old = first.next().id();
        }
        for (int r = 2; r <= 10; r++) { // more than the history of 4 frames
            publish(r, "t" + r);
        }
        try (SseClient sse = new SseClient(server.url().resolve("/api/events"), old)) {
            SseClient.Event e = sse.next();
            assertThat(e.event()).isEqualTo("snapshot");
            assertThat(M.readTree(e.data()).path("revision").asLong()).isEqualTo(10);
            assertThat(Long.parseLong(e.id())).isEqualTo(Long.parseLong(old) + 9);
        }
    }

    @Test
    void events_clientThatDoesNotRead_droppedWithoutBlockingPublish() throws Exception {
        publish(1, "a");
        URI uri = server.url().resolve("/api/events");
        // a raw socket that never reads: its queue (8) fills, it is dropped, publish never waits on it
        try (java.net.Socket s = new java.net.Socket(uri.getHost(), uri.getPort())) {
            s.getOutputStream().write(("GET /api/events HTTP/1.1\r\nHost: " + uri.getAuthority() + "\r\n\r\n").getBytes());
            s.getOutputStream().flush();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (server.sseClients() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            String big = "x".repeat(200_000);
            for (int r = 2; r < 200 && server.droppedSseClients() == 0; r++) {
                publish(r, big + r);
            }
            assertThat(server.droppedSseClients()).isEqualTo(1);
            assertThat(server.sseClients()).isZero();
        }
    }
}
