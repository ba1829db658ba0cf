package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stale seeds and the latest probe in a daemon's health: computed from the workspace, cached, read back by the client. */
@DaemonTest
class HostFactsTest {
    /** A saved run as ProbeReport.toJson writes it (summary and servers; the runs do not matter here). */
    static final String RUN = """
            {"servers": [
              {"name": "demo-light", "timeout_ms": 30000, "initialize_ms_max": 364.0},
              {"name": "demo-import-graph", "timeout_ms": 10000, "initialize_ms_max": 2184.9}],
             "summary": {"started_at": "2026-12-01T10:46:48.281763190Z", "servers": 2,
              "slowest": {"name": "demo-import-graph", "initialize_ms": 2184.9}, "margin": 4.6,
              "over_timeout": 0, "failed": 0},
             "runs": []}
            """;

    @TempDir
    Path dir;

    @Test
    void health_carriesStaleSeedsAndTheLatestProbesVerdict_overTheWire() throws Exception {
        new DemoWorkspace().write(dir, 10, 3, false);
        WorkspaceLayout layout = WorkspaceLayout.of(dir);
        Files.createDirectories(layout.observerDir().resolve("probes"));
        Files.writeString(layout.observerDir().resolve("probes/probe-20261201T104648.281Z.json"), RUN);
        try (ProjectionDaemon d = ProjectionDaemon.builder(layout).port(0).start()) {
            d.awaitFirstProjection(Duration.ofSeconds(60));
            DaemonHealth h = ServeClient.remote(d.url(), null, null).health();
            assertThat(h.seeds().map(s -> java.util.List.of(s.targets(), s.stale()))).as("the demo's one target, never warmed")
                    .contains(java.util.List.of(1, 1));
            DaemonHealth.Probe p = h.lastProbe().orElseThrow();
            assertThat(p.slowest()).contains("demo-import-graph");
            assertThat(p.slowestStart()).contains(Duration.ofNanos(2_184_900_000L));
            assertThat(p.slowestTimeout()).contains(Duration.ofSeconds(10));
            assertThat(p.at()).isEqualTo(Instant.parse("2026-12-01T10:46:48.281763190Z"));
            assertThat(p.verdict()).isEqualTo("slowest demo-import-graph 2.2 s of 10 s");
            assertThat(p.ok()).isTrue();
            assertThat(h.problems()).as("data, not the daemon's health").isEmpty();
        }
    }

    @Test
    void get_isCachedForItsTtl_thenRecomputed() throws Exception {
        new DemoWorkspace().write(dir, 5, 3, false);
        WorkspaceLayout layout = WorkspaceLayout.of(dir);
        MutableClock clock = new MutableClock(Instant.parse("2026-12-01T12:00:00Z"));
        HostFacts facts = new HostFacts(layout, clock, Duration.ofSeconds(5));
        assertThat(facts.get().lastProbe()).isEmpty();
        Files.createDirectories(layout.observerDir().resolve("probes"));
        Files.writeString(layout.observerDir().resolve("probes/probe-20261201T104648.281Z.json"), RUN);
        clock.advance(Duration.ofSeconds(4));
        assertThat(facts.get().lastProbe()).as("within the TTL: the cached facts").isEmpty();
        clock.advance(Duration.ofSeconds(1));
        assertThat(facts.get().lastProbe()).as("after it: read again").isPresent();
    }

    @Test
    void verdict_failuresAndMissedTimeouts_comeFirst() {
        DaemonHealth.Probe p = new DaemonHealth.Probe(Instant.EPOCH, 3, java.util.Optional.of("slow"),
                java.util.Optional.of(Duration.ofMillis(12_300)), java.util.Optional.of(Duration.ofSeconds(10)), 1, 1);
        assertThat(p.verdict()).isEqualTo("1 failed, 1 over timeout, slowest slow 12.3 s of 10 s");
        assertThat(p.ok()).isFalse();
    }
}
