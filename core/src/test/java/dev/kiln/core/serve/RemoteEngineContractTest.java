package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.kiln.core.archive.ArchiveCache;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.engine.EngineEvent;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.engine.WorkspaceActions;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.serve.client.ClientInternals;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.snapshot.ContractFile;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.DaemonTest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The engine contract over the API: a {@link RemoteEngine} attached to a real {@link ProjectionDaemon} on loopback,
 * wired as {@code kiln serve} wires it (one bus for the daemon and its actions). Besides the contract: the event
 * stream resumes after breaks without loss or duplicates, a restarted daemon resets the state and the engine comes
 * back by itself, faults map to their kinds, secrets stay on the daemon's host.
 */
@DaemonTest
class RemoteEngineContractTest extends EngineContractTest {
    private EventBus bus;
    private WorkspaceActions actions;
    private ProjectionDaemon daemon;

    private ProjectionDaemon daemon(Path ws, int port) throws Exception {
        ProjectionDaemon d = ProjectionDaemon.builder(WorkspaceLayout.of(ws)).events(bus).actions(actions, bus)
                .pacing(new ChangePacer.Settings(Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofHours(1)))
                .port(port).start();
        d.awaitFirstProjection(Duration.ofSeconds(60));
        return d;
    }

    @Override
    Engine open(Path ws) throws Exception {
        WorkspaceSettings settings = WorkspaceSettings.read(ws);
        bus = new EventBus();
        actions = new WorkspaceActions(WorkspaceLayout.of(ws), settings,
                ArchiveCache.builder().maximumBytes(settings.archiveCacheMaxBytes()).eventSink(bus).build(),
                SeedCaches.builder(ws).settings(settings).events(bus).build(), bus, Clock.systemUTC());
        daemon = daemon(ws, 0);
        return ClientInternals.connect(daemon.url(), daemon.tokenFile(), null, Clock.systemUTC(), Duration.ofMillis(50),
                Duration.ofMillis(400));
    }

    @Override
    void shut() {
        daemon.close();
        actions.close();
    }

    @Override
    void storeEnvironment(java.util.Map<String, String> environment) {
        actions.storeEnvironment(environment); // the daemon's host's credentials: the client has none
    }

    private RemoteEngine remote() {
        return (RemoteEngine) engine;
    }

    @Test
    void events_streamBrokenMidStreamOnBothSides_everyEventArrivesOnceInOrder() throws Exception {
        Await.await("connected", remote()::connected);
        List<String> got = new CopyOnWriteArrayList<>();
        engine.events().subscribe(e -> {
            if (e instanceof SeedEvent.WarmOutput w && w.target().equals("resume")) {
                got.add(w.line());
            }
        });
        int n = 600;
        for (int i = 0; i < n; i++) {
            bus.publish(new SeedEvent.WarmOutput(Instant.now(), "resume", "line " + i, i % 2 == 0));
            if (i % 100 == 30) {
                daemon.dropSseClients(); // the daemon ends the exchange
            }
            if (i % 100 == 70) {
                ClientInternals.breakStream(remote()); // the connection breaks on the console's side
            }
        }
        List<String> want = IntStream.range(0, n).mapToObj(i -> "line " + i).toList();
        Await.await("every line", () -> got.size() >= n);
        // one more event after the last break: if anything were replayed twice it would be in front of it
        bus.publish(new SeedEvent.WarmOutput(Instant.now(), "resume", "last", false));
        Await.await("the last line", () -> got.contains("last"));
        List<String> all = new ArrayList<>(want);
        all.add("last");
        assertThat(got).containsExactlyElementsOf(all);
        assertThat(events).as("the breaks were seen").anyMatch(e -> e instanceof EngineEvent.ConnectionChanged c && !c.connected());
        assertThat(events).as("every break resumed without a reset")
                .noneMatch(e -> e instanceof EngineEvent.ConnectionChanged c && c.reset());
    }

    @Test
    void attach_eventsFromBeforeTheAttach_arriveFirstOnceThenTheLiveOnes() throws Exception {
        for (int i = 0; i < 5; i++) { // the daemon's ring holds these; nobody attached is reading them
            bus.publish(new SeedEvent.WarmOutput(Instant.now(), "before", "line " + i, false));
        }
        try (RemoteEngine late = RemoteEngine.connect(daemon.url(), daemon.tokenFile(), null, Clock.systemUTC())) {
            List<String> got = new CopyOnWriteArrayList<>();
            List<String> order = new CopyOnWriteArrayList<>();
            late.events().subscribe(e -> {
                if (e instanceof SeedEvent.WarmOutput w && w.target().equals("before")) {
                    got.add(w.line());
                    order.add("warm");
                } else if (e instanceof TickFinished) {
                    order.add("tick");
                }
            });
            late.start(false);
            assertThat(got).as("the ring's events are published before start returns")
                    .containsExactly("line 0", "line 1", "line 2", "line 3", "line 4");
            // the ring holds past ticks too (published as history); the current one comes after all of them
            assertThat(order.lastIndexOf("tick")).as("then the current tick, so no past one overrides it")
                    .isGreaterThan(order.lastIndexOf("warm"));
            bus.publish(new SeedEvent.WarmOutput(Instant.now(), "before", "live", false));
            Await.await("the live line", () -> got.contains("live"));
            ClientInternals.breakStream(late); // a resume after the break asks no history again: nothing arrives twice
            Await.await("reconnected", late::connected);
            bus.publish(new SeedEvent.WarmOutput(Instant.now(), "before", "after the break", false));
            Await.await("the line after the break", () -> got.contains("after the break"));
            assertThat(got).containsExactly("line 0", "line 1", "line 2", "line 3", "line 4", "live", "after the break");
            assertThat(late.snapshot().contracts()).hasSameSizeAs(engine.projection().snapshot().contracts());
        }
    }

    @Test
    void daemonRestarted_engineMarksItDownComesBackByItselfWithAFreshState() throws Exception {
        Await.await("connected", remote()::connected);
        int port = daemon.port();
        ContractFile any = engine.projection().snapshot().contracts().get(0);
        daemon.close();
        Await.await("marked down", () -> !remote().connected());
        assertThat(events).anyMatch(e -> e instanceof EngineEvent.ConnectionChanged c && !c.connected());
        assertThatThrownBy(() -> engine.seeds().list()).isInstanceOf(EngineException.class)
                .extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.UNREACHABLE);

        Path file = ws.resolve("tasks").resolve(any.file());
        String text = Files.readString(file);
        String edited = text.replaceFirst("\"title\"\\s*:\\s*\"[^\"]*\"", "\"title\": \"edited while down\"");
        assertThat(edited).isNotEqualTo(text);
        Files.writeString(file, edited);
        daemon = daemon(ws, port);

        Await.await("back", remote()::connected);
        Await.await("the edit while down", () -> engine.projection().snapshot().contracts().stream()
                .anyMatch(f -> f.file().equals(any.file()) && "edited while down".equals(f.contract().title())));
        Await.await("a reset: the new daemon's events are another sequence", () -> events.stream()
                .anyMatch(e -> e instanceof EngineEvent.ConnectionChanged c && c.connected() && c.reset()));
        assertThat(engine.seeds().list()).isNotNull(); // the new token is read from the token file again
    }

    @Test
    void contractEdit_arrivesAsADelta_unchangedContractsKeepTheirInstance() throws Exception {
        Await.await("connected", remote()::connected);
        List<ContractFile> before = engine.projection().snapshot().contracts();
        ContractFile edited = before.get(1);
        Path file = ws.resolve("tasks").resolve(edited.file());
        String text = Files.readString(file);
        String changed = text.replaceFirst("\"status\"\\s*:\\s*\"[^\"]*\"", "\"status\": \"remote-edit\"");
        assertThat(changed).isNotEqualTo(text);
        Files.writeString(file, changed);

        Await.await("the edit", () -> engine.projection().snapshot().contracts().stream()
                .anyMatch(f -> f.file().equals(edited.file()) && "remote-edit".equals(f.contract().status())));
        List<ContractFile> after = engine.projection().snapshot().contracts();
        assertThat(after).hasSameSizeAs(before);
        for (int i = 0; i < before.size(); i++) {
            if (!before.get(i).file().equals(edited.file())) {
                assertThat(after.get(i)).as(before.get(i).file()).isSameAs(before.get(i));
            }
        }
        // the tick's event comes after its revision: a view that reloads on it finds the edit
        Await.await("the tick's event", () -> events.stream()
                .anyMatch(e -> e instanceof dev.kiln.core.projection.TickFinished t && t.result().changed()));
    }

    @Test
    void watchStatus_isTheDaemons() throws Exception {
        assertThat(engine.projection().watchStatus()).get().satisfies(w -> {
            assertThat(w.live()).isEqualTo(daemon.watchStatus().live());
            assertThat(w.watchedDirectories()).isEqualTo(daemon.watchStatus().watchedDirectories()).isPositive();
            assertThat(w.since()).isEqualTo(daemon.watchStatus().since());
        });
    }

    @Test
    void servers_envAndHeaderValuesNeverLeaveTheDaemonsHost() throws Exception {
        StringBuilder more = new StringBuilder();
        for (int i = 0; i < 20; i++) { // enough servers for a body beyond the gzip threshold
            more.append(",\n  \"extra-").append(i).append("\": {\"command\": \"python3\", \"args\": [\"x.py\"],"
                    + " \"env\": {\"TOKEN\": \"extra-secret-").append(i).append("\"}}");
        }
        Files.writeString(ws.resolve("servers.json"), """
                {"mcpServers": {
                  "local": {"command": "python3", "args": ["x.py"], "env": {"API_KEY": "hunter2-secret"}},
                  "web": {"url": "http://user:pw-secret@127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer tok-secret"}}%s
                }}
                """.formatted(more));
        List<ServerConfig> servers = engine.probes().servers();
        ServerConfig local = servers.stream().filter(s -> s.name().equals("local")).findFirst().orElseThrow();
        assertThat(local.env()).containsOnlyKeys("API_KEY").containsEntry("API_KEY", Wire.REDACTED);
        ServerConfig web = servers.stream().filter(s -> s.name().equals("web")).findFirst().orElseThrow();
        assertThat(web.headers()).containsEntry("Authorization", Wire.REDACTED);
        Http.Response raw = Http.call("GET", daemon.url().resolve(Wire.SERVERS));
        assertThat(raw.statusCode()).isEqualTo(200);
        assertThat(raw.body()).hasSizeGreaterThan(ApiServer.GZIP_MIN_BYTES).doesNotContain("hunter2-secret")
                .doesNotContain("tok-secret").doesNotContain("pw-secret").doesNotContain("extra-secret");
        Http.Response zipped = Http.call("GET", daemon.url().resolve(Wire.SERVERS), "Accept-Encoding", "gzip");
        assertThat(zipped.header("Content-Encoding")).as("a large answer, gzip accepted").contains("gzip");
    }

    @Test
    void faults_eachKindWithAMessageThatSaysWhatToDo() throws Exception {
        int free;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            free = s.getLocalPort();
        }
        assertThatThrownBy(() -> RemoteEngine.connect(URI.create("http://127.0.0.1:" + free + "/"), null, null, Clock.systemUTC()))
                .isInstanceOf(EngineException.class).hasMessageContaining("nothing listens")
                .extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.UNREACHABLE);

        HttpServer other = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        other.createContext("/api/v1/version", x -> {
            byte[] b = "{\"api_version\": 1}".getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, b.length);
            x.getResponseBody().write(b);
            x.close();
        });
        other.createContext("/garbage/api/v1/version", x -> {
            byte[] b = "<html>hello</html>".getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, b.length);
            x.getResponseBody().write(b);
            x.close();
        });
        other.start();
        try {
            URI base = URI.create("http://127.0.0.1:" + other.getAddress().getPort() + "/");
            assertThatThrownBy(() -> RemoteEngine.connect(base, null, null, Clock.systemUTC()))
                    .isInstanceOf(EngineException.class).hasMessageContaining("speaks API v1")
                    .extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.INCOMPATIBLE);
            assertThatThrownBy(() -> RemoteEngine.connect(base.resolve("garbage/"), null, null, Clock.systemUTC()))
                    .isInstanceOf(EngineException.class).hasMessageContaining("no kiln serve")
                    .extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.INCOMPATIBLE);
        } finally {
            other.stop(0);
        }

        // no token: reads work, a mutation is refused
        try (RemoteEngine readOnly = RemoteEngine.connect(daemon.url(), null, null, Clock.systemUTC())) {
            assertThat(readOnly.seeds().list()).isNotNull();
            assertThatThrownBy(() -> readOnly.heal(true, "k")).isInstanceOf(EngineException.class)
                    .extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.UNAUTHORIZED);
        }
        // a token that is not (or no longer) the daemon's, mid-session
        Path stale = dir.resolve("stale-token");
        Files.writeString(stale, "0".repeat(64) + "\n");
        Files.setPosixFilePermissions(stale, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        try (RemoteEngine revoked = RemoteEngine.connect(daemon.url(), stale, null, Clock.systemUTC())) {
            assertThatThrownBy(() -> revoked.heal(true, "k")).isInstanceOf(EngineException.class)
                    .hasMessageContaining(stale.toString())
                    .extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.UNAUTHORIZED);
        }
    }

    @Test
    void tls_pinnedCertificateAttaches_anotherCertificateIsCertificateChanged() throws Exception {
        Path other = dir.resolve("tls-ws");
        new dev.kiln.core.demo.DemoWorkspace().write(other, 5, 3, false);
        Path pw = Files.writeString(dir.resolve("tls-password"), "s3cret-pass\n");
        Path served = ApiSecurityTest.Keystores.selfSigned(dir.resolve("served.p12"), "s3cret-pass", "localhost");
        Path stranger = ApiSecurityTest.Keystores.selfSigned(dir.resolve("other.p12"), "s3cret-pass", "localhost");
        String wrongPin = TlsIdentity.load(stranger, pw).fingerprint();
        try (ProjectionDaemon tls = ProjectionDaemon.builder(WorkspaceLayout.of(other)).tls(served, pw).port(0).start()) {
            tls.awaitFirstProjection(Duration.ofSeconds(60));
            String pin = tls.tlsFingerprint().orElseThrow();
            try (RemoteEngine pinned = RemoteEngine.connect(tls.url(), tls.tokenFile(), pin, Clock.systemUTC())) {
                pinned.start(true);
                assertThat(pinned.snapshot().contracts()).isNotEmpty();
                assertThat(pinned.heal(false, "").dryRun()).isTrue();
            }
            assertThatThrownBy(() -> RemoteEngine.connect(tls.url(), tls.tokenFile(), wrongPin, Clock.systemUTC()))
                    .isInstanceOf(EngineException.class).hasMessageContaining(wrongPin)
                    .extracting(e -> ((EngineException) e).kind()).isEqualTo(EngineException.Kind.CERTIFICATE_CHANGED);
        }
    }
}
