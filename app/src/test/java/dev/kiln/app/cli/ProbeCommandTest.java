package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.startup.ProbeRuns;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kiln probe} and {@code kiln bytecode} end to end, on the demo workspace's bundled Python server. */
@ProcessTest @KernelTest
class ProbeCommandTest {
    @TempDir
    Path dir;

    @Test
    void probe_demoWorkspace_jsonReportAndSavedRun() throws Exception {
        Path ws = dir.resolve("ws");
        new DemoWorkspace().write(ws, 5, 7, false);

        CliRun r = CliRun.kiln("probe", ws.toString(), "--server", "demo-light", "--server", "demo-stdlib", "--json");

        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.get("servers")).hasSize(2);
        assertThat(j.get("servers").get(0).get("name").asText()).isEqualTo("demo-light");
        assertThat(j.get("servers").get(0).get("outcome").asText()).isEqualTo("ok");
        assertThat(j.get("servers").get(1).get("tools").asInt()).isEqualTo(7);
        assertThat(j.get("summary").get("failed").asInt()).isZero();
        List<Path> runs = ProbeRuns.list(WorkspaceLayout.of(ws));
        assertThat(runs).hasSize(1);
        assertThat(ProbeRuns.load(runs.get(0)).get("servers")).hasSize(2);
    }

    @Test
    void probe_serverThatCannotStart_exitOneAndTheTableSaysWhy() throws Exception {
        Path cfg = dir.resolve("servers.json");
        Files.writeString(cfg, "{\"mcpServers\": {\"crash\": {\"command\": \"python3\", \"args\": [\"-c\","
                + " \"import sys; sys.stderr.write('no API key\\\\n'); sys.exit(4)\"]}}}");

        CliRun r = CliRun.kiln("probe", cfg.toString(), "--timeout", "20s");

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).contains("exited(4)").contains("stderr| no API key")
                // an unsqueezed run recommends no timeout at all (#27): it says why and how to get one
                .contains("# no recommended timeout from this run: it was not squeezed")
                .contains("kiln probe --recommend");
    }

    @Test
    void probe_badInput_exitTwoWithAClearMessage() throws Exception {
        Path cfg = dir.resolve("servers.json");
        Files.writeString(cfg, "{\"mcpServers\": {\"a\": {\"command\": 7}}}");
        CliRun bad = CliRun.kiln("probe", cfg.toString());
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("kiln: " + cfg + ": server 'a': field 'command' must be a string, got number");

        Files.writeString(cfg, "{\"mcpServers\": {\"a\": {\"command\": \"python3\"}}}");
        CliRun unknown = CliRun.kiln("probe", cfg.toString(), "--server", "b");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).contains("has no server 'b'; it has: a");

        CliRun cpus = CliRun.kiln("probe", cfg.toString(), "--cpus", "x");
        assertThat(cpus.exit()).isEqualTo(2);
        assertThat(cpus.err()).contains("--cpus takes a CPU list");
    }

    @Test
    void probe_cpuShare_reportSaysWhichMechanismAndWhereTheTimeGoes() throws Exception {
        Path ws = dir.resolve("ws");
        new DemoWorkspace().write(ws, 5, 7, false);

        CliRun text = CliRun.kiln("probe", ws.toString(), "--server", "demo-light", "--cpu-share", "0.5", "--no-save");
        CliRun json = CliRun.kiln("probe", ws.toString(), "--server", "demo-light", "--cpu-share", "0.5", "--json");

        assertThat(text.exit()).as(text.err()).isZero();
        assertThat(text.out()).containsPattern("CPU share: 0\\.5 CPU via cgroup-v[12] \\(kiln-probe-\\d+-\\d+\\)")
                .contains("where the time goes (fetch: spawn → the launcher's hand-off | start: → first output | work: first output → answer):")
                .contains("# Codex ~/.codex/config.toml (from the slowest of 1 run(s) at a 0.5-CPU share");
        assertThat(json.exit()).as(json.err()).isZero();
        JsonNode share = new ObjectMapper().readTree(json.out()).path("summary").path("cpu_share");
        assertThat(share.path("share").asDouble()).isEqualTo(0.5);
        assertThat(share.path("mechanism").asText()).matches("cgroup-v[12]");
        assertThat(new ObjectMapper().readTree(json.out()).path("servers").get(0).path("phases").path("bound").asText())
                .isIn("imports", "work");
    }

    @Test
    void probe_sweepOnTheDemoWorkspace_matrixInEveryFormatAndSavedWithTheRuns() throws Exception {
        Path ws = dir.resolve("ws");
        new DemoWorkspace().write(ws, 5, 7, false);

        CliRun json = CliRun.kiln("probe", ws.toString(), "--server", "demo-light", "--sweep", "2,1", "--json");
        CliRun md = CliRun.kiln("probe", ws.toString(), "--server", "demo-light", "--sweep", "1", "--markdown", "--no-save");
        CliRun csv = CliRun.kiln("probe", ws.toString(), "--server", "demo-light", "--sweep", "1", "--csv", "--no-save");

        assertThat(json.exit()).as(json.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(json.out());
        assertThat(j.path("mechanism").asText()).matches("cgroup-v[12]");
        assertThat(j.path("matrix")).hasSize(2);
        assertThat(j.path("matrix").get(1).path("share").asDouble()).isEqualTo(1.0);
        assertThat(j.path("matrix").get(1).path("bytecode").asText()).isEqualTo("as-is");
        assertThat(j.path("verdicts").get(0).path("recommended_startup_timeout_sec").asInt()).isPositive();
        assertThat(ProbeRuns.listSweeps(WorkspaceLayout.of(ws))).hasSize(1);
        assertThat(md.exit()).as(md.err()).isZero();
        assertThat(md.out()).startsWith("| server | 1 CPU |\n| --- | ---: |\n| demo-light | ");
        assertThat(csv.out()).startsWith("server,share,bytecode,initialize_ms,outcome,ok_runs,runs,timeout_ms,note\r\n"
                + "demo-light,1,as-is,");
    }

    @Test
    void probe_badShareOrSweepOptions_exitTwoWithAClearMessage() throws Exception {
        Path cfg = dir.resolve("servers.json");
        Files.writeString(cfg, "{\"mcpServers\": {\"a\": {\"command\": \"python3\"}}}");

        CliRun tiny = CliRun.kiln("probe", cfg.toString(), "--cpu-share", "0.001");
        CliRun compare = CliRun.kiln("probe", cfg.toString(), "--compare-bytecode");
        CliRun both = CliRun.kiln("probe", cfg.toString(), "--sweep", "1", "--cpu-share", "1");
        CliRun words = CliRun.kiln("probe", cfg.toString(), "--sweep", "1,half");

        assertThat(tiny.exit()).isEqualTo(2);
        assertThat(tiny.err()).contains("--cpu-share 0.001 is below what the kernel accepts");
        assertThat(compare.exit()).isEqualTo(2);
        assertThat(compare.err()).contains("--compare-bytecode belongs to a sweep: add --sweep 4,2,1,0.5");
        assertThat(both.exit()).isEqualTo(2);
        assertThat(both.err()).contains("--sweep sets the CPU share and bytecode of each column itself");
        assertThat(words.exit()).isEqualTo(2);
        assertThat(words.err()).contains("'half' is not a number");
    }

    @Test
    void bytecode_auditAndCompile_venvPath() throws Exception {
        Path venv = dir.resolve("venv");
        Process p = new ProcessBuilder("python3", "-m", "venv", "--without-pip", venv.toString()).inheritIO().start();
        assertThat(p.waitFor()).isZero();
        Path site;
        try (var s = Files.list(venv.resolve("lib"))) {
            site = s.findFirst().orElseThrow().resolve("site-packages");
        }
        Files.writeString(site.resolve("one.py"), "A = 1\n");
        Files.writeString(site.resolve("two.py"), "B = 2\n");

        CliRun audit = CliRun.kiln("bytecode", "audit", venv.toString(), "--json");
        assertThat(audit.exit()).as(audit.err()).isZero();
        JsonNode a = new ObjectMapper().readTree(audit.out());
        assertThat(a.get("sources").asInt()).isEqualTo(2);
        assertThat(a.get("missing").asInt()).isEqualTo(2);

        CliRun compile = CliRun.kiln("bytecode", "compile", venv.toString(), "--invalidation-mode", "checked-hash", "--json");
        assertThat(compile.exit()).as(compile.err()).isZero();
        JsonNode c = new ObjectMapper().readTree(compile.out());
        assertThat(c.get("after").get("missing").asInt()).isZero();
        assertThat(c.get("after").get("fresh").asInt()).isEqualTo(2);

        CliRun notPython = CliRun.kiln("bytecode", "audit", dir.resolve("nothing-here").toString());
        assertThat(notPython.exit()).isEqualTo(2);
        assertThat(notPython.err()).contains("does not exist");
    }
}
