package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProbeRunsTest {
    @TempDir
    Path dir;

    private static ProbeReport report(Instant at, double aMs) {
        ServerResult a = new ServerResult("a", ServerConfig.Transport.STDIO, 1, Outcome.OK, null, "", "2025-11-25", aMs,
                aMs + 1, 2, 30_000, new Timeline(0.0, aMs, null, aMs, aMs + 1, aMs + 2), List.of());
        return new ProbeReport(at, "", 1, BytecodeMode.NO_WRITE, List.of(a));
    }

    @Test
    void saveListLoadCompare_beforeAndAfterAPrecompile() {
        WorkspaceLayout ws = WorkspaceLayout.of(dir);
        assertThat(ProbeRuns.list(ws)).isEmpty();

        Path first = ProbeRuns.save(ws, report(Instant.parse("2026-01-05T09:00:00Z"), 4_000));
        Path second = ProbeRuns.save(ws, report(Instant.parse("2026-01-05T09:05:00Z"), 1_500));

        assertThat(ProbeRuns.list(ws)).containsExactly(second, first);
        assertThat(ProbeRuns.compare(ProbeRuns.read(first), report(Instant.now(), 1_500)))
                .containsExactly(new ProbeRuns.Change("a", 4_000.0, 1_500.0));
        assertThat(new ProbeRuns.Change("a", 4_000.0, 1_000.0).ratio()).isEqualTo(0.25);
        assertThat(new ProbeRuns.Change("a", null, 1_000.0).ratio()).isNull();
    }

    @Test
    void saveSweep_partialSweepIsSavedBesideTheRunsAndReadBack() {
        WorkspaceLayout ws = WorkspaceLayout.of(dir);
        ProbeReport col = report(Instant.parse("2026-01-05T09:00:00Z"), 2_000);
        SweepReport sweep = new SweepReport(Instant.parse("2026-01-05T09:00:00Z"), List.of(1.0, 0.5), true, 1, "cgroup-v1",
                List.of("a"), List.of(new SweepReport.Cell("a", 1.0, SweepReport.Bytecode.BEFORE, 2_000.0, "ok", 30_000, 1, 1, "")),
                List.of(new SweepReport.Column(1.0, SweepReport.Bytecode.BEFORE, col)), List.of(), "1 CPU after");
        ProbeRuns.save(ws, col);

        Path saved = ProbeRuns.saveSweep(ws, sweep);

        assertThat(ProbeRuns.listSweeps(ws)).containsExactly(saved);
        assertThat(ProbeRuns.list(ws)).as("sweeps are not runs").hasSize(1).doesNotContain(saved);
        var json = ProbeRuns.load(saved);
        assertThat(json.path("partial").asBoolean()).isTrue();
        assertThat(json.path("cancelled_at").asText()).isEqualTo("1 CPU after");
        assertThat(ProbeRuns.readSweep(saved).cells()).containsExactlyElementsOf(sweep.cells());
        assertThat(json.path("runs").get(0).path("report").path("servers").get(0).path("name").asText()).isEqualTo("a");
    }

    @Test
    void load_corruptRun_errorNamesTheFile() throws Exception {
        Path bad = Files.createDirectories(ProbeRuns.dir(WorkspaceLayout.of(dir))).resolve("probe-x.json");
        Files.writeString(bad, "{\"servers\": [");

        assertThatThrownBy(() -> ProbeRuns.load(bad)).isInstanceOf(WorkspaceException.class)
                .hasMessageStartingWith(bad + " is not a readable probe run");
    }

    @Test
    void read_runOfTheFirstFormat_readsWhatItHasAndNullsWhatItLacks() throws Exception {
        // A run saved by the first Kiln that saved runs (2026-11-30): no conversation, phases, fetch, handshake or share.
        WorkspaceLayout ws = WorkspaceLayout.of(dir);
        Path old = Files.createDirectories(ProbeRuns.dir(ws)).resolve("probe-20261130T101500.000Z.json");
        try (var in = ProbeRunsTest.class.getResourceAsStream("probe-20261130T101500.000Z.json")) {
            Files.copy(in, old);
        }

        SavedProbeRun run = ProbeRuns.read(ProbeRuns.list(ws).get(0));

        assertThat(run.summary().startedAt()).isEqualTo(Instant.parse("2026-11-30T10:15:00Z"));
        assertThat(run.summary().slowest()).isEqualTo(new SavedProbeRun.Slowest("fs", 812.4));
        assertThat(run.summary().overTimeout()).isEqualTo(1);
        assertThat(run.summary().squeezed()).as("no share, no pinned CPUs").isFalse();
        assertThat(run.summary().cpuShare()).isNull();
        assertThat(run.summary().handshake()).isEqualTo(HandshakeOrder.INITIALIZE_FIRST.label());
        assertThat(run.servers()).extracting(SavedProbeRun.Server::name).containsExactly("fs", "slow");
        SavedProbeRun.Server fs = run.servers().get(0);
        assertThat(fs.conversation()).isEqualTo(Conversation.NONE);
        assertThat(fs.representative().fetch()).isNull();
        assertThat(fs.representative().phases().explanation()).isEmpty();
        assertThat(fs.representative().timeline().fetchEndMs()).isNull();
        assertThat(fs.representative().timeline().initializedMs()).isEqualTo(812.4);
        assertThat(fs.recommendedTimeoutSec()).isEqualTo(3);
        SavedProbeRun.Server slow = run.server("slow").orElseThrow();
        assertThat(slow.representative().tools()).as("null tools: unknown").isEqualTo(-1);
        assertThat(slow.representative().protocolVersion()).isNull();
        assertThat(slow.initializeMs()).isNull();
        assertThat(run.runs()).extracting(SavedProbeRun.Result::run).containsExactly(1, 1);
    }

    @Test
    void read_runWrittenNow_readsBackItsReport() {
        WorkspaceLayout ws = WorkspaceLayout.of(dir);
        ProbeReport report = report(Instant.parse("2026-01-05T09:00:00Z"), 4_000);

        SavedProbeRun run = ProbeRuns.read(ProbeRuns.save(ws, report));

        assertThat(run).isEqualTo(SavedProbeRun.of(report));
        assertThat(run.summary().startedAt()).isEqualTo(report.startedAt());
        assertThat(run.servers()).extracting(SavedProbeRun.Server::name, SavedProbeRun.Server::initializeMsMedian)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("a", 4_000.0));
    }

    @Test
    void read_jsonThatIsNoRun_errorNamesTheFile() throws Exception {
        Path bad = Files.createDirectories(ProbeRuns.dir(WorkspaceLayout.of(dir))).resolve("probe-y.json");
        Files.writeString(bad, "{\"kind\": \"sweep\"}");

        assertThatThrownBy(() -> ProbeRuns.read(bad)).isInstanceOf(WorkspaceException.class)
                .hasMessageStartingWith(bad + " is not a saved probe run");
        assertThatThrownBy(() -> ProbeRuns.readSweep(bad)).isInstanceOf(WorkspaceException.class)
                .hasMessageStartingWith(bad + " is not a saved sweep");
    }
}
