package dev.kiln.ui.seeds;

import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.store.ObjectStore;
import dev.kiln.core.store.StoreConfig;
import dev.kiln.core.store.StoreException;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * A real SeaweedFS for the console's store tests: {@code weed server} (built once by {@code .ci/seaweedfs}, cached
 * under {@code .kiln-test/seaweedfs/}) on free loopback ports with an S3 identity, one per test JVM (started on first
 * use, stopped at exit), and seeds made directly (no uv) for targets of a workspace. Core's tests have their own
 * ({@code dev.kiln.core.store.SeaweedFs}); a test jar of core would split its packages on this module's path.
 */
final class TestStore {
    static final String ACCESS_KEY = "KILNUITESTACCESSKEY";
    static final String SECRET_KEY = "kiln-ui-test-secret-not-for-production";
    static final String BUCKET = "kiln-ui-test";
    private static TestStore shared;

    private final Process process;
    private final int s3Port;

    private TestStore(Process process, int s3Port) {
        this.process = process;
        this.s3Port = s3Port;
    }

    /** The JVM's store, started on first use (within bounds), its bucket created. */
    static synchronized TestStore shared() throws Exception {
        if (shared == null || !shared.process.isAlive()) {
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
        return "http://127.0.0.1:" + s3Port;
    }

    StoreConfig config(String prefix) {
        return StoreConfig.of("s3://" + BUCKET + "/" + prefix, endpoint(), "us-east-1");
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

    private static Path binary() throws Exception {
        String root = System.getProperty("kiln.project.root");
        Path project = root != null ? Path.of(root) : Path.of("").toAbsolutePath().getParent();
        Process p = new ProcessBuilder("bash", project.resolve(".ci/seaweedfs").toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(20, TimeUnit.MINUTES) || p.exitValue() != 0) {
            org.junit.jupiter.api.Assumptions.abort(".ci/seaweedfs gave no weed binary (needs Go and the Go module proxy)");
        }
        return Path.of(out.lines().reduce((a, b) -> b).orElseThrow());
    }

    private static TestStore start(Path dir) throws Exception {
        Path weed = binary();
        Path data = Files.createDirectories(dir.resolve("data"));
        Path config = dir.resolve("s3.json");
        Files.writeString(config, "{\"identities\": [{\"name\": \"kiln\", \"credentials\": [{\"accessKey\": \""
                + ACCESS_KEY + "\", \"secretKey\": \"" + SECRET_KEY + "\"}], \"actions\": [\"Admin\", \"Read\","
                + " \"Write\", \"List\", \"Tagging\"]}]}\n");
        int[] ports = freePorts(8);
        Path log = dir.resolve("weed.log");
        Process p = new ProcessBuilder(weed.toString(), "server", "-dir=" + data, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                "-master.port=" + ports[0], "-master.port.grpc=" + ports[1], "-volume.port=" + ports[2],
                "-volume.port.grpc=" + ports[3], "-filer", "-filer.port=" + ports[4], "-filer.port.grpc=" + ports[5],
                "-s3", "-s3.port=" + ports[6], "-s3.port.grpc=" + ports[7], "-s3.port.iceberg=0", "-s3.port.lance=0",
                "-s3.config=" + config, "-master.telemetry=false", "-master.telemetry.url=http://127.0.0.1:1/",
                "-master.volumeSizeLimitMB=128", "-volume.max=0")
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        TestStore s = new TestStore(p, ports[6]);
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        StoreException last = null;
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException("weed server exited (" + p.exitValue() + "); log " + log);
            }
            try (ObjectStore c = ObjectStore.builder(s.config("probe")).environment(env()).retries(1, Duration.ZERO)
                    .timeout(Duration.ofSeconds(5)).build()) {
                c.ensureBucket();
                Path f = Files.createTempFile(dir, "probe", ".bin");
                Files.writeString(f, "probe " + System.nanoTime());
                c.pushFile(new dev.kiln.core.store.StoreKey("probe/" + System.nanoTime()), f); // a real write: filer and volume are up
                return s;
            } catch (StoreException e) {
                last = e;
            }
            Thread.sleep(250);
        }
        s.stop();
        throw new IllegalStateException("weed server did not serve S3 within 90 s (last: " + last + "); log " + log);
    }

    private static int[] freePorts(int n) throws IOException {
        int[] ports = new int[n];
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                held.add(s);
                ports[i] = s.getLocalPort();
            }
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
        return ports;
    }

    void stop() {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        tree.forEach(ProcessHandle::destroyForcibly);
    }
}
