package dev.kiln.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.kiln.testkit.DaemonTest;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Faults a real store will not show on demand: answering 500, answering too slowly. A mock S3 endpoint (a loopback
 * HTTP server) provokes them; a closed port is a store that is down. Retries are bounded, back off, and end in a
 * message that says what was tried and what to do.
 */
@DaemonTest
class StoreFaultTest {
    private static final Map<String, String> ENV = Map.of("AWS_ACCESS_KEY_ID", "id", "AWS_SECRET_ACCESS_KEY", "secret");
    private HttpServer server;
    private final AtomicInteger requests = new AtomicInteger();
    private final List<Duration> sleeps = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() {
        release.countDown();
        if (server != null) {
            server.stop(0);
        }
    }

    private StoreConfig serve(int status, Duration delay) throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.createContext("/", x -> {
            requests.incrementAndGet();
            try {
                if (!delay.isZero()) {
                    release.await(delay.toMillis(), TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] body = "<Error><Code>InternalError</Code><Message>boom</Message></Error>".getBytes();
            x.sendResponseHeaders(status, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        server.start();
        return StoreConfig.of("s3://bucket-1/p", "http://127.0.0.1:" + server.getAddress().getPort(), null);
    }

    private ObjectStore client(StoreConfig c, int attempts, Duration timeout) {
        return ObjectStore.builder(c).environment(ENV).retries(attempts, Duration.ofMillis(40)).timeout(timeout)
                .sleeper(sleeps::add).build();
    }

    @Test
    void storeAnswering500_retriedWithBackoff_thenAClearMessage() throws Exception {
        StoreConfig c = serve(500, Duration.ZERO);
        try (ObjectStore s = client(c, 3, Duration.ofSeconds(5))) {
            assertThatThrownBy(() -> s.manifest(StoreKey.seed("app", "ab".repeat(32))))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("s3://bucket-1/p at http://127.0.0.1:")
                    .hasMessageContaining("failed 3 times")
                    .hasMessageContaining("HTTP 500")
                    .hasMessageContaining("Is the store up");
        }
        assertThat(requests.get()).isEqualTo(3);
        assertThat(sleeps).containsExactly(Duration.ofMillis(40), Duration.ofMillis(80));
    }

    @Test
    void slowStore_timesOutEachAttempt_bounded() throws Exception {
        StoreConfig c = serve(200, Duration.ofSeconds(30));
        try (ObjectStore s = client(c, 2, Duration.ofMillis(300))) {
            assertThatThrownBy(() -> s.manifest(StoreKey.seed("app", "ab".repeat(32))))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("failed 2 times")
                    .hasMessageContaining("imed out");
        }
        assertThat(requests.get()).isEqualTo(2);
    }

    @Test
    void storeDown_connectionRefused_retriedThenNamed() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        StoreConfig c = StoreConfig.of("s3://bucket-1", "http://127.0.0.1:" + port, null);
        try (ObjectStore s = client(c, 2, Duration.ofSeconds(2))) {
            assertThatThrownBy(() -> s.manifest(StoreKey.seed("app", "ab".repeat(32))))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("127.0.0.1:" + port)
                    .hasMessageContaining("failed 2 times")
                    .hasMessageContaining("onnect");
        }
        assertThat(sleeps).hasSize(1);
    }

    @Test
    void forbidden_notRetried_saysHowToGiveCredentials() throws Exception {
        StoreConfig c = serve(403, Duration.ZERO);
        try (ObjectStore s = client(c, 4, Duration.ofSeconds(5))) {
            assertThatThrownBy(() -> s.manifest(StoreKey.seed("app", "ab".repeat(32))))
                    .isInstanceOf(StoreException.class).hasMessageContaining("HTTP 403")
                    .hasMessageContaining("standard AWS chain").hasMessageNotContaining("secret\"");
        }
        assertThat(requests.get()).isEqualTo(1);
    }
}
