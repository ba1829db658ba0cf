package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.serve.wire.ApiToken;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.KernelTest;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import dev.kiln.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19, defect 8: idle and half-open clients must not exhaust the daemon. Real sockets on loopback against a
 * real {@link ApiServer}; every wait is bounded by a generous limit, none asserts a speed.
 */
@DaemonTest @KernelTest
class ApiServerExhaustionTest {
    private static final ObjectMapper M = new ObjectMapper();
    private static final Duration LIMIT = Duration.ofSeconds(25);

    @TempDir
    Path dir;
    private final AtomicReference<Published> current = new AtomicReference<>();
    private final List<Socket> sockets = new ArrayList<>();
    /** Diagnoses the backend ran: each is a read-only projection of the workspace in a real daemon. */
    private final java.util.concurrent.atomic.AtomicInteger diagnoses = new java.util.concurrent.atomic.AtomicInteger();
    private ApiServer server;

    private ApiServer start(UnaryOperator<ApiServer.Builder> config) throws Exception {
        ApiToken token = ApiToken.writeNew(dir.resolve("observer/api-token"));
        server = config.apply(ApiServer.builder(new ApiServer.Backend() {
            @Override
            public Published current() {
                return current.get();
            }

            @Override
            public JsonNode metrics() {
                return M.createObjectNode();
            }

            @Override
            public JsonNode project() {
                return M.createObjectNode();
            }

            @Override
            public JsonNode health() {
                return M.createObjectNode().put("api_version", Wire.API_VERSION);
            }

            @Override
            public dev.kiln.core.engine.WorkspaceActions actions() {
                throw new UnsupportedOperationException("no workspace behind this test API");
            }

            @Override
            public JsonNode doctor() {
                return M.createObjectNode().put("verdict", "diagnosis " + diagnoses.incrementAndGet());
            }

            @Override
            public JsonNode heal(boolean dryRun, String idempotencyKey) {
                return M.createObjectNode();
            }
        }, token).port(0)).build().start();
        return server;
    }

    @AfterEach
    void stop() {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing a test socket
            }
        }
        if (server != null) {
            server.close();
        }
    }

    private void publish(long revision, String title) throws Exception {
        ObjectNode doc = M.createObjectNode().put("revision", revision);
        doc.putArray("leaves").addObject().put("leaf_id", "area/leaf").put("title", title);
        doc.putArray("failures");
        doc.putObject("meta");
        Published p = new Published(revision, M.writeValueAsBytes(doc));
        current.set(p);
        server.publish(p);
    }

    private Socket open(int receiveBuffer) throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        if (receiveBuffer > 0) {
            s.setReceiveBufferSize(receiveBuffer); // before connect, so the advertised window is small
        }
        URI u = server.url();
        s.connect(new InetSocketAddress(u.getHost(), u.getPort()), 10_000);
        return s;
    }

    private static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
    }

    private static String statusLine(Socket s) throws IOException {
        s.setSoTimeout(20_000);
        InputStream in = s.getInputStream();
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
            b.append((char) c);
        }
        return b.toString().trim();
    }

    private static boolean await(BooleanSupplier condition) throws InterruptedException {
        return await(condition, LIMIT);
    }

    private static boolean await(BooleanSupplier condition, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    /** This JVM's live threads, as the kernel counts them (the module reads no java.management). */
    private static int threads() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Threads:")) {
                return Integer.parseInt(line.substring(8).trim());
            }
        }
        throw new IllegalStateException("no Threads: line in /proc/self/status");
    }

    @Test
    void events_64ClientsThatNeverRead_areDroppedAndARealClientGetsItsStream() throws Exception {
        // the queue is far larger than the revisions published: only the stalled writes can free the slots
        start(b -> b.maxSseClients(64).sseQueue(2048).writeTimeout(Duration.ofMillis(500)));
        publish(1, "start");
        for (int i = 0; i < 64; i++) {
            send(open(4096), "GET /api/events HTTP/1.1\r\nHost: " + server.url().getAuthority() + "\r\n\r\n");
        }
        assertThat(await(() -> server.sseClients() == 64)).as("64 stalled clients connected").isTrue();
        assertThat(Http.call("GET", server.url().resolve("/api/events")).statusCode())
                .as("the hub is full while they hold it").isEqualTo(503);

        String big = "x".repeat(64 * 1024);
        long deadline = System.nanoTime() + LIMIT.toNanos();
        for (long r = 2; r < 1000 && server.droppedSseClients() < 64 && System.nanoTime() < deadline; r++) {
            publish(r, big + r); // fills the stalled clients' buffers: their writes block
            Thread.sleep(20);
        }
        assertThat(server.droppedSseClients()).as("stalled clients dropped").isGreaterThanOrEqualTo(64);
        assertThat(await(() -> server.sseClients() == 0)).as("their slots freed").isTrue();

        try (SseClient real = new SseClient(server.url().resolve("/api/events"), null)) {
            assertThat(real.status()).isEqualTo(200);
            SseClient.Event e = real.next();
            assertThat(e).isNotNull();
            assertThat(e.event()).isEqualTo("snapshot");
        }
    }

    /**
     * Issue 25, item 15: clients that never read, on an idle stream, never fill their (tens of MB) buffers, so no
     * write of theirs ever blocks; they must still yield to a reader, and a slow reader must keep its stream.
     */
    @Test
    void events_64IdleClientsThatNeverRead_aReaderStillGetsItsStreamAndASlowReaderKeepsIts() throws Exception {
        // the write timeout is what a client may leave unread; the queue is far larger than anything published
        start(b -> b.maxSseClients(65).sseQueue(2048).keepAlive(Duration.ofMillis(200)).writeTimeout(Duration.ofSeconds(1)));
        publish(1, "start");
        Socket slow = open(0);
        send(slow, "GET /api/v1/events HTTP/1.1\r\nHost: " + server.url().getAuthority() + "\r\n\r\n");
        StringBuffer slowRead = new StringBuffer();
        java.util.concurrent.atomic.AtomicBoolean slowEnded = new java.util.concurrent.atomic.AtomicBoolean();
        Thread slowReader = new Thread(() -> {
            try {
                InputStream in = slow.getInputStream();
                for (int c = in.read(); c != -1; c = in.read()) {
                    slowRead.append((char) c);
                    Thread.sleep(3); // about 300 bytes a second: slower than the stream could go, but reading
                }
            } catch (IOException | InterruptedException e) {
                // the test closes the socket
            }
            slowEnded.set(true);
        }, "test-slow-sse-reader");
        slowReader.setDaemon(true);
        slowReader.start();
        Await.await("the slow reader connected", () -> server.sseClients() == 1);
        for (int i = 0; i < 64; i++) {
            send(open(0), "GET /api/v1/events HTTP/1.1\r\nHost: " + server.url().getAuthority() + "\r\n\r\n");
        }
        Await.await("64 idle clients that never read hold the rest of the slots", () -> server.sseClients() == 65);

        SseClient reader = null;
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (reader == null && System.nanoTime() < deadline) {
            SseClient c = new SseClient(server.url().resolve("/api/v1/events"), null);
            if (c.status() == 200) {
                reader = c;
            } else {
                c.close();
                Thread.sleep(50);
            }
        }
        assertThat(reader).as("a reader got a slot while the idle clients stayed connected").isNotNull();
        try (SseClient real = reader) {
            SseClient.Event first = real.next();
            assertThat(first).isNotNull();
            assertThat(first.event()).isEqualTo("snapshot");
            publish(2, "after-the-lockout");
            SseClient.Event delta = real.next();
            assertThat(delta).isNotNull();
            assertThat(delta.data()).contains("after-the-lockout");
            Await.await("the slow reader got the same revision on its first stream",
                    () -> slowRead.indexOf("after-the-lockout") >= 0 || slowEnded.get());
            assertThat(slowEnded).as("the slow reader's stream was never dropped").isFalse();
            assertThat(slowRead.toString()).contains("after-the-lockout");
            assertThat(server.droppedSseClients()).as("idle clients dropped").isPositive();
        }
    }

    /** Issue 25: any local reader may ask the doctor (no token on loopback); asking often must not cost the daemon. */
    @Test
    void doctor_manyRapidRequests_oneDiagnosisPerRevision() throws Exception {
        start(b -> b.doctorMaxAge(Duration.ofHours(1))); // the age bound is not what this test is about
        publish(1, "start");
        List<Thread> askers = new ArrayList<>();
        List<Integer> statuses = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 4; t++) {
            Thread a = new Thread(() -> {
                for (int i = 0; i < 25; i++) {
                    try {
                        statuses.add(Http.call("GET", server.url().resolve("/api/v1/doctor")).statusCode());
                    } catch (IOException e) {
                        statuses.add(-1);
                    }
                }
            }, "test-doctor-asker");
            askers.add(a);
            a.start();
        }
        for (Thread a : askers) {
            a.join();
        }
        assertThat(statuses).hasSize(100).containsOnly(200);
        assertThat(diagnoses.get()).as("diagnoses for 100 requests at one revision").isEqualTo(1);

        publish(2, "edited");
        Http.Response after = Http.call("GET", server.url().resolve("/api/v1/doctor"));
        assertThat(M.readTree(after.body()).path("verdict").asText()).as("a new revision is diagnosed afresh")
                .isEqualTo("diagnosis 2");
        for (int i = 0; i < 20; i++) {
            Http.call("GET", server.url().resolve("/api/v1/doctor"));
        }
        assertThat(diagnoses.get()).isEqualTo(2);
    }

    @Test
    void doctor_verdictOlderThanItsAge_isDiagnosedAgain() throws Exception {
        start(b -> b.doctorMaxAge(Duration.ofMillis(200)));
        publish(1, "start");
        Http.call("GET", server.url().resolve("/api/v1/doctor"));
        Await.await("a second diagnosis once the first is older than its age",
                () -> {
                    try {
                        Http.call("GET", server.url().resolve("/api/v1/doctor"));
                    } catch (IOException e) {
                        return false;
                    }
                    return diagnoses.get() == 2;
                });
    }

    @Test
    void events_clientsThatDisconnect_releaseTheirSlots() throws Exception {
        start(b -> b); // the defaults: what `kiln serve` runs with
        publish(1, "start");
        for (int i = 0; i < 8; i++) {
            Socket s = open(0);
            send(s, "GET /api/events HTTP/1.1\r\nHost: " + server.url().getAuthority() + "\r\n\r\n");
            assertThat(statusLine(s)).isEqualTo("HTTP/1.1 200 OK");
        }
        assertThat(await(() -> server.sseClients() == 8)).isTrue();
        for (Socket s : sockets) {
            s.close();
        }
        // the default heartbeat finds the dead peers (a write to them fails): well within this limit, which is
        // shorter than the 15 s the slots were held before
        Duration limit = Duration.ofSeconds(12);
        assertThat(await(() -> server.sseClients() == 0, limit)).as("slots of closed clients freed within " + limit)
                .isTrue();
    }

    @Test
    void requests_thousandHalfSent_threadsStayBoundedARealRequestSucceedsAndTheyAreClosed() throws Exception {
        start(b -> b.maxSseClients(4).workers(8).requestTimeout(Duration.ofSeconds(1)));
        publish(1, "start");
        assertThat(Http.call("GET", server.url().resolve("/api/state")).statusCode()).isEqualTo(200);
        int before = threads();

        int peak = before;
        for (int i = 0; i < 1000; i++) {
            Socket s = open(0);
            send(s, "GET /api/state HTTP/1.1\r\nHost: " + server.url().getAuthority() + "\r\n"); // no final CRLF: the head never ends
            if (i % 50 == 0) {
                peak = Math.max(peak, threads());
            }
        }
        for (int i = 0; i < 20; i++) {
            peak = Math.max(peak, threads());
            Thread.sleep(50);
        }
        // 4 SSE + 8 request workers, the sweeper, and slack for the JVM's own
        assertThat(peak - before).as("threads added by 1,000 half-sent requests").isLessThanOrEqualTo(4 + 8 + 6);

        int status = -1;
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (status != 200 && System.nanoTime() < deadline) {
            try {
                status = Http.call("GET", server.url().resolve("/api/state")).statusCode();
            } catch (IOException refusedWhileBusy) {
                Thread.sleep(100);
            }
        }
        assertThat(status).as("a real request among them").isEqualTo(200);

        int closed = 0;
        for (Socket s : sockets) {
            s.setSoTimeout((int) LIMIT.toMillis());
            try {
                s.getInputStream().readAllBytes(); // returns at the daemon's close
                closed++;
            } catch (SocketTimeoutException stillOpen) {
                break;
            } catch (SocketException reset) {
                closed++;
            }
        }
        assertThat(closed).as("half-sent requests closed by the daemon").isEqualTo(1000);
        // each was either given a thread and timed out, or refused at once because none was free
        assertThat(server.timedOutRequests()).as("closed by the request deadline").isPositive();
        assertThat(server.timedOutRequests() + server.refusedConnections()).isGreaterThanOrEqualTo(1000);
    }
}
