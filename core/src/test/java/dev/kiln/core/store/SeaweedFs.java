package dev.kiln.core.store;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real SeaweedFS ({@code weed server} with master, volume, filer and S3 gateway) on free loopback ports, with an S3
 * identity file so requests are signed and checked. The binary is built once by {@code .ci/seaweedfs} from the Go module
 * proxy and cached under {@code .kiln-test/seaweedfs/}; a test waits for a build in progress (the script's lock),
 * within a bound. Stopped with SIGTERM, then SIGKILL after a bounded wait (weed does not exit promptly on SIGTERM).
 * Telemetry is off: the test store makes no request beyond loopback.
 */
public final class SeaweedFs implements AutoCloseable {
    public static final String ACCESS_KEY = "KILNTESTACCESSKEY";
    public static final String SECRET_KEY = "kiln-test-secret-key-not-for-production";
    private static final Duration BUILD_BOUND = Duration.ofMinutes(20);
    private static final Duration START_BOUND = Duration.ofSeconds(90);

    private final Process process;
    private final Path dir;
    private final int s3Port;
    private final Path log;

    private SeaweedFs(Process process, Path dir, int s3Port, Path log) {
        this.process = process;
        this.dir = dir;
        this.s3Port = s3Port;
        this.log = log;
    }

    static Path projectRoot() {
        String root = System.getProperty("kiln.project.root");
        return root != null ? Path.of(root) : Path.of("").toAbsolutePath().getParent();
    }

    /** The weed binary: built (or waited for) by {@code .ci/seaweedfs}, bounded. */
    public static Path binary() throws Exception {
        Path script = projectRoot().resolve(".ci/seaweedfs");
        Path log = Files.createTempFile("kiln-seaweedfs-build-", ".log");
        Process p = new ProcessBuilder("bash", script.toString()).redirectErrorStream(false)
                .redirectError(log.toFile()).start();
        String out;
        try {
            if (!p.waitFor(BUILD_BOUND.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(".ci/seaweedfs did not finish within " + BUILD_BOUND.toMinutes()
                        + " min; log: " + log);
            }
            out = new String(p.getInputStream().readAllBytes()).strip();
        } finally {
            p.getInputStream().close();
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(".ci/seaweedfs failed (" + p.exitValue() + "); these tests need the Go"
                    + " toolchain and the Go module proxy:\n" + Files.readString(log));
        }
        Files.deleteIfExists(log);
        return Path.of(out.lines().reduce((a, b) -> b).orElseThrow());
    }

    /** Starts a store in a fresh directory under {@code parent}; returns once it serves S3 (bucket create works). */
    public static SeaweedFs start(Path parent) throws Exception {
        Path weed = binary();
        Path dir = Files.createDirectories(parent.resolve("seaweedfs"));
        Path data = Files.createDirectories(dir.resolve("data"));
        Path config = dir.resolve("s3.json");
        Files.writeString(config, "{\"identities\": [{\"name\": \"kiln\", \"credentials\": [{\"accessKey\": \""
                + ACCESS_KEY + "\", \"secretKey\": \"" + SECRET_KEY + "\"}], \"actions\": [\"Admin\", \"Read\","
                + " \"Write\", \"List\", \"Tagging\"]}]}\n");
        int[] ports = freePorts(8);
        List<String> cmd = new ArrayList<>(List.of(weed.toString(), "server", "-dir=" + data, "-ip=127.0.0.1",
                "-ip.bind=127.0.0.1", "-master.port=" + ports[0], "-master.port.grpc=" + ports[1],
                "-volume.port=" + ports[2], "-volume.port.grpc=" + ports[3], "-filer", "-filer.port=" + ports[4],
                "-filer.port.grpc=" + ports[5], "-s3", "-s3.port=" + ports[6], "-s3.port.grpc=" + ports[7],
                "-s3.port.iceberg=0", "-s3.port.lance=0", "-s3.config=" + config, "-master.telemetry=false",
                "-master.telemetry.url=http://127.0.0.1:1/", "-master.volumeSizeLimitMB=256", "-volume.max=0"));
        Path log = dir.resolve("weed.log");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        SeaweedFs fs = new SeaweedFs(p, data, ports[6], log);
        try {
            fs.awaitS3();
        } catch (Exception | Error e) {
            fs.close();
            throw e;
        }
        return fs;
    }

    private void awaitS3() throws Exception {
        long deadline = System.nanoTime() + START_BOUND.toNanos();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("weed server exited (" + process.exitValue() + "):\n" + tail());
            }
            try {
                // Any answer means the gateway listens; 403 (unsigned) is the expected one.
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(endpoint()).timeout(Duration.ofSeconds(2)).GET()
                        .build(), HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() > 0) {
                    // The gateway is up; the filer and a volume may not be: a real write proves they are.
                    try (ObjectStore s = ObjectStore.builder(config(BUCKET)).environment(env()).retries(1, Duration.ZERO)
                            .timeout(Duration.ofSeconds(5)).build()) {
                        s.ensureBucket();
                        Path f = Files.createTempFile("kiln-seaweed-probe-", ".bin");
                        Files.writeString(f, "probe");
                        try {
                            s.pushFile(new StoreKey("probe/" + System.nanoTime()), f);
                        } finally {
                            Files.deleteIfExists(f);
                        }
                        return;
                    }
                }
            } catch (IOException | StoreException e) {
                last = e;
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("weed server did not serve S3 within " + START_BOUND.toSeconds() + " s (last: "
                + last + "):\n" + tail());
    }

    String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
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

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + s3Port);
    }

    /**
     * Tests share one bucket (each bucket is a SeaweedFS collection that grows volumes of its own) and tell their
     * objects apart by prefix.
     */
    public static final String BUCKET = "kiln-test";

    /** A store config under {@code prefix} of the shared bucket. */
    public StoreConfig config(String prefix) {
        return StoreConfig.of("s3://" + BUCKET + "/" + prefix, endpoint().toString(), "us-east-1");
    }

    /** The environment the AWS chain reads the test identity from. */
    public static Map<String, String> env() {
        return Map.of("AWS_ACCESS_KEY_ID", ACCESS_KEY, "AWS_SECRET_ACCESS_KEY", SECRET_KEY);
    }

    /** Where the volume servers keep their {@code .dat} files. */
    public Path dataDir() {
        return dir;
    }

    @Override
    public void close() throws InterruptedException {
        if (Boolean.getBoolean("kiln.test.weedlog")) {
            System.err.println("weed log tail:\n" + tail());
        }
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        process.destroy(); // SIGTERM
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        tree.forEach(ProcessHandle::destroyForcibly);
    }
}
