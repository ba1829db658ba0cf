package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.archive.ArchiveCache;
import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.WorkspaceActions;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.SeedFixtures;
import dev.kiln.core.seed.ServerSeeds;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.core.serve.wire.StoreWire;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.startup.ServerConfigs;
import dev.kiln.core.store.SeaweedFs;
import dev.kiln.core.store.SeedPresence;
import dev.kiln.core.store.StoreConfig;
import dev.kiln.core.store.StoreFixtures;
import dev.kiln.core.store.StoreStatus;
import dev.kiln.core.store.Transfer;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.workspace.FileTrees;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Push, pull and the store's state through the engine over the API: two daemons ("hosts") on one real SeaweedFS,
 * each using the credentials of its own host, driven by remote engines. The answers match the API's golden files,
 * {@code /metrics} counts the transfers, and no answer carries a credential. A server's runtime seed takes the same
 * routes ({@code {"server": NAME}}); a source archive its own ({@code store/archives/push|pull}).
 */
@ProcessTest
@DaemonTest
class StoreApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path tmp;
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private RemoteEngine host(Path ws) throws Exception {
        WorkspaceSettings settings = WorkspaceSettings.read(ws);
        EventBus bus = new EventBus();
        WorkspaceActions actions = new WorkspaceActions(WorkspaceLayout.of(ws), settings,
                ArchiveCache.builder().maximumBytes(settings.archiveCacheMaxBytes()).eventSink(bus).build(),
                SeedCaches.builder(ws).settings(settings).events(bus).build(), bus, Clock.systemUTC())
                .storeEnvironment(SeaweedFs.env());
        open.add(actions);
        ProjectionDaemon d = ProjectionDaemon.builder(WorkspaceLayout.of(ws)).events(bus).actions(actions, bus).port(0).start();
        open.add(d);
        d.awaitFirstProjection(Duration.ofSeconds(60));
        RemoteEngine r = RemoteEngine.connect(d.url(), d.tokenFile(), null, Clock.systemUTC());
        open.add(r);
        return r;
    }

    @Test
    void pushAndPull_throughTwoDaemons_statusFollows_goldensMatch_metricsCount() throws Exception {
        SeaweedFs fs = SeaweedFs.shared();
        open.add(fs);
        StoreConfig cfg = fs.config("api");
        SeedCaches a = StoreFixtures.workspace(tmp.resolve("a"), "app", cfg);
        SeedCaches b = StoreFixtures.workspace(tmp.resolve("b"), "app", cfg);
        StoreFixtures.seed(a, "app", 120, 0, "api");
        StoreFixtures.store(fs, cfg).close(); // creates the bucket
        for (String host : List.of("a", "b")) { // a server whose runtime seed travels too (the real node names the runtime)
            java.nio.file.Files.writeString(tmp.resolve(host).resolve("servers.json"), "{\"mcpServers\": {\"memory\":"
                    + " {\"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory@2026.8.31\"]}}}\n");
        }
        RemoteEngine hostA = host(tmp.resolve("a"));
        RemoteEngine hostB = host(tmp.resolve("b"));

        StoreStatus before = hostA.store().status().orElseThrow();
        assertThat(before.seeds()).singleElement().extracting(SeedPresence::place).isEqualTo(SeedPresence.Place.LOCAL);
        assertThat(before.store()).isEqualTo(cfg.url() + " at " + cfg.endpoint().orElseThrow());

        Action<Transfer> push = hostA.store().push("app", "push-1");
        Transfer pushed = push.result().get(120, TimeUnit.SECONDS);
        assertThat(pushed.outcome()).isEqualTo(Transfer.Outcome.PUSHED);
        assertThat(hostA.store().push("app", "push-1").id()).isEqualTo(push.id()); // idempotent: the same action
        assertThat(hostB.store().status().orElseThrow().seeds().get(0).place()).isEqualTo(SeedPresence.Place.STORE);

        Transfer pulled = hostB.store().pull("app", "pull-1").result().get(120, TimeUnit.SECONDS);
        assertThat(pulled.outcome()).isEqualTo(Transfer.Outcome.PULLED);
        assertThat(pulled.manifest().sha256()).isEqualTo(pushed.manifest().sha256());
        assertThat(SeedFixtures.digest(b.seedDir("app"))).isEqualTo(SeedFixtures.digest(a.seedDir("app")));
        StoreStatus after = hostB.store().status().orElseThrow();
        assertThat(after.seeds().get(0).place()).isEqualTo(SeedPresence.Place.BOTH);
        assertThat(after.stats().pulls()).isEqualTo(1);
        assertThat(after.stats().bytesReceived()).isEqualTo(pushed.manifest().bytes());

        // A server's runtime seed through the same routes ({"server": NAME}): host a's, checked and swapped in on host b.
        ServerSeeds serversA = ServerSeeds.of(a, System.getenv(), Clock.systemUTC());
        ServerSeeds serversB = ServerSeeds.of(b, System.getenv(), Clock.systemUTC());
        ServerSeeds.Plan planA = serversA.plan(ServerConfigs.read(tmp.resolve("a/servers.json")).get(0));
        SeedFixtures.serverSeed(serversA, planA, 40, "api-server");
        Transfer serverPushed = hostA.store().pushServer("memory", "push-server-1").result().get(120, TimeUnit.SECONDS);
        assertThat(serverPushed.outcome()).isEqualTo(Transfer.Outcome.PUSHED);
        assertThat(serverPushed.key()).isEqualTo(dev.kiln.core.store.ObjectStore.serverKey(planA));
        Transfer serverPulled = hostB.store().pullServer("memory", "pull-server-1").result().get(120, TimeUnit.SECONDS);
        assertThat(serverPulled.outcome()).isEqualTo(Transfer.Outcome.PULLED);
        ServerSeeds.Plan planB = serversB.plan(ServerConfigs.read(tmp.resolve("b/servers.json")).get(0));
        assertThat(serversB.find(planB)).as("host b's seed of memory is sound").isPresent();
        assertThat(SeedFixtures.digest(planB.dir())).isEqualTo(SeedFixtures.digest(planA.dir()));
        // ... and the server seeds' store state (GET store/servers) on both hosts: the same copy in both places.
        for (RemoteEngine host : List.of(hostA, hostB)) {
            StoreStatus servers = host.store().serverStatus().orElseThrow();
            assertThat(servers.servers()).singleElement().satisfies(p -> {
                assertThat(p.server()).isEqualTo("memory");
                assertThat(p.place()).hasValue(SeedPresence.Place.BOTH);
                assertThat(p.key()).hasValue(serverPushed.key());
            });
        }
        Http.Response servers = Http.call("GET", hostB.apiUrl().map(java.net.URI::create).orElseThrow().resolve(Wire.STORE_SERVERS));
        assertShape(JSON.readTree(servers.body()), "store_servers.json");
        assertThat(servers.body()).doesNotContain(SeaweedFs.SECRET_KEY).doesNotContain(SeaweedFs.ACCESS_KEY);
        StoreStatus gs = Wire.read(golden("store_servers.json"), dev.kiln.core.serve.wire.WireStoreServers.Status.class).toCore()
                .orElseThrow();
        assertThat(gs.servers()).hasSize(2);
        assertThat(gs.servers().get(0).place()).hasValue(SeedPresence.Place.BOTH);
        assertThat(gs.servers().get(1).place()).isEmpty();
        assertThat(gs.servers().get(1).note()).contains("exact version");

        // The wire: the answers as a client sees them, against the API's golden files.
        Http.Response status = Http.call("GET", hostB.apiUrl().map(java.net.URI::create).orElseThrow().resolve(Wire.STORE_STATUS));
        assertShape(JSON.readTree(status.body()), "store.json");
        Http.Response action = Http.call("GET", hostA.apiUrl().map(java.net.URI::create).orElseThrow()
                .resolve(Wire.withId(Wire.ACTION, push.id())));
        assertShape(JSON.readTree(action.body()), "store_push_action.json");
        for (String body : List.of(status.body(), action.body())) {
            assertThat(body).doesNotContain(SeaweedFs.SECRET_KEY).doesNotContain(SeaweedFs.ACCESS_KEY);
        }

        // ... and the client reads the golden answers.
        StoreStatus g = Wire.read(golden("store.json"), StoreWire.Status.class).toCore().orElseThrow();
        assertThat(g.seeds().get(0).place()).isEqualTo(SeedPresence.Place.BOTH);
        assertThat(g.seeds().get(0).store()).hasValueSatisfying(m -> assertThat(m.files()).isEqualTo(3206));
        Transfer gt = Wire.read(golden("store_push_action.json").path("result"), StoreWire.TransferWire.class).toCore();
        assertThat(gt.outcome()).isEqualTo(Transfer.Outcome.PUSHED);
        assertThat(gt.duration()).isEqualTo(Duration.ofMillis(1432));

        // A source archive through the same store (POST store/archives/push on a, store/archives/pull on b): built on
        // host a, landed on host b with the same SHA-256, the action document in the shape of its golden.
        java.nio.file.Files.createDirectories(tmp.resolve("a/src/pkg"));
        java.nio.file.Files.writeString(tmp.resolve("a/src/pkg/mod.py"), "VALUE = 28\n");
        java.nio.file.Files.writeString(tmp.resolve("a/src/README"), "travels\n");
        Action<Transfer> archivePush = hostA.store().pushArchive("src", List.of(), "archive-push-1");
        Transfer archived = archivePush.result().get(120, TimeUnit.SECONDS);
        assertThat(archived.outcome()).isEqualTo(Transfer.Outcome.PUSHED);
        String sha = archived.manifest().sha256();
        Transfer archivePulled = hostB.store().pullArchive(sha, "archive-pull-1").result().get(120, TimeUnit.SECONDS);
        assertThat(archivePulled.outcome()).isEqualTo(Transfer.Outcome.PULLED);
        Path landed = WorkspaceLayout.of(tmp.resolve("b")).archivesDir().resolve(sha + ".tar.gz");
        assertThat(java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(java.nio.file.Files.readAllBytes(landed)))).isEqualTo(sha);
        Http.Response archiveAction = Http.call("GET", hostA.apiUrl().map(java.net.URI::create).orElseThrow()
                .resolve(Wire.withId(Wire.ACTION, archivePush.id())));
        assertShape(JSON.readTree(archiveAction.body()), "store_archives_push_action.json");
        assertThat(archiveAction.body()).doesNotContain(SeaweedFs.SECRET_KEY).doesNotContain(SeaweedFs.ACCESS_KEY);
        Transfer ga = Wire.read(golden("store_archives_push_action.json").path("result"), StoreWire.TransferWire.class).toCore();
        assertThat(ga.key()).isEqualTo(dev.kiln.core.store.StoreKey.archive(ga.manifest().sha256()));

        // GET store/archives?sha256=S (issue #26's worked example with facets): the store's manifest of one archive, as
        // host b's credentials see it; none for an archive never pushed; a malformed SHA-256 refused before the store.
        assertThat(hostB.store().archive(sha)).hasValueSatisfying(m -> {
            assertThat(m.sha256()).isEqualTo(sha);
            assertThat(m.bytes()).isEqualTo(archived.manifest().bytes());
            assertThat(m.packing()).isEqualTo("file");
        });
        assertThat(hostB.store().archive("0".repeat(64))).isEmpty();
        assertThatThrownBy(() -> hostB.store().archive("not-a-sha")).isInstanceOf(dev.kiln.core.engine.EngineException.class)
                .hasMessageContaining("not-a-sha");
        Http.Response archiveRead = Http.call("GET", hostB.apiUrl().map(java.net.URI::create).orElseThrow()
                .resolve(Wire.STORE_ARCHIVE + "?sha256=" + sha));
        assertShape(JSON.readTree(archiveRead.body()), "store_archives.json");
        assertThat(archiveRead.body()).doesNotContain(SeaweedFs.SECRET_KEY).doesNotContain(SeaweedFs.ACCESS_KEY);
        assertThat(Wire.read(golden("store_archives.json"), StoreWire.Archive.class).toCore())
                .hasValueSatisfying(m -> assertThat(m.key()).isEqualTo(dev.kiln.core.store.StoreKey.archive(m.sha256())));

        String metrics = Http.call("GET", hostB.apiUrl().map(java.net.URI::create).orElseThrow().resolve("metrics")).body();
        assertThat(metrics).contains("kiln_store_pulls_total 3.0").contains("kiln_store_received_bytes_total "
                + (double) (pushed.manifest().bytes() + serverPulled.bytes() + archivePulled.bytes()))
                .contains("kiln_store_failures_total 0.0").doesNotContain(SeaweedFs.SECRET_KEY);
        String metricsA = Http.call("GET", hostA.apiUrl().map(java.net.URI::create).orElseThrow().resolve("metrics")).body();
        assertThat(metricsA).as("host a's pushes: the seed, the server seed, the archive").contains("kiln_store_pushes_total 3.0")
                .contains("kiln_store_sent_bytes_total " + (double) (pushed.manifest().bytes() + serverPushed.bytes()
                        + archived.bytes()));
        FileTrees.delete(tmp.resolve("a/observer"));
    }

    static JsonNode golden(String name) throws Exception {
        try (InputStream in = StoreApiTest.class.getResourceAsStream("/api/v1/" + name)) {
            assertThat(in).as("golden file api/v1/" + name).isNotNull();
            return JSON.readTree(in);
        }
    }

    /** Same keys, same nesting, same JSON types (a golden null allows any type). */
    static void assertShape(JsonNode actual, String golden) throws Exception {
        JsonNode g;
        try (InputStream in = StoreApiTest.class.getResourceAsStream("/api/v1/" + golden)) {
            assertThat(in).as("golden file api/v1/" + golden).isNotNull();
            g = JSON.readTree(in);
        }
        shape(actual, g, "$");
    }

    private static void shape(JsonNode a, JsonNode g, String at) {
        if (g.isNull()) {
            return;
        }
        assertThat(a.getNodeType()).as(at).isEqualTo(g.getNodeType());
        if (g.isObject()) {
            List<String> ak = new ArrayList<>();
            a.fieldNames().forEachRemaining(ak::add);
            List<String> gk = new ArrayList<>();
            g.fieldNames().forEachRemaining(gk::add);
            assertThat(ak).as(at + " keys").containsExactlyInAnyOrderElementsOf(gk);
            for (Iterator<String> it = g.fieldNames(); it.hasNext(); ) {
                String k = it.next();
                shape(a.get(k), g.get(k), at + "." + k);
            }
        } else if (g.isArray() && !g.isEmpty() && !a.isEmpty()) {
            shape(a.get(0), g.get(0), at + "[0]");
        }
    }
}
