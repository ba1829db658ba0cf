package dev.kiln.core.seed;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * A loopback package host serving one real wheel ({@code kiln-slow 1.0}) that stalls mid-body until released, and
 * a 404 for a wheel that does not exist: the faults a real index shows (a hung download, a lock naming a file that
 * is gone), on demand. uv talks to it for real.
 */
public final class SlowWheelServer implements AutoCloseable {
    static final String WHEEL = "kiln_slow-1.0-py3-none-any.whl";
    private final HttpServer server;
    private final byte[] wheel;
    public final CountDownLatch requested = new CountDownLatch(1);
    public final CountDownLatch release = new CountDownLatch(1);

    public SlowWheelServer() throws IOException {
        wheel = buildWheel();
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/files/" + WHEEL, ex -> {
            requested.countDown();
            try (OutputStream out = ex.getResponseBody()) {
                ex.sendResponseHeaders(200, wheel.length);
                out.write(wheel, 0, 64 * 1024);
                out.flush();
                release.await(120, TimeUnit.SECONDS);
                out.write(wheel, 64 * 1024, wheel.length - 64 * 1024);
            } catch (IOException | InterruptedException e) {
                // The client was killed mid-download: that is the point.
            }
        });
        server.createContext("/", ex -> {
            ex.sendResponseHeaders(404, -1);
            ex.close();
        });
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "slow-wheel-server");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    String base() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Writes a pyproject.toml and uv.lock into {@code dir} that lock {@code kiln-slow} from this host. */
    public void writeLock(Path dir, boolean missingWheel) throws IOException {
        String file = missingWheel ? "kiln_slow-9.9-py3-none-any.whl" : WHEEL;
        Files.writeString(dir.resolve("pyproject.toml"), """
                [project]
                name = "kiln-fixture-slow"
                version = "0.1.0"
                requires-python = ">=3.9"
                dependencies = ["kiln-slow==1.0"]
                """);
        Files.writeString(dir.resolve("uv.lock"), """
                version = 1
                revision = 3
                requires-python = ">=3.9"

                [[package]]
                name = "kiln-fixture-slow"
                version = "0.1.0"
                source = { virtual = "." }
                dependencies = [
                    { name = "kiln-slow" },
                ]

                [package.metadata]
                requires-dist = [{ name = "kiln-slow", specifier = "==1.0" }]

                [[package]]
                name = "kiln-slow"
                version = "1.0"
                source = { registry = "%1$s/simple" }
                wheels = [
                    { url = "%1$s/files/%2$s", hash = "sha256:%3$s", size = %4$d },
                ]
                """.formatted(base(), file, sha256Hex(wheel), wheel.length));
    }

    private static byte[] buildWheel() throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        byte[] data = new byte[512 * 1024];
        new Random(7).nextBytes(data);
        files.put("kiln_slow/__init__.py", "VALUE = 1\n".getBytes(StandardCharsets.UTF_8));
        files.put("kiln_slow/blob.bin", data);
        files.put("kiln_slow-1.0.dist-info/METADATA",
                "Metadata-Version: 2.1\nName: kiln-slow\nVersion: 1.0\n".getBytes(StandardCharsets.UTF_8));
        files.put("kiln_slow-1.0.dist-info/WHEEL",
                "Wheel-Version: 1.0\nGenerator: kiln-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
                        .getBytes(StandardCharsets.UTF_8));
        StringBuilder record = new StringBuilder();
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            record.append(f.getKey()).append(",sha256=")
                    .append(Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(f.getValue())))
                    .append(',').append(f.getValue().length).append('\n');
        }
        record.append("kiln_slow-1.0.dist-info/RECORD,,\n");
        files.put("kiln_slow-1.0.dist-info/RECORD", record.toString().getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            // Stored, so the wheel is as big as its random payload and the stall lands mid-body.
            zip.setLevel(0);
            for (Map.Entry<String, byte[]> f : files.entrySet()) {
                zip.putNextEntry(new ZipEntry(f.getKey()));
                zip.write(f.getValue());
                zip.closeEntry();
            }
        }
        return bytes.toByteArray();
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String sha256Hex(byte[] b) {
        return HexFormat.of().formatHex(sha256(b));
    }

    @Override
    public void close() {
        release.countDown();
        server.stop(0);
    }
}
