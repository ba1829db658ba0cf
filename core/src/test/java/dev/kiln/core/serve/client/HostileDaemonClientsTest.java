package dev.kiln.core.serve.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.EngineEvent;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.HostileDaemon;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The clients of a daemon ({@link ServeClient}, {@link RemoteEngine}, {@link DaemonFollower}) against a hostile or
 * broken one: a real HTTP server on loopback ({@link HostileDaemon}) that sends a gzip bomb, a body without end, an
 * event stream without newlines, binary. Each must end with a clear error naming the daemon, its memory bounded,
 * never hang.
 */
@DaemonTest
class HostileDaemonClientsTest {
    /** Bounds a failing test: without the bounds, these reads never end (or end in OutOfMemoryError). */
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private static HostileDaemon attachable() throws IOException {
        return HostileDaemon.start().route("/api/v1/workspace",
                HostileDaemon.json("{\"root\": \"/nowhere\", \"default_startup_timeout_ms\": 30000}"));
    }

    @Test
    void remoteEngine_gzipBombState_incompatibleNamingTheDaemonAndTheBound_noBinary() throws Exception {
        try (HostileDaemon d = attachable().route("/api/v1/state", HostileDaemon.gzipBomb(1024));
                RemoteEngine e = RemoteEngine.connect(d.url(), null, null, Clock.systemUTC())) {
            EngineException x = assertTimeoutPreemptively(PATIENCE,
                    () -> org.junit.jupiter.api.Assertions.assertThrows(EngineException.class, () -> e.start(false)));
            assertThat(x.kind()).isEqualTo(EngineException.Kind.INCOMPATIBLE);
            assertThat(x.getMessage()).contains(d.url().toString()).contains("GET /api/v1/state")
                    .contains("decompresses to more than 128 MiB");
            assertPrintable(x.getMessage());
        }
    }

    @Test
    void remoteEngine_endlessState_incompatibleOnceItPassesTheStateBound() throws Exception {
        try (HostileDaemon d = attachable().route("/api/v1/state", HostileDaemon.endless());
                RemoteEngine e = RemoteEngine.connect(d.url(), null, null, Clock.systemUTC())) {
            EngineException x = assertTimeoutPreemptively(PATIENCE,
                    () -> org.junit.jupiter.api.Assertions.assertThrows(EngineException.class, () -> e.start(false)));
            assertThat(x.kind()).isEqualTo(EngineException.Kind.INCOMPATIBLE);
            assertThat(x.getMessage()).contains(d.url().toString()).contains("sent more than 128 MiB answering GET /api/v1/state");
        }
    }

    @Test
    void remoteEngine_eventStreamWithoutNewlines_breaksAtTheFrameBoundAndReconnects() throws Exception {
        try (HostileDaemon d = attachable()
                .route("/api/v1/state", HostileDaemon.status(503, "application/json",
                        "{\"error\": \"not_yet\", \"message\": \"no projection yet\"}".getBytes(StandardCharsets.UTF_8)))
                .route("/api/v1/metrics", HostileDaemon.json("{}"))
                .route("/api/v1/events", HostileDaemon.eventsWithoutNewlines());
                RemoteEngine e = RemoteEngine.connect(d.url(), null, null, Clock.systemUTC(), Duration.ofMillis(10),
                        Duration.ofMillis(50))) {
            List<String> lost = new CopyOnWriteArrayList<>();
            e.events().subscribe(ev -> {
                if (ev instanceof EngineEvent.ConnectionChanged c && !c.connected()) {
                    lost.add(c.text());
                }
            });
            e.start(false);
            Await.await("the stream broken at its frame bound, and opened again", PATIENCE,
                    () -> d.requests("/api/v1/events") >= 2 && !lost.isEmpty());
            assertThat(lost.get(0)).contains(d.url().toString()).contains("event frame over 128 MiB");
        }
    }

    @Test
    void follower_eventStreamWithoutNewlines_breaksAtTheFrameBoundAndReconnects() throws Exception {
        Path ws = dir.resolve("ws");
        new DemoWorkspace().write(ws, 5, 3, false);
        WorkspaceLayout layout = WorkspaceLayout.of(ws);
        try (HostileDaemon d = HostileDaemon.start().route("/api/v1/events", HostileDaemon.eventsWithoutNewlines());
                ServeLock lock = ServeLock.acquire(layout, ServeLock.Kind.SERVE)) {
            lock.announce(d.url(), null); // the lock names the hostile daemon, as a real one's would
            Projector readOnly = Projector.builder(layout).readOnly().build();
            try (DaemonFollower f = DaemonFollower.start(layout, readOnly, new EventBus(), Clock.systemUTC(),
                    Duration.ofMillis(10), () -> { })) {
                Await.await("the follower broke the stream at its frame bound and reconnected", PATIENCE,
                        () -> d.requests("/api/v1/events") >= 2);
                assertThat(f.running()).isTrue();
            }
        }
    }

    @Test
    void serveClient_binaryErrorBody_quotedAsPrintableText() throws Exception {
        byte[] binary = new byte[600];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) (i * 7); // control characters and invalid UTF-8, a terminal escape among them
        }
        binary[3] = 0x1B;
        try (HostileDaemon d = HostileDaemon.start().route("/api/v1/health",
                HostileDaemon.status(500, "application/octet-stream", binary))) {
            assertThatThrownBy(() -> ServeClient.remote(d.url(), null, null).health())
                    .isInstanceOf(IOException.class)
                    .satisfies(x -> assertPrintable(x.getMessage()))
                    .hasMessageContaining(d.url().toString()).hasMessageContaining("500").hasMessageContaining("not text");
        }
    }

    private static void assertPrintable(String message) {
        assertThat(message.chars().filter(c -> c < 0x20 || c == 0x7F || c == 0xFFFD).count())
                .as("control characters or undecodable bytes in: " + message).isZero();
        assertThat(message.length()).as("a message, not a body").isLessThan(1000);
    }
}
