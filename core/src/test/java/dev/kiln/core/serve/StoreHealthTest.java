package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.archive.ArchiveCache;
import dev.kiln.core.engine.WorkspaceActions;
import dev.kiln.core.health.HealthRules;
import dev.kiln.core.health.HealthState;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.SeedFixtures;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
import dev.kiln.testkit.DaemonTest;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Health's {@code store_unreachable} is fed: a workspace whose kiln.json names a store on a closed loopback port makes
 * the daemon's {@code /api/v1/health} failing with that reason (what {@code kiln status} prints and exits 2 on), and a
 * remote engine's evidence carries it; the same workspace without a store has no such reason.
 */
@DaemonTest
class StoreHealthTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> CREDENTIALS = Map.of("AWS_ACCESS_KEY_ID", "KILNHEALTHTEST",
            "AWS_SECRET_ACCESS_KEY", "not-a-real-secret-health-test");
    @TempDir
    Path tmp;
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private ProjectionDaemon daemon(Path ws) throws Exception {
        WorkspaceSettings settings = WorkspaceSettings.read(ws);
        EventBus bus = new EventBus();
        WorkspaceActions actions = new WorkspaceActions(WorkspaceLayout.of(ws), settings,
                ArchiveCache.builder().maximumBytes(settings.archiveCacheMaxBytes()).eventSink(bus).build(),
                SeedCaches.builder(ws).settings(settings).events(bus).build(), bus, Clock.systemUTC())
                .storeEnvironment(CREDENTIALS);
        open.add(actions);
        ProjectionDaemon d = ProjectionDaemon.builder(WorkspaceLayout.of(ws)).events(bus).actions(actions, bus).port(0).start();
        open.add(d);
        d.awaitFirstProjection(Duration.ofSeconds(60));
        return d;
    }

    @Test
    void storeOnAClosedPort_healthIsFailingWithStoreUnreachable_andTheRemoteEvidenceSaysWhy() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort(); // free now, and nothing listens once closed
        }
        Path ws = tmp.resolve("ws");
        SeedFixtures.workspace(ws);
        SeedFixtures.target(ws, "app", "small");
        Files.writeString(ws.resolve("kiln.json"), "{\"store\": {\"url\": \"s3://kiln/health\", \"endpoint\":"
                + " \"http://127.0.0.1:" + closed + "\", \"region\": \"us-east-1\"}}\n");
        ProjectionDaemon d = daemon(ws);

        JsonNode health = JSON.readTree(Http.call("GET", d.url().resolve(Wire.HEALTH)).body());
        assertThat(health.path("store_error").asText()).contains("127.0.0.1:" + closed).contains("failed 4 times")
                .doesNotContain("not-a-real-secret");
        assertThat(health.path("verdict").asText()).isEqualTo("failing");
        assertThat(health.path("reasons").findValuesAsText("code")).contains("store_unreachable");
        assertThat(OpenApi.load().validate("health.json", health.toString())).isEmpty();

        try (RemoteEngine remote = RemoteEngine.connect(d.url(), d.tokenFile(), null, Clock.systemUTC())) {
            assertThat(remote.healthEvidence().storeError()).hasValueSatisfying(s -> assertThat(s).contains("Is the store up"));
            assertThat(HealthRules.judge(remote.healthEvidence()).state()).isEqualTo(HealthState.FAILING);
        }
    }

    @Test
    void noStoreConfigured_noStoreReason() throws Exception {
        Path ws = tmp.resolve("plain");
        SeedFixtures.workspace(ws);
        SeedFixtures.target(ws, "app", "small");
        ProjectionDaemon d = daemon(ws);

        JsonNode health = JSON.readTree(Http.call("GET", d.url().resolve(Wire.HEALTH)).body());
        assertThat(health.has("store_error")).isFalse();
        assertThat(health.path("reasons").findValuesAsText("code")).doesNotContain("store_unreachable");
    }
}
