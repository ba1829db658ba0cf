package dev.kiln.app.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.CopyReport;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.store.ObjectStore;
import dev.kiln.core.store.StoreConfig;
import dev.kiln.core.store.Transfer;
import dev.kiln.core.telemetry.Figures;
import dev.kiln.core.workspace.FileTrees;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code kiln bench store}: a real warmed seed (the bench target, ~3,200 files from PyPI) through a real SeaweedFS on
 * loopback. {@code cold_warm_ms} is the warm itself (uv with an empty cache against the index); {@code push_ms} packs
 * and uploads it; {@code pull_ms} is a second host's pull (download, SHA-256 check, unpack, checks, swap) into a fresh
 * workspace; {@code local_copy_ms} is {@code kiln seed copy} of the same seed on one host. Pulls and copies alternate,
 * medians of the rounds; beside the shipped pull (16 writer threads), the one-thread pull and the CPUs' writers (the
 * default before) in the same rounds. Targets: pull ≤ 0.2 × cold warm, pull ≤ 2 × local copy.
 */
final class StoreBenchmark {
    static final double TARGET_OVER_COLD_WARM = 0.2;
    static final double TARGET_OVER_LOCAL_COPY = 2.0;
    /** The unpack writers the store's default was before it was a fixed 16: the CPUs, at most 4. */
    private static final int CPU_WRITERS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));

    private final int rounds;
    private final Path weed;
    private String lastPull = ""; // the last pull's own account of its phases

    StoreBenchmark(int rounds, Path weed) {
        if (rounds < 1) {
            throw new CliException("--rounds must be at least 1");
        }
        this.rounds = rounds;
        this.weed = weed;
    }

    ObjectNode run() throws Exception {
        Path scratch = Files.createTempDirectory("kiln-bench-store-");
        try (Weed fs = Weed.start(weed, scratch.resolve("seaweedfs"))) {
            StoreConfig config = StoreConfig.of("s3://kiln-bench/seeds", fs.endpoint().toString(), null);
            Path wsA = SeedBenchmark.benchWorkspace(scratch.resolve("host-a"));
            SeedCaches a = SeedCaches.of(wsA);
            WarmResult warm = a.warm("bench", Cancellation.create());
            if (!warm.outcome().isSuccess()) {
                throw new CliException("cannot bench: the warm of 'bench' " + warm.outcome().label() + ": " + warm.message());
            }
            try (ObjectStore store = ObjectStore.builder(config).environment(fs.env()).build();
                 ObjectStore serial = ObjectStore.builder(config).environment(fs.env()).unpackWriters(0).build();
                 ObjectStore cpuWriters = ObjectStore.builder(config).environment(fs.env())
                         .unpackWriters(CPU_WRITERS).build()) {
                store.ensureBucket();
                Transfer push = store.pushSeed(a, "bench");
                long[] pull = new long[rounds];
                long[] pullSerial = new long[rounds];
                long[] pullCpu = new long[rounds];
                long[] copy = new long[rounds];
                CopyReport lastCopy = null;
                String breakdown = "";
                // one untimed pull of each kind and a copy first (JIT, page cache)
                pullInto(store, scratch.resolve("host-warmup"));
                pullInto(serial, scratch.resolve("host-warmup-serial"));
                pullInto(cpuWriters, scratch.resolve("host-warmup-cpu"));
                SeedCaches.copyInto(a.seedDir("bench"), scratch.resolve("copy-warmup"), Clock.systemUTC());
                for (int i = 0; i < rounds; i++) {
                    boolean copyFirst = i % 2 == 1;
                    if (copyFirst) {
                        long t0 = System.nanoTime();
                        lastCopy = SeedCaches.copyInto(a.seedDir("bench"), scratch.resolve("copy-" + i), Clock.systemUTC());
                        copy[i] = System.nanoTime() - t0;
                    }
                    // the pull as shipped (files made by writer threads while the object arrives) beside the one-thread
                    // pull it replaced, in the same round: the before/after under the same load
                    // and the writers the CPUs gave before (at most 4: 2 here), the before of the 16 writers
                    if (copyFirst) {
                        pullSerial[i] = pullInto(serial, scratch.resolve("host-s" + i));
                        pullCpu[i] = pullInto(cpuWriters, scratch.resolve("host-c" + i));
                        pull[i] = pullInto(store, scratch.resolve("host-b" + i));
                        breakdown = lastPull;
                    } else {
                        pull[i] = pullInto(store, scratch.resolve("host-b" + i));
                        breakdown = lastPull;
                        pullCpu[i] = pullInto(cpuWriters, scratch.resolve("host-c" + i));
                        pullSerial[i] = pullInto(serial, scratch.resolve("host-s" + i));
                    }
                    if (!copyFirst) {
                        long t0 = System.nanoTime();
                        lastCopy = SeedCaches.copyInto(a.seedDir("bench"), scratch.resolve("copy-" + i), Clock.systemUTC());
                        copy[i] = System.nanoTime() - t0;
                    }
                    if (!lastCopy.copied()) {
                        throw new CliException("copy failed: " + lastCopy.problem().orElse("?"));
                    }
                }
                double pullMs = Figures.round(Figures.medianMillis(pull), 1);
                double pullSerialMs = Figures.round(Figures.medianMillis(pullSerial), 1);
                double copyMs = Figures.round(Figures.medianMillis(copy), 1);
                double coldMs = warm.duration().toMillis();
                ObjectNode o = Json.object();
                o.put("benchmark", "store");
                o.put("push_ms", push.duration().toMillis());
                o.put("pull_ms", pullMs);
                o.put("local_copy_ms", copyMs);
                o.put("cold_warm_ms", coldMs);
                o.put("seed_bytes", push.manifest().treeBytes());
                o.put("object_bytes", push.manifest().bytes());
                o.put("files", push.manifest().files());
                o.put("rounds", rounds);
                o.put("pull_over_cold_warm", Figures.round(pullMs / coldMs, 3));
                o.put("pull_over_local_copy", Figures.round(pullMs / copyMs, 3));
                o.put("pull_one_thread_ms", pullSerialMs);
                o.put("pull_one_thread_over_local_copy", Figures.round(pullSerialMs / copyMs, 3));
                double pullCpuMs = Figures.round(Figures.medianMillis(pullCpu), 1);
                o.put("pull_cpu_writers", CPU_WRITERS);
                o.put("pull_cpu_writers_ms", pullCpuMs);
                o.put("pull_over_pull_cpu_writers", Figures.round(pullMs / pullCpuMs, 3));
                o.put("pull_breakdown", breakdown);
                o.put("load_average", loadAverage());
                o.put("within_target", pullMs / coldMs <= TARGET_OVER_COLD_WARM && pullMs / copyMs <= TARGET_OVER_LOCAL_COPY);
                return o;
            }
        } finally {
            FileTrees.delete(scratch);
        }
    }

    /** The one-minute load average the run saw at its end (/proc/loadavg), -1 where there is none. */
    private static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** A fresh host's pull of the bench seed: its own workspace, the store's object, the swap. */
    private long pullInto(ObjectStore store, Path ws) throws IOException {
        SeedCaches b = SeedCaches.of(SeedBenchmark.benchWorkspace(ws));
        long t0 = System.nanoTime();
        Transfer t = store.pullSeed(b, "bench", Cancellation.create());
        long took = System.nanoTime() - t0;
        if (t.outcome() != Transfer.Outcome.PULLED || !b.seeds().get(0).current()) {
            throw new CliException("the pull did not install a current seed: " + t.message());
        }
        lastPull = t.message();
        return took;
    }

    /** The weed binary: {@code --weed}, else {@code KILN_WEED}, else what {@code .ci/seaweedfs} cached under the checkout. */
    static Path locate(Path given) throws IOException {
        if (given != null) {
            return given;
        }
        String env = System.getenv("KILN_WEED");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path cache = d.resolve(".kiln-test/seaweedfs");
            if (Files.isDirectory(cache)) {
                try (DirectoryStream<Path> s = Files.newDirectoryStream(cache, "weed-*")) {
                    for (Path p : s) {
                        if (Files.isExecutable(p)) {
                            return p;
                        }
                    }
                }
            }
        }
        throw new CliException("no SeaweedFS weed binary: build it with .ci/seaweedfs (needs Go and the Go module proxy),"
                + " then pass --weed PATH or set KILN_WEED");
    }

    /**
     * A SeaweedFS for the bench: free loopback ports, an identity file with a secret made for this run (given to the
     * client through its injected environment, never this process's), telemetry off; SIGTERM then SIGKILL.
     */
    static final class Weed implements AutoCloseable {
        private final Process process;
        private final int s3Port;
        private final String key;
        private final String secret;

        private Weed(Process process, int s3Port, String key, String secret) {
            this.process = process;
            this.s3Port = s3Port;
            this.key = key;
            this.secret = secret;
        }

        static Weed start(Path weed, Path dir) throws Exception {
            Files.createDirectories(dir.resolve("data"));
            byte[] r = new byte[20];
            new SecureRandom().nextBytes(r);
            String key = "KILNBENCH" + HexFormat.of().formatHex(r, 0, 6).toUpperCase(java.util.Locale.ROOT);
            String secret = HexFormat.of().formatHex(r);
            Path config = dir.resolve("s3.json");
            Files.writeString(config, "{\"identities\": [{\"name\": \"kiln\", \"credentials\": [{\"accessKey\": \"" + key
                    + "\", \"secretKey\": \"" + secret + "\"}], \"actions\": [\"Admin\", \"Read\", \"Write\", \"List\"]}]}\n");
            Files.setPosixFilePermissions(config, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            int[] p = new int[8];
            List<ServerSocket> held = new ArrayList<>();
            try {
                for (int i = 0; i < p.length; i++) {
                    ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                    held.add(s);
                    p[i] = s.getLocalPort();
                }
            } finally {
                for (ServerSocket s : held) {
                    s.close();
                }
            }
            Process proc = new ProcessBuilder(weed.toString(), "server", "-dir=" + dir.resolve("data"), "-ip=127.0.0.1",
                    "-ip.bind=127.0.0.1", "-master.port=" + p[0], "-master.port.grpc=" + p[1], "-volume.port=" + p[2],
                    "-volume.port.grpc=" + p[3], "-filer", "-filer.port=" + p[4], "-filer.port.grpc=" + p[5], "-s3",
                    "-s3.port=" + p[6], "-s3.port.grpc=" + p[7], "-s3.port.iceberg=0", "-s3.port.lance=0",
                    "-s3.config=" + config, "-master.telemetry=false", "-master.telemetry.url=http://127.0.0.1:1/",
                    "-master.volumeSizeLimitMB=512")
                    .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("weed.log").toFile()).start();
            Weed w = new Weed(proc, p[6], key, secret);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            StoreConfig probe = StoreConfig.of("s3://kiln-bench", w.endpoint().toString(), null);
            while (true) {
                if (!proc.isAlive()) {
                    throw new CliException("weed server exited (" + proc.exitValue() + "); see " + dir.resolve("weed.log"));
                }
                try (ObjectStore s = ObjectStore.builder(probe).environment(w.env()).retries(1, Duration.ZERO)
                        .timeout(Duration.ofSeconds(5)).build()) {
                    s.ensureBucket();
                    Path f = Files.writeString(dir.resolve("probe"), "probe");
                    s.pushFile(new dev.kiln.core.store.StoreKey("probe/p" + System.nanoTime()), f);
                    return w;
                } catch (RuntimeException e) {
                    if (System.nanoTime() > deadline) {
                        w.close();
                        throw new CliException("weed server did not serve S3 within 120 s: " + e.getMessage());
                    }
                    Thread.sleep(250);
                }
            }
        }

        URI endpoint() {
            return URI.create("http://127.0.0.1:" + s3Port);
        }

        Map<String, String> env() {
            return Map.of("AWS_ACCESS_KEY_ID", key, "AWS_SECRET_ACCESS_KEY", secret);
        }

        @Override
        public void close() throws InterruptedException {
            List<ProcessHandle> tree = process.descendants().toList();
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            tree.forEach(ProcessHandle::destroyForcibly);
        }
    }
}
