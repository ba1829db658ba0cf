package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.testkit.ProcessTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probe against servers that misbehave in every way a startup can (small scripts written here) and against the
 * bundled demo server. Outcomes, ordering and counts are asserted; wall-clock times never are.
 */
@ProcessTest
class StartupProbeTest {
    @TempDir
    Path dir;

    /** Every server of a test carries this in its command line, so the process table can be searched for leftovers. */
    private String marker;
    private final List<KilnEvent> events = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void marker() {
        marker = "kiln-test-" + UUID.randomUUID();
    }

    private ServerConfig script(String name, String... lines) throws IOException {
        Path py = dir.resolve(name + ".py");
        Files.writeString(py, String.join("\n", lines) + "\n");
        return ServerConfig.stdio(name, dir, "python3", List.of(py.toString(), marker), Map.of());
    }

    private ServerConfig demo(String name, String... args) throws IOException {
        Path script = DemoServer.extractTo(dir.resolve("servers"));
        List<String> a = new ArrayList<>(List.of(script.toString()));
        a.addAll(List.of(args));
        a.add(marker);
        return ServerConfig.stdio(name, dir, "python3", a, Map.of());
    }

    private StartupProbe.Builder probe() {
        return StartupProbe.builder().events(events::add)
                .clock(Clock.fixed(Instant.parse("2026-01-05T09:00:00Z"), ZoneOffset.UTC));
    }

    /**
     * A client of the old revision only: for scripts that read exactly one request and take it for {@code initialize}
     * (they would read {@code server/discover} first otherwise; {@link HandshakeRevisionTest} covers the modern order).
     */
    private StartupProbe.Builder legacyClient() {
        return probe().handshake(HandshakeOrder.INITIALIZE_FIRST);
    }

    private ServerResult only(ProbeReport report) {
        assertThat(report.results()).hasSize(1);
        return report.results().get(0);
    }

    @Test
    void run_demoServer_okWithNegotiatedVersionAllToolPagesAndOrderedTimeline() throws Exception {
        ServerResult r = only(probe().build().run(List.of(demo("demo", "--tools", "5"))));

        assertThat(r.outcome()).isEqualTo(Outcome.OK);
        assertThat(r.protocolVersion()).isEqualTo("2025-11-25");
        assertThat(r.tools()).as("5 tools over 3 pages of nextCursor").isEqualTo(5);
        assertThat(r.initializeMs()).isPositive();
        assertThat(r.toolsMs()).isGreaterThanOrEqualTo(r.initializeMs());
        Timeline t = r.timeline();
        assertThat(List.of(t.spawnMs(), t.firstStdoutMs(), t.firstStderrMs(), t.initializedMs(), t.toolsListedMs(), t.exitMs()))
                .doesNotContainNull();
        assertThat(t.isOrdered()).isTrue();
        assertThat(r.stderrTail()).anyMatch(l -> l.startsWith("kiln-demo-server: ready"));
        assertThat(ProbeProcesses.livingWith(marker)).isEmpty();
    }

    @Test
    void run_demoServer_publishesEachStepOnceInOrder() throws Exception {
        probe().build().run(List.of(demo("demo")));

        List<Class<?>> kinds = new ArrayList<>();
        events.stream().filter(e -> !(e instanceof ProbeEvent.FirstOutput)).forEach(e -> kinds.add(e.getClass()));
        assertThat(kinds).containsExactly(ProbeEvent.RunStarted.class, ProbeEvent.Spawned.class,
                ProbeEvent.Initialized.class, ProbeEvent.ToolsListed.class, ProbeEvent.Exited.class, ProbeEvent.Finished.class);
        assertThat(events).filteredOn(e -> e instanceof ProbeEvent.FirstOutput).hasSize(2);
        assertThat(events).allSatisfy(e -> assertThat(e.at()).isEqualTo(Instant.parse("2026-01-05T09:00:00Z")));
        assertThat(events.get(events.size() - 1).summary()).startsWith("demo: ok");
    }

    @Test
    void run_neverAnswers_timeoutAtTheConfiguredBoundAndNoOrphan() throws Exception {
        ServerConfig silent = script("silent",
                "import subprocess, sys, time",
                "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', sys.argv[1]])", // a grandchild the probe must end too
                "sys.stderr.write('started child %d\\n' % child.pid); sys.stderr.flush()",
                "time.sleep(300)");

        // 3 s, not less: the script must have started its child and said so before the bound, also while the other
        // test fork starts 32 servers
        ServerResult r = only(probe().timeout(Duration.ofMillis(3000)).build().run(List.of(silent)));

        assertThat(r.outcome()).isEqualTo(Outcome.TIMEOUT);
        assertThat(r.reason()).isEqualTo("no answer to initialize within 3 s");
        assertThat(r.timeoutMs()).isEqualTo(3000);
        assertThat(r.initializeMs()).isNull();
        assertThat(r.stderrTail()).anyMatch(l -> l.startsWith("started child"));
        assertThat(ProbeProcesses.livingWith(marker)).as("server and its child are ended").isEmpty();
    }

    /**
     * Issue 19, defect 7: a server that floods requests and never reads its stdin. Kiln's answers fill the pipe; the
     * write used to block past the startup timeout for good. Now the send gives up at the deadline.
     */
    @Test
    void run_floodsRequestsAndNeverReadsStdin_timeoutAtTheBoundAndNoProcessLeft() throws Exception {
        ServerConfig flood = script("flood",
                "import sys",
                "i = 0",
                "while True:",
                "    i += 1",
                "    sys.stdout.write('{\"jsonrpc\":\"2.0\",\"id\":\"flood-%d\",\"method\":\"ping\"}\\n' % i)");
        try {
            ServerResult r = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60),
                    () -> only(probe().timeout(Duration.ofSeconds(5)).build().run(List.of(flood))));

            assertThat(r.outcome()).isEqualTo(Outcome.TIMEOUT);
            assertThat(r.reason()).isEqualTo("could not send ping answer within 5 s: the server does not read its stdin");
            assertThat(ProbeProcesses.livingWith(marker)).as("the flooding server is ended").isEmpty();
        } finally {
            endLeftovers(marker);
        }
    }

    /**
     * Issue 27: a request Kiln could not write before the deadline was taken for a closed pipe, so a live server that
     * was merely slow (or a timeout that ran out before the send) came out as a protocol error. This server stops
     * reading after asking for a 300 KB cursor back: Kiln's {@code tools/list} cannot fit the pipe, and it is a timeout.
     */
    @Test
    void run_requestCannotBeWrittenBeforeTheDeadline_timeoutNotProtocolError() throws Exception {
        ServerConfig stuck = script("stuck",
                "import json, sys, time",
                "def answer(mid, result):",
                "    sys.stdout.write(json.dumps({'jsonrpc': '2.0', 'id': mid, 'result': result}) + '\\n'); sys.stdout.flush()",
                "m = json.loads(sys.stdin.readline())",
                "answer(m['id'], {'protocolVersion': m['params']['protocolVersion'], 'capabilities': {},"
                        + " 'serverInfo': {'name': 'stuck', 'version': '1'}})",
                "sys.stdin.readline()", // notifications/initialized
                "m = json.loads(sys.stdin.readline())",
                "answer(m['id'], {'tools': [], 'nextCursor': 'c' * 300000})",
                "time.sleep(300)");

        // 10 s: the deadline ends the stuck send whatever its length, but Python's start and the first answers must fit
        // inside it also on a loaded machine (2 s did not, once, with three test forks beside other builds)
        ServerResult r = only(legacyClient().timeout(Duration.ofSeconds(10)).build().run(List.of(stuck)));

        assertThat(r.outcome()).as(r.reason()).isEqualTo(Outcome.TIMEOUT);
        assertThat(r.reason()).isEqualTo("could not send tools/list within 10 s: the server does not read its stdin");
        assertThat(ProbeProcesses.livingWith(marker)).isEmpty();
    }

    /**
     * Issue 19, defect 7: a grandchild that leaves the process group and session ({@code setsid}) and drops the
     * environment tag ({@code env -i}), left behind by a server that exits. It still holds the server's stdio pipes.
     */
    @Test
    void run_serverLeavesASetsidEnvIGrandchild_noSuchProcessRemains() throws Exception {
        String sleepArg = "1000." + Math.abs(UUID.randomUUID().getMostSignificantBits() % 1_000_000_000L); // unique argv
        Path py = dir.resolve("daemonizer.py");
        Files.writeString(py, String.join("\n",
                "import subprocess, sys, time",
                "subprocess.Popen(['setsid', 'env', '-i', 'sleep', sys.argv[2]])",
                "time.sleep(0.5)",
                "sys.stderr.write('left a daemon behind\\n')",
                "sys.exit(4)") + "\n");
        ServerConfig daemonizer = ServerConfig.stdio("daemonizer", dir, "python3", List.of(py.toString(), marker, sleepArg), Map.of());
        try {
            ServerResult r = only(probe().timeout(Duration.ofSeconds(30)).build().run(List.of(daemonizer)));

            assertThat(r.outcome()).as(r.reason() + " " + r.stderrTail()).isEqualTo(Outcome.EXITED);
            assertThat(r.exitCode()).isEqualTo(4);
            assertThat(ProbeProcesses.livingWith(sleepArg)).as("the setsid env -i grandchild is ended").isEmpty();
            assertThat(ProbeProcesses.livingWith(marker)).isEmpty();
        } finally {
            endLeftovers(sleepArg);
        }
    }

    /** So that a failing run (before the fix) leaves nothing on the machine. */
    private static void endLeftovers(String marker) throws IOException {
        for (long pid : ProbeProcesses.livingWith(marker)) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void run_garbageOnStdout_protocolErrorShowingTheLine() throws Exception {
        ServerConfig chatty = script("chatty",
                "import sys, time",
                "print('Loading model weights... done', flush=True)",
                "time.sleep(300)");

        ServerResult r = only(probe().build().run(List.of(chatty)));

        assertThat(r.outcome()).isEqualTo(Outcome.PROTOCOL_ERROR);
        assertThat(r.reason()).isEqualTo("a line on stdout is not JSON-RPC: Loading model weights... done");
        assertThat(ProbeProcesses.livingWith(marker)).isEmpty();
    }

    @Test
    void run_exitsAtOnce_exitedWithCodeAndStderrTail() throws Exception {
        ServerConfig crash = script("crash",
                "import sys",
                "sys.stderr.write('Traceback (most recent call last):\\n')",
                "sys.stderr.write('KeyError: API_TOKEN is not set\\n')",
                "sys.exit(3)");

        ServerResult r = only(probe().build().run(List.of(crash)));

        assertThat(r.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.outcomeText()).isEqualTo("exited(3)");
        assertThat(r.reason()).startsWith("exited with code 3 before answering initialize");
        assertThat(r.stderrTail()).endsWith("KeyError: API_TOKEN is not set");
        assertThat(r.timeline().exitMs()).isNotNull();
        assertThat(r.timeline().isOrdered()).isTrue();
    }

    @Test
    void run_exitsLeavingAChildHoldingStdout_exitedNotTimeoutAndTheOrphanIsEnded() throws Exception {
        ServerConfig leaver = script("leaver",
                "import subprocess, sys",
                "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', sys.argv[1]])", // inherits stdout
                "sys.stderr.write('config invalid\\n')",
                "sys.exit(5)");

        ServerResult r = only(probe().timeout(Duration.ofSeconds(30)).build().run(List.of(leaver)));

        assertThat(r.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.exitCode()).isEqualTo(5);
        assertThat(ProbeProcesses.livingWith(marker)).as("the re-parented child is ended too").isEmpty();
    }

    @Test
    void run_answerWithWrongId_protocolError() throws Exception {
        ServerConfig liar = script("liar",
                "import json, sys",
                "req = json.loads(sys.stdin.readline())",
                "print(json.dumps({'jsonrpc': '2.0', 'id': 99, 'result': {'protocolVersion': '2025-06-18'}}), flush=True)",
                "sys.stdin.read()");

        ServerResult r = only(legacyClient().build().run(List.of(liar)));

        assertThat(r.outcome()).isEqualTo(Outcome.PROTOCOL_ERROR);
        assertThat(r.reason()).isEqualTo("an answer carries id 99 while Kiln waited for id 1 (initialize)");
    }

    @Test
    void run_serverChoosesAVersionKilnDoesNotSpeak_protocolErrorNotSuccess() throws Exception {
        ServerConfig future = script("future",
                "import json, sys",
                "req = json.loads(sys.stdin.readline())",
                "print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': {'protocolVersion': '2099-01-01',",
                "    'capabilities': {}, 'serverInfo': {'name': 'f', 'version': '1'}}}), flush=True)",
                "sys.stdin.read()");

        ServerResult r = only(legacyClient().build().run(List.of(future)));

        assertThat(r.outcome()).isEqualTo(Outcome.PROTOCOL_ERROR);
        assertThat(r.reason()).startsWith("the server chose protocol version 2099-01-01, which Kiln does not speak");
        assertThat(r.protocolVersion()).isNull();
    }

    @Test
    void run_serverRejectsNewestVersion_negotiatesDownAndRecordsTheChoice() throws Exception {
        ServerConfig old = script("old",
                "import json, sys",
                "for line in sys.stdin:",
                "    req = json.loads(line)",
                "    if 'id' not in req: continue",
                "    if req['method'] == 'initialize':",
                "        v = req['params']['protocolVersion']",
                "        if v != '2025-03-26':",
                "            print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'error': {'code': -32602,",
                "                'message': 'Unsupported protocol version ' + v}}), flush=True); continue",
                "        print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': {'protocolVersion': v,",
                "            'capabilities': {'tools': {}}, 'serverInfo': {'name': 'old', 'version': '1'}}}), flush=True)",
                "    elif req['method'] == 'tools/list':",
                "        print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': {'tools': [{'name': 't'}]}}), flush=True)");

        ServerResult r = only(probe().build().run(List.of(old)));

        assertThat(r.outcome()).isEqualTo(Outcome.OK);
        assertThat(r.protocolVersion()).isEqualTo("2025-03-26");
        assertThat(r.tools()).isEqualTo(1);
    }

    @Test
    void run_statelessServerRejectsInitialize_usesServerDiscover() throws Exception {
        ServerConfig modern = script("modern",
                "import json, sys",
                "for line in sys.stdin:",
                "    req = json.loads(line)",
                "    if 'id' not in req: continue",
                "    m = req['method']",
                "    if m == 'server/discover':",
                "        assert req['params']['_meta']['io.modelcontextprotocol/protocolVersion'] == '2026-07-28'",
                "        res = {'supportedVersions': ['2026-07-28'], 'capabilities': {'tools': {}}}",
                "    elif m == 'tools/list':",
                "        res = {'tools': [{'name': 'a'}, {'name': 'b'}]}",
                "    else:",
                "        print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'error': {'code': -32601, 'message': m}}), flush=True)",
                "        continue",
                "    print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': res}), flush=True)");

        ServerResult r = only(probe().build().run(List.of(modern)));

        assertThat(r.outcome()).isEqualTo(Outcome.OK);
        assertThat(r.protocolVersion()).isEqualTo("2026-07-28");
        assertThat(r.tools()).isEqualTo(2);
    }

    @Test
    void run_serverAsksTheClientForRoots_isAnsweredAndStillStarts() throws Exception {
        ServerConfig asking = script("asking",
                "import json, sys",
                "req = json.loads(sys.stdin.readline())",
                "print(json.dumps({'jsonrpc': '2.0', 'id': 'srv-1', 'method': 'ping'}), flush=True)",
                "print(json.dumps({'jsonrpc': '2.0', 'id': 'srv-2', 'method': 'roots/list'}), flush=True)",
                "a1 = json.loads(sys.stdin.readline()); a2 = json.loads(sys.stdin.readline())",
                "assert a1 == {'jsonrpc': '2.0', 'id': 'srv-1', 'result': {}}, a1",
                "assert a2['error']['code'] == -32601, a2",
                "assert req['params']['capabilities'] == {}, req",
                "print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': {'protocolVersion': '2025-11-25',",
                "    'capabilities': {}, 'serverInfo': {'name': 'a', 'version': '1'}}}), flush=True)",
                "json.loads(sys.stdin.readline())", // notifications/initialized
                "req = json.loads(sys.stdin.readline())",
                "print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': {'tools': []}}), flush=True)",
                "sys.stdin.read()");

        ServerResult r = only(legacyClient().build().run(List.of(asking)));

        assertThat(r.outcome()).as(r.reason() + " " + r.stderrTail()).isEqualTo(Outcome.OK);
        assertThat(r.tools()).isZero();
    }

    @Test
    void run_lineOverTheCap_protocolErrorWithoutReadingIt() throws Exception {
        ServerConfig huge = script("huge",
                "import sys, time",
                "sys.stdout.write('{\"jsonrpc\": \"2.0\", \"padding\": \"' + 'x' * 200000 + '\"}\\n'); sys.stdout.flush()",
                "time.sleep(300)");

        ServerResult r = only(probe().maxLineBytes(64 * 1024).build().run(List.of(huge)));

        assertThat(r.outcome()).isEqualTo(Outcome.PROTOCOL_ERROR);
        assertThat(r.reason()).startsWith("a line on stdout is 200").endsWith("bytes, over Kiln's cap; it was not read");
        assertThat(ProbeProcesses.livingWith(marker)).isEmpty();
    }

    @Test
    void run_commandNotOnPath_spawnFailedNamingIt() throws Exception {
        ServerConfig missing = ServerConfig.stdio("missing", dir, "kiln-no-such-server", List.of(), Map.of());

        ServerResult r = only(probe().build().run(List.of(missing)));

        assertThat(r.outcome()).isEqualTo(Outcome.SPAWN_FAILED);
        assertThat(r.reason()).isEqualTo("command 'kiln-no-such-server' not found on PATH");
    }

    @Test
    void run_fetchingLauncherThatCannotStart_spawnFailedWithItsFetchPhase() throws Exception {
        // named npx, so its fetch is watched; its interpreter does not exist, so the exec itself fails
        Path npx = Files.createDirectories(dir.resolve("bin")).resolve("npx");
        Files.writeString(npx, "#!/kiln-no-such-interpreter\n");
        assertThat(npx.toFile().setExecutable(true)).isTrue();
        ServerConfig broken = ServerConfig.stdio("broken", dir, npx.toString(), List.of("-y", marker), Map.of());

        ServerResult r = only(probe().build().run(List.of(broken)));

        assertThat(r.outcome()).isEqualTo(Outcome.SPAWN_FAILED);
        assertThat(r.reason()).startsWith("cannot start " + npx);
        assertThat(r.fetch()).isNotNull();
        assertThat(r.fetch().launcher()).isEqualTo(Launcher.NPX);
    }

    @Test
    void run_manyAtOnceWithMixedOutcomes_eachGetsItsOwnOutcomeAndTimeout() throws Exception {
        ServerConfig slow = script("slow", "import time", "time.sleep(300)").withStartupTimeout(Duration.ofMillis(800));
        ServerConfig crash = script("crash", "import sys", "sys.exit(7)");

        ProbeReport report = probe().build().run(List.of(demo("demo-a"), demo("demo-b", "--weight", "0"), slow, crash));

        assertThat(report.results()).extracting(ServerResult::name, ServerResult::outcomeText, ServerResult::timeoutMs)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("demo-a", "ok", 30_000L),
                        org.assertj.core.groups.Tuple.tuple("demo-b", "ok", 30_000L),
                        org.assertj.core.groups.Tuple.tuple("slow", "timeout", 800L),
                        org.assertj.core.groups.Tuple.tuple("crash", "exited(7)", 30_000L));
        assertThat(report.results()).allSatisfy(r -> assertThat(r.timeline().isOrdered()).isTrue());
        assertThat(report.overTimeout()).isEqualTo(1);
        assertThat(report.failed()).isEqualTo(2);
        assertThat(ProbeProcesses.livingWith(marker)).isEmpty();
    }

    @Test
    void run_pinnedColdAndRepeated_serversSeeTheCpuSetAndAnEmptyPycachePrefixEachRun() throws Exception {
        ServerConfig self = script("self",
                "import json, os, sys",
                "sys.stderr.write('cpus=%s dont_write=%d prefix=%s\\n' % (sorted(os.sched_getaffinity(0)),",
                "    sys.flags.dont_write_bytecode, sys.pycache_prefix)); sys.stderr.flush()",
                "sys.exit(0)");

        ProbeReport report = probe().cpus("0").repeat(2).bytecode(BytecodeMode.COLD).build().run(List.of(self));

        assertThat(report.results()).hasSize(2).allSatisfy(r -> {
            assertThat(r.outcome()).isEqualTo(Outcome.EXITED);
            assertThat(r.stderrTail()).singleElement().asString().startsWith("cpus=[0] dont_write=1 prefix=/")
                    .contains("kiln-pycache-");
        });
        assertThat(report.results().get(0).stderrTail()).isNotEqualTo(report.results().get(1).stderrTail());
        String prefix = report.results().get(0).stderrTail().get(0).replaceAll(".*prefix=", "");
        assertThat(Path.of(prefix)).as("the per-run cache is removed").doesNotExist();
        assertThat(report.cpus()).isEqualTo("0");
    }

    @Test
    void run_interrupted_cancelsAndEndsEveryServerBeforeReturning() throws Exception {
        ServerConfig silent = script("silent", "import time", "time.sleep(300)");
        java.util.concurrent.CountDownLatch spawned = new java.util.concurrent.CountDownLatch(2);
        StartupProbe p = probe().timeout(Duration.ofSeconds(60)).events(e -> {
            if (e instanceof ProbeEvent.Spawned) {
                spawned.countDown();
            }
        }).build();
        java.util.concurrent.atomic.AtomicReference<Throwable> thrown = new java.util.concurrent.atomic.AtomicReference<>();
        Thread caller = new Thread(() -> {
            try {
                p.run(List.of(silent, script("silent-2", "import time", "time.sleep(300)")));
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        caller.start();
        assertThat(spawned.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        caller.interrupt();
        caller.join(30_000);

        assertThat(caller.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(ProbeProcesses.livingWith(marker)).isEmpty();
    }

    @Test
    void builder_badOptions_rejectedWhenSet() {
        assertThatThrownBy(() -> StartupProbe.builder().cpus("zero")).hasMessageContaining("CPU list like 0 or 0,1");
        assertThatThrownBy(() -> StartupProbe.builder().cpus("4096")).hasMessageContaining("CPU 4096 does not exist");
        assertThatThrownBy(() -> StartupProbe.builder().repeat(0)).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> StartupProbe.builder().timeout(Duration.ZERO)).hasMessageContaining("must be positive");
    }

    @Test
    void run_cpusWithoutTaskset_clearMessage() {
        StartupProbe p = probe().cpus("0").environment(Map.of("PATH", dir.toString())).build();

        assertThatThrownBy(() -> p.run(List.of(ServerConfig.stdio("x", dir, "python3", List.of(), Map.of()))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("--cpus needs taskset, which is not on PATH; install util-linux (apt-get install util-linux)"
                        + " or probe without --cpus");
    }
}
