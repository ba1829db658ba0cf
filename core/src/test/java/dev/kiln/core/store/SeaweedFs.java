package dev.kiln.core.store;

import dev.kiln.testkit.WeedServer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The real SeaweedFS of core's store tests: testkit's {@link WeedServer} with this module's identity, ready once a real
 * write through {@link ObjectStore} lands (the gateway answers before the filer and a volume are up).
 */
public final class SeaweedFs implements AutoCloseable {
    public static final String ACCESS_KEY = "KILNTESTACCESSKEY";
    public static final String SECRET_KEY = "kiln-test-secret-key-not-for-production";

    /**
     * Tests share one bucket (each bucket is a SeaweedFS collection that grows volumes of its own) and tell their
     * objects apart by prefix.
     */
    public static final String BUCKET = "kiln-test";

    private final WeedServer server;
    private final boolean shared;

    /** The test JVM's store, once started; guarded by {@code SeaweedFs.class}. */
    private static SeaweedFs jvmStore;

    private SeaweedFs(WeedServer server, boolean shared) {
        this.server = server;
        this.shared = shared;
    }

    /**
     * The store this test JVM shares between its classes, started by the first that asks and stopped when the JVM
     * exits; {@link #close} leaves it running. A start costs about 10 s before SeaweedFS takes a conditional write (its
     * filer's membership check, then the lock ring), which every store class paid again in CI; classes tell their
     * objects apart by prefix ({@link #config}), and one whose test needs the store itself gone starts its own.
     */
    public static synchronized SeaweedFs shared() throws Exception {
        if (jvmStore == null || !jvmStore.server.isAlive()) {
            Path dir = Files.createTempDirectory("kiln-seaweedfs-");
            SeaweedFs s = new SeaweedFs(open(dir), true);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    s.server.close();
                    dev.kiln.core.workspace.FileTrees.delete(dir);
                } catch (InterruptedException | java.io.IOException | RuntimeException e) {
                    // the JVM is exiting: nothing more to do
                }
            }, "kiln-test-store-stop"));
            jvmStore = s;
        }
        return jvmStore;
    }

    /** Starts a store in a fresh directory under {@code parent}; returns once it serves S3 (bucket create and a write). */
    public static SeaweedFs start(Path parent) throws Exception {
        return new SeaweedFs(open(parent), false);
    }

    private static WeedServer open(Path parent) throws Exception {
        return WeedServer.start(parent.resolve("seaweedfs"), ACCESS_KEY, SECRET_KEY, 256,
                endpoint -> probeWrite(config(endpoint, BUCKET)));
    }

    private static void probeWrite(StoreConfig config) throws Exception {
        try (ObjectStore s = ObjectStore.builder(config).environment(env()).retries(1, Duration.ZERO)
                .timeout(Duration.ofSeconds(5)).build()) {
            s.ensureBucket();
            Path f = Files.createTempFile("kiln-seaweed-probe-", ".bin");
            Files.writeString(f, "probe");
            try {
                s.pushFile(new StoreKey("probe/" + System.nanoTime()), f);
            } finally {
                Files.deleteIfExists(f);
            }
        }
    }

    private static StoreConfig config(URI endpoint, String prefix) {
        return StoreConfig.of("s3://" + BUCKET + "/" + prefix, endpoint.toString(), "us-east-1");
    }

    public URI endpoint() {
        return server.endpoint();
    }

    /** A store config under {@code prefix} of the shared bucket. */
    public StoreConfig config(String prefix) {
        return config(endpoint(), prefix);
    }

    /** The environment the AWS chain reads the test identity from. */
    public static Map<String, String> env() {
        return Map.of("AWS_ACCESS_KEY_ID", ACCESS_KEY, "AWS_SECRET_ACCESS_KEY", SECRET_KEY);
    }

    /** Where the volume servers keep their {@code .dat} files. */
    public Path dataDir() {
        return server.dataDir();
    }

    /** Stops a store of its own; the shared one runs on until the JVM exits. */
    @Override
    public void close() throws InterruptedException {
        if (!shared) {
            server.close();
        }
    }
}
