package dev.kiln.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real SeaweedFS ({@code weed server}: master, volume, filer and S3 gateway) on free loopback ports, with an S3
 * identity file so requests are signed and checked: the process only, for core's and the console's store fixtures,
 * which prove readiness with a real write through Kiln's own client (a {@link ReadyCheck}). The binary is built once by
 * {@code .ci/seaweedfs} from the Go module proxy and cached under {@code .kiln-test/seaweedfs/}; a test waits for a build
 * in progress (the script's lock), within a bound. Stopped with SIGTERM, then SIGKILL after a bounded wait (weed does not
 * exit promptly on SIGTERM). Telemetry is off: the store makes no request beyond loopback.
 */
public final class WeedServer implements AutoCloseable {
    private static final Duration BUILD_BOUND = Duration.ofMinutes(20);
    private static final Duration START_BOUND = Duration.ofSeconds(90);
    private static final int PORT_ATTEMPTS = 3;

    /** Whether the store serves yet: throws while it does not (the last failure is reported if it never does). */
    @FunctionalInterface
    public interface ReadyCheck {
        void check(URI endpoint) throws Exception;
    }

    private final Process process;
    private final Path data;
    private final int s3Port;
    private final Path log;

    private WeedServer(Process process, Path data, int s3Port, Path log) {
        this.process = process;
        this.data = data;
        this.s3Port = s3Port;
        this.log = log;
    }

    /** The weed binary: built (or waited for) by {@code .ci/seaweedfs}, bounded; a failed build names what it needs. */
    public static Path binary() throws Exception {
        String root = System.getProperty("kiln.project.root");
        Path project = root != null ? Path.of(root) : Path.of("").toAbsolutePath().getParent();
        Path log = Files.createTempFile("kiln-seaweedfs-build-", ".log");
        Process p = new ProcessBuilder("bash", project.resolve(".ci/seaweedfs").toString()).redirectError(log.toFile())
                .start();
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
            throw new IllegalStateException(".ci/seaweedfs failed (" + p.exitValue() + "); the store tests need the Go"
                    + " toolchain and the Go module proxy:\n" + Files.readString(log));
        }
        Files.deleteIfExists(log);
        return Path.of(out.lines().reduce((a, b) -> b).orElseThrow());
    }

    /**
     * Starts a store in {@code dir} (created) whose one identity has these keys, volumes of {@code volumeSizeLimitMb};
     * returns once {@code ready} passes against its S3 endpoint.
     */
    public static WeedServer start(Path dir, String accessKey, String secretKey, int volumeSizeLimitMb, ReadyCheck ready)
            throws Exception {
        Path weed = binary();
        Files.createDirectories(dir);
        Path data = Files.createDirectories(dir.resolve("data"));
        Path config = dir.resolve("s3.json");
        Files.writeString(config, "{\"identities\": [{\"name\": \"kiln\", \"credentials\": [{\"accessKey\": \""
                + accessKey + "\", \"secretKey\": \"" + secretKey + "\"}], \"actions\": [\"Admin\", \"Read\","
                + " \"Write\", \"List\", \"Tagging\"]}]}\n");
        // The ports are free when chosen but released before weed binds them, so another process on this machine
        // (a parallel test fork) can take one in between: weed then exits on "address already in use", and the store
        // is started again on fresh ports, in a fresh data directory, a bounded number of times.
        for (int attempt = 1; ; attempt++) {
            int[] ports = freePorts(8);
            Path log = dir.resolve("weed.log");
            Process p = new ProcessBuilder(weed.toString(), "server", "-dir=" + data, "-ip=127.0.0.1",
                    "-ip.bind=127.0.0.1", "-master.port=" + ports[0], "-master.port.grpc=" + ports[1],
                    "-volume.port=" + ports[2], "-volume.port.grpc=" + ports[3], "-filer", "-filer.port=" + ports[4],
                    "-filer.port.grpc=" + ports[5], "-s3", "-s3.port=" + ports[6], "-s3.port.grpc=" + ports[7],
                    "-s3.port.iceberg=0", "-s3.port.lance=0", "-s3.config=" + config, "-master.telemetry=false",
                    "-master.telemetry.url=http://127.0.0.1:1/", "-master.volumeSizeLimitMB=" + volumeSizeLimitMb,
                    "-volume.max=0")
                    .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            WeedServer s = new WeedServer(p, data, ports[6], log);
            try {
                s.await(ready);
                return s;
            } catch (Exception | Error e) {
                s.close();
                if (attempt >= PORT_ATTEMPTS || !s.tail().contains("address already in use")) {
                    throw e;
                }
                deleteTree(data);
                Files.createDirectories(data);
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (var walk = Files.walk(root)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private void await(ReadyCheck ready) throws Exception {
        long deadline = System.nanoTime() + START_BOUND.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("weed server exited (" + process.exitValue() + "):\n" + tail());
            }
            try {
                ready.check(endpoint());
                return;
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("weed server did not serve S3 within " + START_BOUND.toSeconds() + " s (last: "
                + last + "):\n" + tail());
    }

    /** The last 30 lines of weed's log, for a failure message. */
    public String tail() {
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
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
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

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Where the volume servers keep their {@code .dat} files. */
    public Path dataDir() {
        return data;
    }

    @Override
    public void close() throws InterruptedException {
        if (Boolean.getBoolean("kiln.test.weedlog")) {
            System.err.println("weed log tail:\n" + tail());
        }
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        // SIGKILL at once: on SIGTERM weed's volume server waits its preStopSeconds (10 s) before it exits, which every
        // store test paid at its end; a test store's data is thrown away after, so a graceful stop keeps nothing.
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        tree.forEach(ProcessHandle::destroyForcibly);
    }
}
