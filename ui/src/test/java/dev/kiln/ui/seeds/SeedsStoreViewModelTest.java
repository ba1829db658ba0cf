package dev.kiln.ui.seeds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.Kiln;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.ServerSeedInfo;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.core.store.ObjectStore;
import dev.kiln.core.store.StoreEvent;
import dev.kiln.core.store.Transfer;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.ProcessTest;
import dev.kiln.ui.EngineTestBase;
import dev.kiln.ui.util.Background;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Seeds page's store column and its push / pull, against a real SeaweedFS, through the engine the subclass
 * supplies (in this process, or a daemon's over loopback HTTP: the daemon then moves the seed on its own host and the
 * page learns of it from the {@code store} frames). Seeds are made directly, not by uv.
 */
@ProcessTest
abstract class SeedsStoreViewModelTest extends EngineTestBase {
    @TempDir
    Path tmp;

    /** A workspace at {@code dir}: the demo target and copies of it ({@code extra}), kiln.json naming nothing yet. */
    static Path workspace(Path dir, String... extra) throws Exception {
        new DemoWorkspace().write(dir, 4, 1, false);
        Path demo = dir.resolve("targets/demo");
        for (String name : extra) {
            Path copy = Files.createDirectories(dir.resolve("targets").resolve(name));
            try (Stream<Path> files = Files.list(demo)) {
                for (Path f : files.toList()) {
                    Files.copy(f, copy.resolve(f.getFileName()));
                }
            }
        }
        return dir;
    }

    /** The in-process engine, its store's credentials from {@code env}. */
    static Engine localWith(Path workspace, Clock clock, Map<String, String> env) {
        return Kiln.open(workspace, new EventBus(), clock).storeEnvironment(env).engine();
    }

    /** A remote engine attached to a daemon (in this process) that owns {@code workspace} and has {@code env}'s credentials. */
    static Engine remoteWith(Path workspace, Clock clock, Map<String, String> env) {
        Engine served = Kiln.open(workspace, new EventBus(), clock).storeEnvironment(env).engine();
        served.projection().start(true);
        RemoteEngine remote = RemoteEngine.connect(URI.create(served.projection().apiUrl().orElseThrow()), served.layout().apiTokenFile(), null, clock);
        remote.start(false);
        return (Engine) Proxy.newProxyInstance(Engine.class.getClassLoader(), new Class<?>[] {Engine.class}, (proxy, m, args) -> {
            try {
                Object r = m.invoke(remote, args);
                if (m.getName().equals("close") && m.getParameterCount() == 0) {
                    served.close();
                }
                return r;
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    private static TargetRow row(SeedsViewModel vm, String target) {
        return vm.rows().stream().filter(r -> r.target().equals(target)).findFirst().orElseThrow();
    }

    @Test
    void localOnly_inBoth_storeOnly_thenPushAndPullThroughTheEngine() throws Exception {
        TestStore fs = TestStore.shared();
        String prefix = "vm-" + UUID.randomUUID();
        Path a = workspace(tmp.resolve("a"), "beta", "gamma");
        Path b = workspace(tmp.resolve("b"), "beta", "gamma");
        fs.name(a, prefix);
        fs.name(b, prefix);
        SeedCaches seedsA = SeedCaches.of(a);
        TestStore.seed(seedsA, "demo", 40, "a-demo");
        TestStore.seed(seedsA, "beta", 60, "a-beta");
        SeedCaches seedsB = SeedCaches.of(b);
        TestStore.seed(seedsB, "gamma", 80, "b-gamma");

        Engine engine = engine(a);
        List<KilnEvent> seen = recording(engine);
        SeedsViewModel vm = new SeedsViewModel(engine, Background.inline());
        vm.refresh();
        assertThat(vm.storeConfiguredProperty().get()).isTrue();
        assertThat(vm.storeSummaryProperty().get()).contains("s3://" + TestStore.BUCKET + "/" + prefix).contains(fs.endpoint());
        assertThat(row(vm, "demo").store()).isEqualTo(StoreState.LOCAL);
        assertThat(row(vm, "beta").store()).isEqualTo(StoreState.LOCAL);
        assertThat(row(vm, "gamma").store()).isEqualTo(StoreState.NONE);

        vm.push("beta");
        assertThat(vm.errorProperty().get()).isEmpty();
        assertThat(vm.messageProperty().get()).startsWith("beta: pushed ").contains(" to the store · ");
        assertThat(row(vm, "beta").progress()).startsWith("pushed · ");
        assertThat(row(vm, "beta").store()).isEqualTo(StoreState.BOTH);
        assertThat(row(vm, "beta").storeReason()).contains("sha256").contains("62 files"); // 60 modules + 2 seed files
        // the push reached the page as typed events (for the remote engine: the daemon's SSE 'store' frames)
        Await.await("the push's done event", Duration.ofSeconds(30), () -> seen.stream().anyMatch(e -> e instanceof StoreEvent s && s.phase() == StoreEvent.Phase.DONE
                && s.operation() == StoreEvent.Operation.PUSH && s.outcome().orElseThrow() == Transfer.Outcome.PUSHED
                && s.bytes() > 0));
        assertThat(seen).anyMatch(e -> e instanceof StoreEvent s && s.phase() == StoreEvent.Phase.STARTED);

        try (ObjectStore other = fs.client(prefix)) { // another host pushes gamma
            assertThat(other.pushSeed(seedsB, "gamma").outcome()).isEqualTo(Transfer.Outcome.PUSHED);
        }
        vm.refresh();
        assertThat(row(vm, "demo").store()).isEqualTo(StoreState.LOCAL);
        assertThat(row(vm, "beta").store()).isEqualTo(StoreState.BOTH);
        assertThat(row(vm, "gamma").store()).isEqualTo(StoreState.STORE);
        assertThat(row(vm, "gamma").state()).isEqualTo(SeedState.NEVER);
        assertThat(StoreState.STORE.offersPull()).isTrue();
        assertThat(StoreState.STORE.offersPush()).isFalse();

        vm.pull("gamma");
        assertThat(vm.errorProperty().get()).isEmpty();
        assertThat(vm.messageProperty().get()).startsWith("gamma: pulled ").contains("swapped it in");
        assertThat(row(vm, "gamma").progress()).startsWith("pulled · ");
        assertThat(row(vm, "gamma").store()).isEqualTo(StoreState.BOTH);
        assertThat(row(vm, "gamma").state()).isEqualTo(SeedState.FRESH); // the pulled seed is this host's current one
        assertThat(SeedCaches.of(a).seedDir("gamma").resolve("archive-v0/pkg0/mod0.py")).content().contains("b-gamma");
        assertThat(vm.storeSummaryProperty().get()).contains("1 pushed, 1 pulled, 0 failed");
        assertThat(vm.transferringProperty().get()).isFalse();
    }

    @Test
    void noStore_saysSo_andUnreachableStore_namesTheReason_andAFailedPushShowsIt() throws Exception {
        Path plain = workspace(tmp.resolve("plain"));
        SeedsViewModel none = new SeedsViewModel(engine(plain), Background.inline());
        none.refresh();
        assertThat(none.storeConfiguredProperty().get()).isFalse();
        assertThat(row(none, "demo").store()).isEqualTo(StoreState.NOT_CONFIGURED);
        assertThat(none.storeSummaryProperty().get()).contains("No object store");

        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        Path down = workspace(tmp.resolve("down"));
        Files.writeString(down.resolve("kiln.json"), "{\"store\": {\"url\": \"s3://kiln/x\", \"endpoint\": \"http://127.0.0.1:"
                + closed + "\", \"region\": \"us-east-1\"}}\n");
        TestStore.seed(SeedCaches.of(down), "demo", 5, "down");
        SeedsViewModel vm = new SeedsViewModel(engine(down), Background.inline());
        vm.refresh();
        assertThat(row(vm, "demo").store()).isEqualTo(StoreState.UNREACHABLE);
        assertThat(row(vm, "demo").storeReason()).contains("127.0.0.1:" + closed).contains("Is the store up");
        assertThat(vm.storeTroubleProperty().get()).isTrue();
        assertThat(vm.storeSummaryProperty().get()).contains("unreachable");

        vm.push("demo");
        assertThat(row(vm, "demo").progress()).isEqualTo("push failed");
        assertThat(vm.errorProperty().get()).startsWith("Push of demo failed: ").contains("Is the store up")
                .doesNotContain(TestStore.SECRET_KEY);
        assertThat(vm.transferringProperty().get()).isFalse();
    }

    private static ServerSeedsViewModel.Row server(ServerSeedsViewModel vm, String name) {
        return vm.rows().stream().filter(r -> r.server().equals(name)).findFirst().orElseThrow();
    }

    /**
     * The server seeds' pane: each runtime seed's place against the store (local only, in the store, both, differing,
     * not compared for an unpinned spec, a uv seed's note that it stays on its host) and Push / Pull of the selected
     * one, through the engine.
     */
    @Test
    void serverSeeds_localOnly_storeOnly_differing_notCompared_thenPushAndPullThroughTheEngine() throws Exception {
        TestStore fs = TestStore.shared();
        String prefix = "servers-" + UUID.randomUUID();
        Map<String, String> pinned = new java.util.TreeMap<>(Map.of("memory", "@modelcontextprotocol/server-memory@2026.8.31",
                "filesystem", "@modelcontextprotocol/server-filesystem@2026.8.31"));
        Path a = workspace(tmp.resolve("a"));
        Path b = workspace(tmp.resolve("b"));
        for (Path ws : List.of(a, b)) {
            fs.name(ws, prefix);
            TestStore.servers(ws, pinned);
        }
        TestStore.serverSeed(a, "memory", 30, "a-memory");
        TestStore.serverSeed(a, "filesystem", 20, "a-fs");
        TestStore.serverSeed(b, "filesystem", 25, "b-fs"); // warmed separately on host b

        ServerSeedsViewModel onA = new ServerSeedsViewModel(engine(a), Background.inline(), text -> { });
        onA.refresh();
        assertThat(onA.storeConfiguredProperty().get()).isTrue();
        assertThat(server(onA, "memory").store()).isEqualTo(StoreState.LOCAL);
        assertThat(server(onA, "filesystem").store()).isEqualTo(StoreState.LOCAL);
        assertThat(server(onA, "everything").store()).isEqualTo(StoreState.UNMATCHED);
        assertThat(server(onA, "everything").storeReason()).contains("asks for latest").contains("pin it");
        assertThat(server(onA, "time").store()).isEqualTo(StoreState.NONE);
        assertThat(server(onA, "time").storeReason()).contains("uv seeds stay on their host").contains("absolute path");
        assertThat(server(onA, "time").offersPush()).isFalse();

        for (String name : List.of("memory", "filesystem")) {
            onA.selectedProperty().set(server(onA, name));
            assertThat(onA.selectedProperty().get().offersPush()).isTrue();
            onA.pushSelected();
            assertThat(onA.errorProperty().get()).isEmpty();
            assertThat(onA.messageProperty().get()).startsWith(name + ": pushed ");
            assertThat(server(onA, name).store()).isEqualTo(StoreState.BOTH);
            assertThat(server(onA, name).progress()).startsWith("pushed · ");
            assertThat(onA.selectedProperty().get().server()).as("the pushed row stays selected").isEqualTo(name);
        }

        ServerSeedsViewModel onB = new ServerSeedsViewModel(engine(b), Background.inline(), text -> { });
        onB.refresh();
        assertThat(server(onB, "memory").store()).isEqualTo(StoreState.STORE);
        assertThat(server(onB, "memory").state()).isEqualTo(ServerSeedInfo.State.MISSING);
        assertThat(server(onB, "memory").offersPull()).isTrue();
        assertThat(server(onB, "memory").offersPush()).isFalse();
        assertThat(server(onB, "filesystem").store()).isEqualTo(StoreState.DIFFERING);
        assertThat(server(onB, "filesystem").storeReason()).contains("warmed separately here").contains("sha256");

        onB.selectedProperty().set(server(onB, "memory"));
        onB.pullSelected();
        assertThat(onB.errorProperty().get()).isEmpty();
        assertThat(onB.messageProperty().get()).startsWith("memory: pulled ").contains("swapped it in");
        assertThat(server(onB, "memory").state()).isEqualTo(ServerSeedInfo.State.OK);
        assertThat(server(onB, "memory").store()).isEqualTo(StoreState.BOTH);
        onB.selectedProperty().set(server(onB, "filesystem"));
        onB.pullSelected();
        assertThat(onB.errorProperty().get()).isEmpty();
        assertThat(server(onB, "filesystem").store()).as("host a's copy replaced host b's own").isEqualTo(StoreState.BOTH);
        try (Stream<Path> files = Files.walk(SeedCaches.of(b).seedsDir().resolve("servers"))) {
            assertThat(files.filter(p -> p.toString().endsWith("dist/index.js")).map(p -> {
                try {
                    return Files.readString(p);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).toList()).hasSize(2).allMatch(t -> t.contains("a-")).noneMatch(t -> t.contains("b-fs"));
        }
        assertThat(onB.transferringProperty().get()).isFalse();
    }
}
