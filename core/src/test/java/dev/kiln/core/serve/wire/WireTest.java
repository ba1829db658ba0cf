package dev.kiln.core.serve.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.projection.TickRecord;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.serve.client.FollowChanged;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The wire format both sides use: what the server writes, the client reads back. */
class WireTest {

    private static TickRecord tick(String error) {
        Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("enumerated", 120L);
        counters.put("parsed", 3L);
        counters.put("leaves", 119L);
        return new TickRecord(7, WakeReason.MANUAL, true, Instant.parse("2026-01-02T03:04:05.123Z"), 12_345_678, 2, 41,
                true, counters, error);
    }

    @Test
    void tick_writtenThenRead_isTheSameTick_durationToTheMicrosecond() throws Exception {
        TickRecord t = tick("");

        String body = Wire.JSON.writeValueAsString(Wire.tick(t));
        TickRecord back = Wire.readTick(body);

        assertThat(body).startsWith("{\"seq\":7,\"reason\":\"manual\",\"full\":true,\"at\":\"2026-01-02T03:04:05.123Z\","
                + "\"duration_ms\":12.346,").doesNotContain("\"error\"");
        assertThat(back).isEqualTo(new TickRecord(7, WakeReason.MANUAL, true, t.at(), 12_346_000, 2, 41, true,
                t.counters(), ""));
        assertThat(back.counters().keySet()).as("the tick's own order").containsExactly("enumerated", "parsed", "leaves");
    }

    @Test
    void tick_failed_carriesItsError() throws Exception {
        TickRecord back = Wire.readTick(Wire.JSON.writeValueAsString(Wire.tick(tick("java.io.IOException: disk full"))));

        assertThat(back.error()).isEqualTo("java.io.IOException: disk full");
    }

    @Test
    void readTick_anErrorBody_failsNamingWhatIsMissing() throws Exception {
        String body = Wire.JSON.writeValueAsString(Wire.error("not_ready", "the first projection has not finished yet"));

        assertThatThrownBy(() -> Wire.readTick(body)).isInstanceOf(IOException.class)
                .hasMessageContaining("not a tick").hasMessageContaining("\"seq\"");
        assertThat(Wire.errorText(body)).isEqualTo("the first projection has not finished yet (not_ready)");
        assertThat(Wire.errorText("plain text")).isEqualTo("plain text");
    }

    @Test
    void bearer_writtenThenRead_isTheToken_anyOtherSchemeIsNone() {
        assertThat(Wire.bearerToken(Wire.bearer("abc123"))).isEqualTo("abc123");
        assertThat(Wire.bearerToken("bearer  abc123 ")).isEqualTo("abc123");
        assertThat(Wire.bearerToken("Basic abc123")).isNull();
        assertThat(Wire.bearerToken(null)).isNull();
    }

    @Test
    void frame_multiLineData_oneDataLinePerLine_andEveryLineIsAnEventLine() {
        String f = Wire.frame(Wire.DELTA, 3, "{\n}");

        assertThat(f).isEqualTo("id: 3\nevent: delta\ndata: {\ndata: }\n\n");
        assertThat(Wire.isEventLine("id: 3")).isTrue();
        assertThat(Wire.isEventLine("data: {")).isTrue();
        assertThat(Wire.isEventLine(": keep-alive")).isFalse();
        assertThat(Wire.isEventLine("retry: 1000")).isFalse();
    }

    @Test
    void coreEvents_roundTripThroughTheirFrameNames() throws Exception {
        // measured timings travel as ms with three decimals: values here are whole microseconds
        java.time.Instant at = java.time.Instant.parse("2026-12-01T10:00:00.123456Z");
        dev.kiln.core.archive.ArchiveCacheStats stats = dev.kiln.core.archive.ArchiveCacheStats.empty();
        java.util.List<dev.kiln.core.telemetry.KilnEvent> events = java.util.List.of(
                new dev.kiln.core.seed.SeedEvent.WarmOutput(at, "app", "Resolved 3 packages", true),
                new dev.kiln.core.seed.SeedEvent.WarmStarted(at, "app", "abc", java.util.List.of("uv", "sync"), 42),
                new dev.kiln.core.projection.TickFinished(at, new dev.kiln.core.projection.TickResult(
                        dev.kiln.core.projection.WakeReason.CHANGE, at, 7, true, 3, 1,
                        new dev.kiln.core.snapshot.SnapshotStats(3, 1, 2, 1, 0, 12_000), 99_000, java.util.List.of(), null)),
                new dev.kiln.core.startup.ProbeEvent.Spawned(at, "demo", 1, 1.25, 4242),
                new dev.kiln.core.archive.ArchiveEvent.Hit(at, java.nio.file.Path.of("/srv/ws/servers"), "ff", 10, true, 5_000, stats),
                new dev.kiln.core.engine.EngineEvent.ActionFinished(at, "warm-1", "warm",
                        dev.kiln.core.engine.EngineEvent.Status.CANCELLED, "cancelled"));
        for (dev.kiln.core.telemetry.KilnEvent e : events) {
            String name = Wire.eventName(e);
            assertThat(name).as(e.getClass().getName()).isNotNull();
            assertThat(Wire.eventType(name)).isEqualTo(e.getClass());
            assertThat(Wire.read(Wire.JSON.readTree(Wire.JSON.writeValueAsString(Wire.event(e))), Wire.eventType(name)))
                    .isEqualTo(e);
        }
        assertThat(Wire.eventName(new FollowChanged(at, true, false, "x"))).as("a console's own notice").isNull();
    }

    @Test
    void health_afterAFailedTick_countsTheProjectionStillServed_andSaysWhyItFailed() {
        Instant at = Instant.parse("2026-12-02T10:00:00Z");
        TickRecord good = new TickRecord(1, WakeReason.STARTUP, true, at, 1_000, 0, 1, true,
                Map.of("leaves", 19L, "failed", 1L), "");
        TickRecord failed = new TickRecord(2, WakeReason.HEARTBEAT, true, at.plusSeconds(15), 1_000, 0, -1, false, Map.of(),
                "the workspace root /w is gone");
        var m = new dev.kiln.core.projection.DaemonMetrics(2, Map.of(), java.util.Optional.of(failed),
                java.util.List.of(good, failed), true);
        var watch = new dev.kiln.core.watch.WatchStatus(true, "", at, java.util.List.of(), 1, 1);

        var o = Wire.health(m, 1, watch, at.plusSeconds(20), java.time.Duration.ofSeconds(15), null);

        assertThat(o.path("last_error").asText()).isEqualTo("the workspace root /w is gone");
        assertThat(o.path("contracts").asLong()).isEqualTo(19);
        assertThat(o.path("failures").asLong()).isEqualTo(1);
    }
}
