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
        assertThat(ProbeRuns.compare(ProbeRuns.load(first), report(Instant.now(), 1_500)))
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
        assertThat(SweepReport.cells(json)).containsExactlyElementsOf(sweep.cells());
        assertThat(json.path("runs").get(0).path("report").path("servers").get(0).path("name").asText()).isEqualTo("a");
    }

    @Test
    void load_corruptRun_errorNamesTheFile() throws Exception {
        Path bad = Files.createDirectories(ProbeRuns.dir(WorkspaceLayout.of(dir))).resolve("probe-x.json");
        Files.writeString(bad, "{\"servers\": [");

        assertThatThrownBy(() -> ProbeRuns.load(bad)).isInstanceOf(WorkspaceException.class)
                .hasMessageStartingWith(bad + " is not a readable probe run");
    }
}
