package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.telemetry.KilnEvent;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Medians, recommendations and the JSON shape, from results built here; the recorder under a fake ticker. */
class ProbeReportTest {
    private static final Instant T = Instant.parse("2026-01-05T09:00:00Z");

    private static ServerResult ok(String name, int run, double initMs) {
        return new ServerResult(name, ServerConfig.Transport.STDIO, run, Outcome.OK, null, "", "2025-11-25", initMs,
                initMs + 5, 3, 30_000, new Timeline(0.0, initMs - 1, 1.0, initMs, initMs + 5, initMs + 20), List.of());
    }

    private static ServerResult timeout(String name, int run) {
        return new ServerResult(name, ServerConfig.Transport.STDIO, run, Outcome.TIMEOUT, null,
                "no answer to initialize within 30 s", null, null, null, -1, 30_000,
                new Timeline(0.0, null, 2.0, null, null, 30_010.0), List.of("loading…"));
    }

    @Test
    void servers_repeatedRuns_medianMaxAndRecommendationFromTheSlowest() {
        ProbeReport r = new ProbeReport(T, "0", 3, BytecodeMode.COLD,
                List.of(ok("a", 1, 400), ok("b", 1, 2_000), ok("a", 2, 600), ok("b", 2, 2_400), ok("a", 3, 500), timeout("b", 3)));

        ProbeReport.ServerSummary a = r.servers().get(0);
        assertThat(a.initializeMsMedian()).isEqualTo(500.0);
        assertThat(a.initializeMsMax()).isEqualTo(600.0);
        assertThat(a.representative().run()).as("the median run").isEqualTo(3);
        assertThat(a.recommendedTimeoutSec()).as("0.6 s × 1.5 + 1 s, rounded up").isEqualTo(2);
        ProbeReport.ServerSummary b = r.servers().get(1);
        assertThat(b.okRuns()).isEqualTo(2);
        assertThat(b.representative().outcome()).as("a failure is what to show").isEqualTo(Outcome.TIMEOUT);
        assertThat(b.recommendedTimeoutSec()).isNull();
        assertThat(r.overTimeout()).isEqualTo(1);
        assertThat(r.slowest().name()).isEqualTo("b");
    }

    @Test
    void toJson_hasTheDocumentedShape() {
        ProbeReport r = new ProbeReport(T, "", 1, BytecodeMode.AS_IS, List.of(ok("a", 1, 400), ok("b", 1, 1_500)));

        JsonNode j = r.toJson();

        JsonNode s = j.get("servers").get(1);
        assertThat(s.get("name").asText()).isEqualTo("b");
        assertThat(s.get("transport").asText()).isEqualTo("stdio");
        assertThat(s.get("outcome").asText()).isEqualTo("ok");
        assertThat(s.get("protocol_version").asText()).isEqualTo("2025-11-25");
        assertThat(s.get("initialize_ms").asDouble()).isEqualTo(1_500.0);
        assertThat(s.get("tools").asInt()).isEqualTo(3);
        assertThat(s.get("timeline").get("initialized").asDouble()).isEqualTo(1_500.0);
        assertThat(s.get("stderr_tail").isArray()).isTrue();
        assertThat(s.get("recommended_timeout_sec").asInt()).isEqualTo(4);
        assertThat(j.get("summary").get("slowest").get("name").asText()).isEqualTo("b");
        assertThat(j.get("summary").get("margin").asDouble()).isEqualTo(20.0);
        assertThat(j.get("summary").get("over_timeout").asInt()).isZero();
        assertThat(j.get("runs")).hasSize(2);
    }

    @Test
    void clientConfigLines_codexTablesAndClaudeTimeout() {
        ProbeReport r = new ProbeReport(T, "0", 1, BytecodeMode.AS_IS,
                List.of(ok("fast", 1, 300), ok("my server", 1, 5_000), timeout("dead", 1)));

        assertThat(r.clientConfigLines()).contains("[mcp_servers.fast]\nstartup_timeout_sec = 2\n")
                .contains("[mcp_servers.\"my server\"]\nstartup_timeout_sec = 9\n")
                .contains("# dead: no recommendation, it did not start (timeout)")
                .contains("MCP_TIMEOUT=9000");
    }

    @Test
    void clientConfigLines_unsqueezedRun_recommendsNothingAndSaysHowToGetOne() {
        ProbeReport r = new ProbeReport(T, "", 1, BytecodeMode.AS_IS, List.of(ok("fast", 1, 800)));

        assertThat(r.squeeze()).isNull();
        assertThat(r.clientConfigLines()).doesNotContain("startup_timeout_sec").contains("kiln probe --recommend")
                .contains("--cpu-share 0.5");
        ProbeReport squeezed = new ProbeReport(T, "", 1, BytecodeMode.AS_IS, List.of(ok("fast", 1, 800)),
                new ProbeReport.CpuLimit(0.5, "cgroup-v1", "g", null, null, "0.5 CPU"), HandshakeOrder.INITIALIZE_FIRST);
        assertThat(squeezed.clientConfigLines()).contains("at a 0.5-CPU share (cgroup-v1)")
                .contains("[mcp_servers.fast]\nstartup_timeout_sec = 3\n");
    }

    @Test
    void clientConfigLines_configuredTimeoutBelowTheRecommendation_flagged() {
        ServerResult tight = new ServerResult("tight", ServerConfig.Transport.STDIO, 1, Outcome.OK, null, "", "2025-11-25",
                4_000.0, 4_100.0, 1, 5_000, new Timeline(0.0, 3_990.0, null, 4_000.0, 4_100.0, 4_200.0), List.of());

        assertThat(new ProbeReport(T, "0", 1, BytecodeMode.AS_IS, List.of(tight)).clientConfigLines())
                .contains("[mcp_servers.tight]\nstartup_timeout_sec = 7  # was 5 s: too tight for what was observed\n");
    }

    @Test
    void recorder_fakeTicker_offsetsFromTheReleaseAndDurationsFromTheSpawn() {
        long[] now = {1_000_000_000L};
        List<KilnEvent> events = new ArrayList<>();
        Recorder rec = new Recorder("s", 1, 1_000_000_000L, () -> now[0], Clock.fixed(T, ZoneOffset.UTC), events::add);

        now[0] += 2_000_000; // 2 ms after the barrier
        rec.spawned(42);
        now[0] += 100_000_000;
        rec.firstOutput(false);
        rec.firstOutput(false); // only the first byte counts
        now[0] += 50_000_000;
        rec.initialized("2025-06-18", now[0]);
        now[0] += 10_000_000;
        rec.toolsListed(4, now[0]);
        now[0] += 1_000_000;
        rec.exited(0);

        assertThat(rec.timeline()).isEqualTo(new Timeline(2.0, 102.0, null, 152.0, 162.0, 163.0));
        assertThat(rec.sinceSpawn(rec.initialized)).isEqualTo(150.0);
        assertThat(events).extracting(KilnEvent::summary).containsExactly("s: spawned (pid 42) at 2.0 ms",
                "s: first stdout byte at 102.0 ms", "s: initialized in 150.0 ms (protocol 2025-06-18)",
                "s: 4 tools listed at 162.0 ms", "s: exited with code 0 at 163.0 ms");
    }

    @Test
    void timeline_stepsOutOfOrder_notOrdered() {
        assertThat(new Timeline(0.0, 5.0, null, 3.0, null, 10.0).isOrdered()).isFalse();
        assertThat(new Timeline(0.0, null, 20.0, null, null, 10.0).isOrdered()).isFalse();
        assertThat(new Timeline(0.0, null, null, null, null, 1.0).isOrdered()).isTrue();
    }
}
