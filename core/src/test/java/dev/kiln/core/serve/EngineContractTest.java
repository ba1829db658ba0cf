package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.archive.ArchiveEntry;
import dev.kiln.core.archive.ArchiveEvent;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.demo.DemoSummary;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.engine.EngineEvent;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.engine.ProbeRequest;
import dev.kiln.core.engine.SavedRun;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.seed.SeedFixtures;
import dev.kiln.core.seed.SlowWheelServer;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.core.snapshot.ContractFile;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.startup.Bytecode;
import dev.kiln.core.startup.BytecodeReport;
import dev.kiln.core.startup.ProbeEvent;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.RealServers;
import dev.kiln.core.startup.SavedProbeRun;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link Engine} does, run against the in-process engine and against a {@link RemoteEngine} attached to a
 * real {@link ProjectionDaemon} on loopback: the same snapshot, heal on the engine's host, a real uv warm streaming
 * its lines and a cancel that ends uv's process tree and keeps the old seed, a probe of the demo servers, a
 * precompile that changes the audit, the archive cache, idempotency keys.
 */
@ProcessTest @DaemonTest
abstract class EngineContractTest {
    @TempDir
    Path dir;

    Path ws;
    DemoSummary demo;
    Engine engine;
    final List<KilnEvent> events = new CopyOnWriteArrayList<>();

    /** The engine under test on {@code ws}, started; its events go to {@link #events}. */
    abstract Engine open(Path ws) throws Exception;

    abstract void shut() throws Exception;

    /** Gives the engine's host the store's credentials (its AWS chain), before the first store request. */
    abstract void storeEnvironment(Map<String, String> environment);

    @BeforeEach
    void workspace() throws Exception {
        ws = dir.resolve("ws");
        demo = new DemoWorkspace().write(ws, 60, 7, false);
        engine = open(ws);
        engine.events().subscribe(events::add);
        engine.projection().start(true);
    }

    @AfterEach
    void close() throws Exception {
        engine.close();
        shut();
    }

    private static boolean onPath(String tool) {
        return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, tool)));
    }

    /** What a contract shows, by file: leaf id, declared id, title, status, deadline, enclosure. */
    private static Map<String, String> contents(ContractSnapshot s) {
        Map<String, String> m = new TreeMap<>();
        for (ContractFile f : s.contracts()) {
            m.put(f.file(), f.leafId() + "|" + f.contract().leafId() + "|" + f.contract().title() + "|" + f.contract().status()
                    + "|" + f.contract().deadline() + "|" + f.contract().enclosure() + "|" + f.idShape());
        }
        return m;
    }

    private static ContractSnapshot reference(Path ws) {
        Projector p = Projector.builder(WorkspaceLayout.of(ws)).readOnly().build();
        p.tick(WakeReason.MANUAL);
        return p.snapshot();
    }

    @Test
    void snapshot_sameContentsAsAProjectionOfTheTree() throws Exception {
        ContractSnapshot want = reference(ws);
        Await.await("the first state", () -> engine.projection().snapshot().contracts().size() == want.contracts().size());

        ContractSnapshot got = engine.projection().snapshot();
        assertThat(contents(got)).isEqualTo(contents(want));
        assertThat(got.contracts()).extracting(ContractFile::file).containsExactlyElementsOf(
                want.contracts().stream().map(ContractFile::file).toList());
        assertThat(got.failures()).isEqualTo(want.failures());
        assertThat(engine.layout().root().toString()).isEqualTo(ws.toString());
    }

    @Test
    void heal_previewWritesNothing_applyRewritesTheFilesOnTheEnginesHost_sameKeyAnswersTheFirst() throws Exception {
        Path legacy = ws.resolve(demo.legacyIds().get(0));
        String before = Files.readString(legacy);

        HealReport preview = engine.projection().heal(false, "");
        assertThat(preview.dryRun()).isTrue();
        assertThat(preview.changes()).isNotEmpty();
        assertThat(Files.readString(legacy)).isEqualTo(before);

        HealReport applied = engine.projection().heal(true, "heal-1");
        assertThat(applied.dryRun()).isFalse();
        assertThat(applied.changes()).extracting(HealReport.Change::file).containsExactlyInAnyOrderElementsOf(
                preview.changes().stream().map(HealReport.Change::file).toList());
        assertThat(Files.readString(legacy)).isNotEqualTo(before);
        HealReport again = engine.projection().heal(true, "heal-1");
        assertThat(again).as("the same key: the first report, not a second sweep").isEqualTo(applied);
        assertThat(engine.projection().heal(true, "heal-2").changes()).as("a new key sweeps again: nothing left").isEmpty();
        Await.await("the heal events", () -> events.stream().filter(e -> e instanceof EngineEvent.HealFinished).count() >= 3);
        assertThat(events.stream().filter(e -> e instanceof EngineEvent.HealFinished h && !h.report().dryRun()).count())
                .as("preview, heal-1 once, heal-2").isEqualTo(2);
    }

    @Test
    void warm_realUv_streamsItsLines_cancelEndsUvsTreeAndKeepsTheOldSeed() throws Exception {
        Assumptions.assumeTrue(onPath("uv"), "uv is not on PATH (pip install uv): the warm case needs the real uv");
        Path target = SeedFixtures.target(ws, "app", "small");

        Action<WarmResult> first = engine.seeds().warm("app", "warm-1");
        WarmResult warmed = first.result().get(5, TimeUnit.MINUTES);
        assertThat(warmed.outcome()).as(warmed.message()).isEqualTo(WarmOutcome.WARMED);
        Await.await("the first warm's end", () -> finished(first.id()) != null);
        assertThat(events).filteredOn(e -> e instanceof SeedEvent.WarmOutput w && w.target().equals("app")).isNotEmpty();
        assertThat(events).filteredOn(e -> e instanceof SeedEvent.WarmFinished).hasSize(1);
        assertThat(engine.seeds().list()).anyMatch(s -> s.target().equals("app") && s.seeded());
        Path seedDir = engine.seeds().list().stream().filter(s -> s.target().equals("app")).findFirst().orElseThrow().seedDir();
        Map<String, String> seed = SeedFixtures.digest(seedDir);

        try (SlowWheelServer host = new SlowWheelServer()) {
            host.writeLock(target, false);
            events.clear();
            Action<WarmResult> second = engine.seeds().warm("app", "warm-2");
            assertThat(host.requested.await(90, TimeUnit.SECONDS)).as("uv downloading the stalled wheel").isTrue();
            SeedEvent.WarmStarted started = events.stream().filter(e -> e instanceof SeedEvent.WarmStarted)
                    .map(e -> (SeedEvent.WarmStarted) e).findFirst().orElseThrow();
            ProcessHandle uv = ProcessHandle.of(started.pid()).orElseThrow();
            List<ProcessHandle> tree = new ArrayList<>(uv.descendants().toList());
            tree.add(uv);

            second.cancel();

            WarmResult cancelled;
            try {
                cancelled = second.result().get(60, TimeUnit.SECONDS);
                assertThat(cancelled.outcome()).isEqualTo(WarmOutcome.CANCELLED);
            } catch (CancellationException e) {
                // cancelled before uv reported: as good, the tree must still be gone
            }
            for (ProcessHandle h : tree) {
                assertThat(SeedFixtures.gone(h.pid())).as("uv's process %d ended", h.pid()).isTrue();
            }
            Await.await("the cancelled warm's end", () -> finished(second.id()) != null);
            assertThat(finished(second.id()).status()).isEqualTo(EngineEvent.Status.CANCELLED);
        }
        assertThat(SeedFixtures.digest(seedDir)).as("the old seed").isEqualTo(seed);
    }

    private EngineEvent.ActionFinished finished(String id) {
        return events.stream().filter(e -> e instanceof EngineEvent.ActionFinished f && f.id().equals(id))
                .map(e -> (EngineEvent.ActionFinished) e).findFirst().orElse(null);
    }

    @Test
    void probe_demoServers_stepsForEachServer_savedRun_sameKeyOneRun() throws Exception {
        Assumptions.assumeTrue(onPath("python3"), "python3 is not on PATH: the demo servers are Python");
        Set<String> names = engine.probes().servers().stream().map(s -> s.name()).collect(Collectors.toSet());
        assertThat(names).hasSize(3);
        int runsBefore = engine.probes().runs().size();

        Action<ProbeReport> a = engine.probes().probe(ProbeRequest.all(), "probe-1");
        Action<ProbeReport> b = engine.probes().probe(ProbeRequest.all(), "probe-1");
        assertThat(b.id()).as("the same key: the same action").isEqualTo(a.id());
        ProbeReport report = a.result().get(3, TimeUnit.MINUTES);

        assertThat(report.results()).extracting(r -> r.name()).containsExactlyInAnyOrderElementsOf(names);
        assertThat(b.result().get(10, TimeUnit.SECONDS)).isEqualTo(report);
        Await.await("every server's end step", () -> events.stream().filter(e -> e instanceof ProbeEvent.Finished)
                .map(e -> ((ProbeEvent) e).server()).collect(Collectors.toSet()).containsAll(names));
        for (String n : names) {
            assertThat(events).as(n).anyMatch(e -> e instanceof ProbeEvent.Spawned s && s.server().equals(n));
        }
        List<SavedRun> runs = engine.probes().runs();
        assertThat(runs).as("one run saved for the two calls").hasSize(runsBefore + 1);
        assertThat(runs.get(0).startedAt()).as("read from the run's name")
                .isEqualTo(report.startedAt().truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        SavedProbeRun saved = engine.probes().run(runs.get(0).id());
        assertThat(saved.servers()).extracting(SavedProbeRun.Server::name).contains("demo-light");
        assertThatThrownBy(() -> engine.probes().run("../kiln.json")).isInstanceOf(EngineException.class)
                .extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.REJECTED);
        assertThatThrownBy(() -> engine.probes().probe(new ProbeRequest(List.of("nope"), "", dev.kiln.core.startup.BytecodeMode.AS_IS,
                java.util.Optional.empty()), "")).isInstanceOf(EngineException.class)
                .hasMessageContaining("nope").extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.REJECTED);
    }

    /**
     * A server launched through a real {@code npx} (a local package directory, the registry a closed port: nothing is
     * downloaded): the probe result this engine hands out, its {@code probe_finished} step and the run saved on the
     * engine's host all carry the same fetch phase. Run against both engines, this is the proof that the phase crosses
     * the wire unchanged (an attached console draws the fetch segment from it).
     */
    @Test
    void probe_npxServer_fetchPhaseInTheResultTheFinishedStepAndTheSavedRun() throws Exception {
        Assumptions.assumeTrue(onPath("npx"), "npx is not on PATH");
        Path pkg = ws.resolve("servers/local-echo");
        Files.createDirectories(pkg);
        Files.writeString(pkg.resolve("package.json"), """
                {"name": "kiln-local-echo", "version": "1.0.0", "bin": {"kiln-local-echo": "index.js"}}
                """);
        // The smallest MCP server: answers initialize and tools/list, refuses what it does not know (server/discover).
        Files.writeString(pkg.resolve("index.js"), """
                #!/usr/bin/env node
                const rl = require('readline').createInterface({input: process.stdin});
                const say = m => process.stdout.write(JSON.stringify(Object.assign({jsonrpc: '2.0'}, m)) + '\\n');
                rl.on('line', l => {
                  let m; try { m = JSON.parse(l); } catch (e) { return; }
                  if (m.id === undefined) return;
                  if (m.method === 'initialize') say({id: m.id, result: {protocolVersion: m.params.protocolVersion,
                      capabilities: {tools: {}}, serverInfo: {name: 'local-echo', version: '1.0.0'}}});
                  else if (m.method === 'tools/list') say({id: m.id, result: {tools: [{name: 'echo',
                      inputSchema: {type: 'object'}}]}});
                  else say({id: m.id, error: {code: -32601, message: 'method not found'}});
                });
                rl.on('close', () => process.exit(0));
                """);
        pkg.resolve("index.js").toFile().setExecutable(true);
        Files.writeString(ws.resolve("servers.json"), """
                {"mcpServers": {"via-npx": {"command": "npx", "args": ["-y", "./servers/local-echo"],
                  "env": {"NPM_CONFIG_CACHE": "%s", "NPM_CONFIG_REGISTRY": "http://127.0.0.1:9/",
                          "NPM_CONFIG_UPDATE_NOTIFIER": "false"}}}}
                """.formatted(dir.resolve("npm-cache").toString().replace("\\", "/")));

        ProbeReport report = engine.probes().probe(new ProbeRequest(List.of("via-npx"), "", dev.kiln.core.startup.BytecodeMode.AS_IS,
                java.util.Optional.empty()), "").result().get(3, TimeUnit.MINUTES);

        dev.kiln.core.startup.ServerResult r = report.results().get(0);
        assertThat(r.outcome()).as(r.reason() + " " + r.stderrTail()).isEqualTo(dev.kiln.core.startup.Outcome.OK);
        dev.kiln.core.startup.FetchPhase f = r.fetch();
        assertThat(f).as("the fetch phase reached this engine's caller").isNotNull();
        assertThat(f.launcher()).isEqualTo(dev.kiln.core.startup.Launcher.NPX);
        assertThat(f.fetchMs()).as("npx's hand-off was seen: " + f.evidence()).isNotNull().isPositive();
        assertThat(r.timeline().fetchEndMs()).as("the timeline's fetch end, which the Startup page draws").isNotNull();
        Await.await("the server's finished step", () -> events.stream().anyMatch(e -> e instanceof ProbeEvent.Finished p
                && p.server().equals("via-npx")));
        ProbeEvent.Finished step = events.stream().filter(e -> e instanceof ProbeEvent.Finished p && p.server().equals("via-npx"))
                .map(e -> (ProbeEvent.Finished) e).reduce((a, b) -> b).orElseThrow();
        assertThat(step.result().fetch()).as("the live step's fetch phase").isEqualTo(f);
        assertThat(step.result().timeline()).isEqualTo(r.timeline());

        SavedProbeRun.Result saved = engine.probes().run(engine.probes().runs().get(0).id()).runs().get(0);
        assertThat(saved.fetch().launcher()).isEqualTo(dev.kiln.core.startup.Launcher.NPX);
        assertThat(saved.fetch().downloaded()).isEqualTo(f.downloaded().label());
        assertThat(saved.fetch().evidence()).isEqualTo(f.evidence());
        assertThat(saved.fetch().fetchMs()).as("saved to 0.1 ms").isCloseTo(f.fetchMs(),
                org.assertj.core.data.Offset.offset(0.051));
        assertThat(saved.timeline().fetchEndMs()).isCloseTo(r.timeline().fetchEndMs(),
                org.assertj.core.data.Offset.offset(0.051));
    }

    @Test
    void probe_cancelled_endsEveryServersProcessTreeOnTheEnginesHost() throws Exception {
        Assumptions.assumeTrue(onPath("python3"), "python3 is not on PATH: the hanging server is Python");
        // A server that never answers initialize and has a child of its own: only a cancel ends it before its timeout.
        Files.writeString(ws.resolve("servers/hang.py"), """
                import subprocess, sys, time
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
                print(child.pid, file=sys.stderr, flush=True)
                time.sleep(300)
                """);
        Files.writeString(ws.resolve("servers.json"), """
                {"mcpServers": {"hang": {"command": "python3", "args": ["servers/hang.py"], "startup_timeout_sec": 300}}}
                """);
        Action<ProbeReport> a = engine.probes().probe(ProbeRequest.all(), "hang-1");
        Await.await("the server spawned", () -> events.stream().anyMatch(e -> e instanceof ProbeEvent.Spawned s
                && s.server().equals("hang") && s.pid() > 0));
        long pid = events.stream().filter(e -> e instanceof ProbeEvent.Spawned s && s.server().equals("hang"))
                .mapToLong(e -> ((ProbeEvent.Spawned) e).pid()).findFirst().orElseThrow();
        ProcessHandle server = ProcessHandle.of(pid).orElseThrow();
        Await.await("its child started", () -> server.descendants().findAny().isPresent());
        List<ProcessHandle> tree = new ArrayList<>(server.descendants().toList());
        tree.add(server);

        a.cancel();

        assertThatThrownBy(() -> a.result().get(60, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
        for (ProcessHandle h : tree) {
            assertThat(SeedFixtures.gone(h.pid())).as("process %d of the server's tree ended", h.pid()).isTrue();
        }
        Await.await("the cancelled probe's end", () -> finished(a.id()) != null);
        assertThat(finished(a.id()).status()).isEqualTo(EngineEvent.Status.CANCELLED);
    }

    @Test
    void precompile_venvServer_changesTheAudit() throws Exception {
        Assumptions.assumeTrue(onPath("python3"), "python3 is not on PATH: the bytecode case needs a venv");
        Path venv = dir.resolve("venv");
        RealServers.run(List.of("python3", "-m", "venv", "--without-pip", venv.toString()), dir, 120);
        Path site = RealServers.sitePackages(venv);
        Files.createDirectories(site.resolve("srv"));
        Files.writeString(site.resolve("srv/__init__.py"), "X = 1\n");
        Files.writeString(site.resolve("srv/main.py"), "def run():\n    return 2\n");
        Files.writeString(ws.resolve("servers.json"), """
                {"mcpServers": {"venv-server": {"command": "%s", "args": ["-m", "srv"], "disabled": true}}}
                """.formatted(venv.resolve("bin/python")));

        BytecodeReport before = engine.probes().audit("venv-server");
        assertThat(before.missing()).isGreaterThanOrEqualTo(2);
        Bytecode.CompileResult r = engine.probes().precompile("venv-server", "compile-1").result().get(3, TimeUnit.MINUTES);
        assertThat(r.exitCode()).isZero();
        BytecodeReport after = engine.probes().audit("venv-server");
        assertThat(after.missing()).isZero();
        assertThat(after.fresh()).isEqualTo(after.sources());
        assertThat(r.after().missing()).isZero();
        assertThatThrownBy(() -> engine.probes().audit("nope")).isInstanceOf(EngineException.class)
                .extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.REJECTED);
    }

    @Test
    void archive_buildHitEntriesInvalidate() throws Exception {
        ArchiveEntry built = engine.archives().archive("servers", List.of());
        assertThat(built.bytes()).isPositive();
        ArchiveEntry again = engine.archives().archive("servers", List.of());
        assertThat(again.sha256()).isEqualTo(built.sha256());
        assertThat(engine.archives().stats().hits()).isGreaterThanOrEqualTo(1);
        assertThat(engine.archives().entries()).extracting(ArchiveEntry::sha256).contains(built.sha256());
        Await.await("the archive events", () -> events.stream().anyMatch(e -> e instanceof ArchiveEvent.Built)
                && events.stream().anyMatch(e -> e instanceof ArchiveEvent.Hit));
        assertThat(engine.archives().maximumBytes()).isPositive();
        assertThat(engine.archives().policy()).isIn("validated", "snapshot");

        engine.archives().invalidate();
        assertThat(engine.archives().entries()).isEmpty();
        assertThatThrownBy(() -> engine.archives().archive("../..", List.of())).isInstanceOf(EngineException.class)
                .extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.REJECTED);
    }

    /**
     * Issue 28: a source archive through a real SeaweedFS, moved on the engine's host: built and pushed under its
     * SHA-256 (a retry of the key is the same action, a second push finds it stored), pulled back into the workspace's
     * archives directory with the same bytes, counted and published as store events; bad requests are refused.
     */
    @Test
    void archive_pushedThenPulledThroughTheStore_sameSha256_countedAndPublished() throws Exception {
        try (dev.kiln.core.store.SeaweedFs fs = dev.kiln.core.store.SeaweedFs.shared()) {
            dev.kiln.core.store.StoreConfig cfg = fs.config("contract-" + getClass().getSimpleName());
            Files.writeString(ws.resolve("kiln.json"), "{\"store\": {\"url\": \"" + cfg.url() + "\", \"endpoint\": \""
                    + cfg.endpoint().orElseThrow() + "\", \"region\": \"us-east-1\"}}\n");
            storeEnvironment(dev.kiln.core.store.SeaweedFs.env());
            String sha = engine.archives().archive("servers", List.of()).sha256();

            Action<dev.kiln.core.store.Transfer> push = engine.store().pushArchive("servers", List.of(), "archive-push-1");
            dev.kiln.core.store.Transfer pushed = push.result().get(120, TimeUnit.SECONDS);
            assertThat(pushed.outcome()).isEqualTo(dev.kiln.core.store.Transfer.Outcome.PUSHED);
            assertThat(pushed.key()).isEqualTo(dev.kiln.core.store.StoreKey.archive(sha));
            assertThat(pushed.manifest().sha256()).isEqualTo(sha);
            assertThat(engine.store().pushArchive("servers", List.of(), "archive-push-1").id()).as("the same key: the same action")
                    .isEqualTo(push.id());
            assertThat(engine.store().pushArchive("servers", List.of(), "archive-push-2").result().get(120, TimeUnit.SECONDS).outcome())
                    .isEqualTo(dev.kiln.core.store.Transfer.Outcome.ALREADY_STORED);

            dev.kiln.core.store.Transfer pulled = engine.store().pullArchive(sha, "archive-pull-1").result().get(120, TimeUnit.SECONDS);
            assertThat(pulled.outcome()).isEqualTo(dev.kiln.core.store.Transfer.Outcome.PULLED);
            Path landed = engine.layout().archivesDir().resolve(sha + ".tar.gz");
            assertThat(java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(Files.readAllBytes(landed)))).as("the pulled file's SHA-256").isEqualTo(sha);
            assertThat(pulled.bytes()).isEqualTo(Files.size(landed)).isEqualTo(pushed.manifest().bytes());

            Await.await("a done store event of the push and of the pull", () -> events.stream()
                    .filter(e -> e instanceof dev.kiln.core.store.StoreEvent se && se.key().equals(pushed.key())
                            && se.phase() == dev.kiln.core.store.StoreEvent.Phase.DONE)
                    .map(e -> ((dev.kiln.core.store.StoreEvent) e).operation()).distinct().count() == 2);
            dev.kiln.core.store.StoreStats stats = engine.store().status().orElseThrow().stats();
            assertThat(stats.pushes()).isEqualTo(1);
            assertThat(stats.pushesSkipped()).isEqualTo(1);
            assertThat(stats.pulls()).isEqualTo(1);
            assertThat(stats.bytesReceived()).isEqualTo(pushed.manifest().bytes());

            assertThatThrownBy(() -> engine.store().pullArchive("not-a-sha", "archive-pull-2")).isInstanceOf(EngineException.class)
                    .hasMessageContaining("SHA-256").extracting(e -> ((EngineException) e).kind())
                    .isEqualTo(EngineException.Kind.REJECTED);
            Action<dev.kiln.core.store.Transfer> outside = engine.store().pushArchive("../..", List.of(), "archive-push-3");
            assertThatThrownBy(() -> outside.result().get(60, TimeUnit.SECONDS)).cause().isInstanceOf(EngineException.class)
                    .hasMessageContaining("outside the workspace").extracting(e -> ((EngineException) e).kind())
                    .isEqualTo(EngineException.Kind.REJECTED);
        }
    }

    /** Issue 25, item 16: a key names one request; given to another one it is refused, not answered with the first. */
    @Test
    void idempotencyKey_givenToAnotherRequest_rejectedNamingTheKey_nothingStarts() throws Exception {
        Files.createDirectories(ws.resolve("targets"));
        SeedFixtures.target(ws, "app", "small");
        engine.projection().heal(true, "key-25");
        assertThatThrownBy(() -> engine.seeds().warm("app", "key-25")).isInstanceOf(EngineException.class)
                .hasMessageContaining("'key-25'").hasMessageContaining("a heal")
                .extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.REJECTED);
        assertThat(engine.seeds().history()).as("no warm ran").isEmpty();
    }

    @Test
    void seeds_planAndHistory_unknownTargetRejected() throws Exception {
        Files.createDirectories(ws.resolve("targets"));
        SeedFixtures.target(ws, "app", "small");
        assertThat(engine.seeds().list()).anyMatch(s -> s.target().equals("app") && !s.seeded());
        assertThat(engine.seeds().plan("app").warmNeeded()).isTrue();
        assertThat(engine.seeds().history()).isEmpty();
        assertThatThrownBy(() -> engine.seeds().plan("nope")).isInstanceOf(EngineException.class)
                .hasMessageContaining("nope").extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.REJECTED);
        assertThat(engine.projection().diagnose().verdict()).isNotNull();
        assertThat(engine.probes().defaultStartupTimeout()).isPositive();
        assertThat(engine.probes().latestSweep()).isEmpty();
    }

    /** Waits up to {@code d} (testkit patience otherwise). */
    static void await(String what, Duration d, java.util.function.BooleanSupplier c) throws InterruptedException {
        Await.await(what, d, c);
    }
}
