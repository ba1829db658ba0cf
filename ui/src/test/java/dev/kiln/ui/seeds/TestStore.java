package dev.kiln.ui.seeds;

import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.store.ObjectStore;
import dev.kiln.core.store.StoreConfig;
import dev.kiln.testkit.WeedServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;

/**
 * A real SeaweedFS for the console's store tests: testkit's {@link WeedServer} with this module's identity, one per
 * test JVM (started on first use, stopped at exit), and seeds made directly (no uv) for targets of a workspace. Core's
 * tests wrap the same server ({@code dev.kiln.core.store.SeaweedFs}); a test jar of core would split its packages on
 * this module's path, so the few lines of identity and readiness are this module's own.
 */
final class TestStore {
    static final String ACCESS_KEY = "KILNUITESTACCESSKEY";
    static final String SECRET_KEY = "kiln-ui-test-secret-not-for-production";
    static final String BUCKET = "kiln-ui-test";
    private static TestStore shared;

    private final WeedServer server;

    private TestStore(WeedServer server) {
        this.server = server;
    }

    /** The JVM's store, started on first use (within bounds), its bucket created. */
    static synchronized TestStore shared() throws Exception {
        if (shared == null || !shared.server.isAlive()) {
            shared = start(Files.createTempDirectory("kiln-ui-seaweedfs"));
            TestStore s = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(s::stop));
        }
        return shared;
    }

    static Map<String, String> env() {
        return Map.of("AWS_ACCESS_KEY_ID", ACCESS_KEY, "AWS_SECRET_ACCESS_KEY", SECRET_KEY);
    }

    String endpoint() {
        return server.endpoint().toString();
    }

    StoreConfig config(String prefix) {
        return config(endpoint(), prefix);
    }

    private static StoreConfig config(String endpoint, String prefix) {
        return StoreConfig.of("s3://" + BUCKET + "/" + prefix, endpoint, "us-east-1");
    }

    /** Writes {@code ws}'s kiln.json naming the store under {@code prefix}. */
    void name(Path ws, String prefix) throws IOException {
        Files.writeString(ws.resolve("kiln.json"), "{\"store\": {\"url\": \"s3://" + BUCKET + "/" + prefix
                + "\", \"endpoint\": \"" + endpoint() + "\", \"region\": \"us-east-1\"}}\n");
    }

    ObjectStore client(String prefix) {
        return ObjectStore.builder(config(prefix)).environment(env()).build();
    }

    /** Installs a made-up seed of {@code files} small files for the target's current lockfile ({@code salt} varies it). */
    static void seed(SeedCaches seeds, String target, int files, String salt) throws IOException {
        String hash = seeds.plan(target).hash();
        Path d = seeds.stagingDir(target, hash);
        Random r = new Random(salt.hashCode());
        long bytes = 0;
        for (int i = 0; i < files; i++) {
            Path f = d.resolve("archive-v0/pkg" + (i % 7) + "/mod" + i + ".py");
            Files.createDirectories(f.getParent());
            byte[] body = new byte[256 + r.nextInt(4096)];
            r.nextBytes(body);
            String text = "# " + salt + " " + i + "\nVALUE = \"" + java.util.HexFormat.of().formatHex(body) + "\"\n";
            Files.writeString(f, text);
            bytes += text.length();
        }
        // the manifest a warm writes (SeedStore's fields), so the page shows a size and a warm time as for a real one
        Files.writeString(d.resolve("kiln-seed.json"), "{\"target\": \"" + target + "\", \"hash\": \"" + hash
                + "\", \"uv_version\": \"made by the test\", \"warmed_at\": \"" + java.time.Instant.now().minusSeconds(600)
                + "\", \"duration_ms\": 4200, \"bytes\": " + bytes + ", \"files\": " + files + ", \"wheels\": 7}\n");
        Files.writeString(d.resolve(".kiln-seed-hash"), hash + "\n", StandardCharsets.US_ASCII);
        seeds.install(target, hash, d, Cancellation.create());
    }

    /**
     * Writes {@code ws}'s servers.json: npx servers pinned to {@code pinned} (name → package@version), one npx server
     * unpinned ({@code everything}) and one uvx server ({@code time}), the kinds the server-seed pane tells apart.
     */
    static void servers(Path ws, Map<String, String> pinned) throws IOException {
        StringBuilder b = new StringBuilder("{\"mcpServers\": {");
        pinned.forEach((name, spec) -> b.append('"').append(name).append("\": {\"command\": \"npx\", \"args\": [\"-y\", \"")
                .append(spec).append("\"]}, "));
        b.append("\"everything\": {\"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-everything\"]},"
                + " \"time\": {\"command\": \"uvx\", \"args\": [\"mcp-server-time==2026.1.26\"]}}}\n");
        Files.writeString(ws.resolve("servers.json"), b.toString());
    }

    /**
     * Installs a made-up runtime seed (no npm run) of server {@code name} of {@code ws}'s servers.json, at the key its
     * config and this host's node give ({@code salt} varies its content), through {@code ServerSeeds.install}.
     */
    static void serverSeed(Path ws, String name, int files, String salt) throws IOException {
        dev.kiln.core.seed.ServerSeeds seeds = dev.kiln.core.seed.ServerSeeds.of(SeedCaches.of(ws), System.getenv(),
                java.time.Clock.systemUTC());
        dev.kiln.core.startup.ServerConfig s = dev.kiln.core.startup.ServerConfigs.read(ws.resolve("servers.json")).stream()
                .filter(c -> c.name().equals(name)).findFirst().orElseThrow();
        dev.kiln.core.seed.ServerSeeds.Plan plan = seeds.plan(s);
        Path d = seeds.stagingDir(plan);
        dev.kiln.testkit.FakeServerSeed.write(d, name, plan.pkg(), plan.version(), plan.runtimeVersion(), plan.registry(),
                files, salt);
        seeds.install(plan, d, Cancellation.create());
    }

    /** Pushes server {@code name}'s seed of {@code ws} from that host (as another host's Kiln would). */
    static dev.kiln.core.store.Transfer pushServerSeed(ObjectStore store, Path ws, String name) {
        dev.kiln.core.seed.ServerSeeds seeds = dev.kiln.core.seed.ServerSeeds.of(SeedCaches.of(ws), System.getenv(),
                java.time.Clock.systemUTC());
        dev.kiln.core.startup.ServerConfig s = dev.kiln.core.startup.ServerConfigs.read(ws.resolve("servers.json")).stream()
                .filter(c -> c.name().equals(name)).findFirst().orElseThrow();
        return store.pushServerSeed(seeds, seeds.plan(s));
    }

    private static TestStore start(Path dir) throws Exception {
        return new TestStore(WeedServer.start(dir, ACCESS_KEY, SECRET_KEY, 128, endpoint -> {
            try (ObjectStore c = ObjectStore.builder(config(endpoint.toString(), "probe")).environment(env())
                    .retries(1, Duration.ZERO).timeout(Duration.ofSeconds(5)).build()) {
                c.ensureBucket();
                Path f = Files.createTempFile(dir, "probe", ".bin");
                Files.writeString(f, "probe " + System.nanoTime());
                c.pushFile(new dev.kiln.core.store.StoreKey("probe/" + System.nanoTime()), f); // a real write: filer and volume are up
            }
        }));
    }

    void stop() {
        try {
            server.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
