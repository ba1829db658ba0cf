package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.testkit.AloneTest;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep on real servers and real CPU-quota groups: the matrix has a cell per server × share × before/after, the
 * renderers agree with it, an environment that cannot be precompiled is said so and its cells marked, and a cancelled
 * sweep keeps what it measured, marked partial.
 */
@ProcessTest @KernelTest @AloneTest
class SweepTest {
    @TempDir
    Path dir;
    private String marker;

    @BeforeEach
    void marker() {
        marker = "kiln-test-" + UUID.randomUUID();
    }

    /** The bundled demo server (its import graph written fresh, no bytecode) run by the python of an empty uv venv. */
    private ServerConfig demoInVenv(String name, Path venv) throws Exception {
        Path script = DemoServer.extractTo(dir.resolve("servers"));
        return ServerConfig.stdio(name, dir, venv.resolve("bin/python").toString(),
                List.of(script.toString(), "--weight", "2", marker), Map.of());
    }

    private Path emptyVenv(String name) throws Exception {
        Path venv = dir.resolve(name);
        RealServers.run(List.of("uv", "venv", "-q", "--python", RealServers.interpreter("3.12"), venv.toString()), dir, 120);
        return venv;
    }

    @Test
    void run_twoSharesBeforeAndAfter_aCellPerServerShareAndBytecodeWithVerdictsAndRenderers() throws Exception {
        Path sdkVenv = RealServers.mcpVenv();
        ServerConfig sdk = ServerConfig.stdio("sdk", dir, sdkVenv.resolve("bin/python").toString(),
                List.of(RealServers.mcpServerScript(dir).toString(), marker), Map.of());
        ServerConfig demo = demoInVenv("demo", emptyVenv("venv-demo"));

        SweepReport r = Sweep.builder().shares(List.of(2.0, 0.5)).compareBytecode(true).timeout(Duration.ofSeconds(120))
                .build().run(List.of(sdk, demo));

        assertThat(r.partial()).isFalse();
        assertThat(r.mechanism()).isIn("cgroup-v1", "cgroup-v2", "systemd-run");
        assertThat(r.cells()).hasSize(2 * 2 * 2).allSatisfy(c -> {
            assertThat(c.outcome()).as(c.toString()).isEqualTo("ok");
            assertThat(c.initializeMs()).isPositive();
            assertThat(c.note()).isEmpty();
        });
        assertThat(r.columns()).extracting(SweepReport.Column::label)
                .containsExactly("2 CPU before", "2 CPU after", "0.5 CPU before", "0.5 CPU after");
        assertThat(r.columns()).allSatisfy(c -> {
            assertThat(c.report().cpuLimit().share()).isEqualTo(c.share());
            assertThat(c.report().bytecode()).isEqualTo(c.bytecode() == SweepReport.Bytecode.BEFORE ? BytecodeMode.COLD
                    : BytecodeMode.NO_WRITE);
        });
        assertThat(r.verdicts()).hasSize(4).allSatisfy(v -> {
            assertThat(v.slowest()).isIn("sdk", "demo");
            assertThat(v.recommendedTimeoutSec()).isEqualTo(ProbeReport.recommend(
                    r.columns().stream().filter(c -> c.share() == v.share() && c.bytecode() == v.bytecode()).findFirst()
                            .orElseThrow().report().slowest().initializeMsMax()));
        });
        assertThat(r.ratio(2.0)).isPositive();
        assertThat(r.ratio(0.5)).isPositive();

        JsonNode json = r.toJson();
        assertThat(json.path("mechanism").asText()).isEqualTo(r.mechanism());
        assertThat(json.path("matrix")).hasSize(8);
        JsonNode first = json.path("matrix").get(0);
        assertThat(first.path("server").asText()).isEqualTo("sdk");
        assertThat(first.path("share").asDouble()).isEqualTo(2.0);
        assertThat(first.path("bytecode").asText()).isEqualTo("before");
        assertThat(first.path("initialize_ms").isNumber()).isTrue();
        assertThat(first.path("outcome").asText()).isEqualTo("ok");
        assertThat(SavedSweep.fromJson(json, "the sweep").cells()).hasSize(8);
        assertThat(List.of(r.csv().split("\r\n"))).hasSize(1 + 8).first().isEqualTo(
                "server,share,bytecode,initialize_ms,outcome,ok_runs,runs,timeout_ms,note");
        assertThat(r.markdown()).contains("| server | 2 CPU before | 2 CPU after | 0.5 CPU before | 0.5 CPU after |")
                .contains("| --- | ---: | ---: | ---: | ---: |");
        assertThat(r.text().lines().findFirst().orElseThrow()).startsWith("server").contains("0.5 CPU after");
        assertThat(ProbeProcesses.livingWith(marker)).isEmpty();
    }

    /**
     * Also the sweep's before/after for a Node server (issue 27): a real npm server on Node 24 gets its compile cache
     * warmed once, and both of its cells run, the "after" one without a not-precompiled mark.
     */
    @Test
    void run_environmentMadeReadOnly_saysItCannotBePrecompiledAndMarksItsAfterCells() throws Exception {
        Path venv = emptyVenv("venv-ro");
        Path site = RealServers.sitePackages(venv);
        ServerConfig node = ServerConfig.stdio("node24", dir, RealServers.currentNode().toString(),
                List.of(RealServers.npmServer("server-memory").toString(), marker),
                Map.of("MEMORY_FILE_PATH", dir.resolve("memory.jsonl").toString()));
        Files.setPosixFilePermissions(site, PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            SweepReport r = Sweep.builder().shares(List.of(1.0)).compareBytecode(true).timeout(Duration.ofSeconds(60))
                    .build().run(List.of(demoInVenv("ro", venv), node));

            assertThat(r.notes()).anySatisfy(n -> assertThat(n).startsWith("node24: Node compile cache warmed (")
                    .contains("node v24."));
            for (SweepReport.Bytecode kind : List.of(SweepReport.Bytecode.BEFORE, SweepReport.Bytecode.AFTER)) {
                SweepReport.Cell c = r.cell("node24", 1.0, kind);
                assertThat(c.outcome()).as(kind + " " + c).isEqualTo("ok");
                assertThat(c.note()).isEmpty();
                assertThat(c.text()).doesNotEndWith(SweepReport.NOT_PRECOMPILED);
            }
            assertThat(ProbeProcesses.livingWith(marker)).isEmpty();

            assertThat(r.notes()).anySatisfy(n -> assertThat(n).startsWith("ro: its environment " + site + " is read-only:"
                    + " it cannot be precompiled here"));
            SweepReport.Cell after = r.cell("ro", 1.0, SweepReport.Bytecode.AFTER);
            assertThat(after.note()).contains("read-only");
            assertThat(after.text()).endsWith(SweepReport.NOT_PRECOMPILED);
            assertThat(r.cell("ro", 1.0, SweepReport.Bytecode.BEFORE).note()).isEmpty();
            assertThat(r.text()).contains("environment not precompiled (see notes)");
        } finally {
            Files.setPosixFilePermissions(site, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @Test
    void run_cancelledHalfWay_keepsTheColumnsMeasuredAndIsMarkedPartial() throws Exception {
        Path slow = dir.resolve("slow.py");
        // Answers quickly at the first share's columns, then never: the cancel lands in the second share.
        Files.writeString(slow, String.join("\n",
                "import json, os, sys, time",
                "flag = sys.argv[1]",
                "if os.path.exists(flag): time.sleep(300)",
                "open(flag, 'w').close()",
                "for line in sys.stdin:",
                "    req = json.loads(line)",
                "    if 'id' not in req: continue",
                "    m = req['method']",
                "    if m == 'server/discover': res = {'supportedVersions': ['2026-07-28']}",
                "    elif m == 'tools/list': res = {'tools': [{'name': 'x'}]}",
                "    else: continue",
                "    print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': res}), flush=True)",
                ""));
        ServerConfig server = ServerConfig.stdio("once", dir, "python3", List.of(slow.toString(),
                dir.resolve("flag").toString(), marker), Map.of());
        AtomicReference<SweepReport> result = new AtomicReference<>();
        AtomicReference<Boolean> interruptKept = new AtomicReference<>();
        java.util.concurrent.CountDownLatch secondColumn = new java.util.concurrent.CountDownLatch(1);
        Sweep sweep = Sweep.builder().shares(List.of(2.0, 1.0)).timeout(Duration.ofSeconds(120)).progress(line -> {
            if (line.startsWith("sweep: 1 CPU")) {
                secondColumn.countDown();
            }
        }).build();
        Thread caller = new Thread(() -> {
            result.set(sweep.run(List.of(server)));
            interruptKept.set(Thread.currentThread().isInterrupted());
        });
        caller.start();
        assertThat(secondColumn.await(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        Thread.sleep(500); // let the second column's server spawn
        caller.interrupt();
        caller.join(60_000);

        SweepReport r = result.get();
        assertThat(r.partial()).isTrue();
        assertThat(r.cancelledAt()).isEqualTo("1 CPU");
        assertThat(r.cells()).singleElement().satisfies(c -> {
            assertThat(c.share()).isEqualTo(2.0);
            assertThat(c.outcome()).isEqualTo("ok");
        });
        assertThat(interruptKept.get()).isTrue();
        assertThat(r.toJson().path("partial").asBoolean()).isTrue();
        assertThat(r.text()).startsWith("PARTIAL: the sweep was cancelled in 1 CPU");
        assertThat(r.markdown()).startsWith("**Partial:**");
        assertThat(ProbeProcesses.livingWith(marker)).isEmpty();
    }

    @Test
    void builder_badShares_rejectedWhenSet() {
        assertThatThrownBy(() -> Sweep.Builder.parseShares("4,two")).hasMessageContaining("'two' is not a number");
        assertThatThrownBy(() -> Sweep.builder().shares(List.of(1.0, 0.001))).hasMessageContaining("below what the kernel accepts");
        assertThatThrownBy(() -> Sweep.builder().shares(List.of(1.0, 1.0))).hasMessageContaining("names a share twice");
        assertThatThrownBy(() -> Sweep.builder().shares(List.of())).hasMessageContaining("at least one share");
    }

    @Test
    void report_overTimeoutCell_markedInTextAndMarkdownAndNoRecommendationForThatShare() {
        ProbeReport empty = new ProbeReport(Instant.EPOCH, "", 1, BytecodeMode.COLD, List.of());
        SweepReport r = new SweepReport(Instant.EPOCH, List.of(1.0), true, 1, "cgroup-v1", List.of("a", "b"),
                List.of(new SweepReport.Cell("a", 1.0, SweepReport.Bytecode.BEFORE, 1500.0, "ok", 30_000, 1, 1, ""),
                        new SweepReport.Cell("b", 1.0, SweepReport.Bytecode.BEFORE, null, "timeout", 30_000, 0, 1, "")),
                List.of(new SweepReport.Column(1.0, SweepReport.Bytecode.BEFORE, empty)), List.of(), null);

        assertThat(r.cell("b", 1.0, SweepReport.Bytecode.BEFORE).text()).isEqualTo(">30" + SweepReport.OVER);
        assertThat(r.markdown()).contains("| b | >30" + SweepReport.OVER + " |").contains("| a | 1.5 |");
        assertThat(r.verdicts()).singleElement().satisfies(v -> {
            assertThat(v.overTimeout()).isEqualTo(1);
            assertThat(v.recommendedTimeoutSec()).isNull();
            assertThat(v.text()).contains("1 over the timeout: no recommendation");
        });
    }
}
