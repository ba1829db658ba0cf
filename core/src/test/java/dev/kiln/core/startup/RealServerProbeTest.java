package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.ProcessTest;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probe against the real servers agent clients start: the npm reference servers, the PyPI SDK's server and the
 * bundled demo server, eight at once over stdio plus one over Streamable HTTP on loopback.
 */
@ProcessTest
class RealServerProbeTest {
    /** Generous: eight Node and Python starts at once on a shared 2-core machine. Times are never asserted. */
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private ServerConfig node(String name, String pkg, List<String> args, Map<String, String> env) throws Exception {
        List<String> a = new java.util.ArrayList<>(List.of(RealServers.npmServer(pkg).toString()));
        a.addAll(args);
        return ServerConfig.stdio(name, dir, "node", a, env);
    }

    @Test
    void run_eightRealServersAtOnceOverStdio_allStartWithTheirToolsAndNothingIsLeftRunning() throws Exception {
        Path venv = RealServers.mcpVenv();
        Path sdkServer = RealServers.mcpServerScript(dir);
        Path demo = DemoServer.extractTo(dir.resolve("servers"));
        Files.createDirectories(dir.resolve("files"));
        List<ServerConfig> servers = List.of(
                node("everything", "server-everything", List.of(), Map.of()),
                node("filesystem", "server-filesystem", List.of(dir.resolve("files").toString()), Map.of()),
                node("memory", "server-memory", List.of(), Map.of("MEMORY_FILE_PATH", dir.resolve("memory.json").toString())),
                node("thinking", "server-sequential-thinking", List.of(), Map.of()),
                node("everything-2", "server-everything", List.of(), Map.of()),
                ServerConfig.stdio("sdk-python", dir, venv.resolve("bin/python").toString(), List.of(sdkServer.toString()), Map.of()),
                ServerConfig.stdio("demo", dir, "python3", List.of(demo.toString()), Map.of()),
                ServerConfig.stdio("demo-heavy", dir, "python3", List.of(demo.toString(), "--weight", "12"), Map.of()));

        ProbeReport report = StartupProbe.builder().timeout(TIMEOUT).build().run(servers);

        assertThat(report.results()).allSatisfy(r -> {
            assertThat(r.outcome()).as(r.name() + ": " + r.reason() + " " + r.stderrTail()).isEqualTo(Outcome.OK);
            // The probe asks server/discover first: the SDK (mcp 2.3) speaks the 2026-07-28 revision, the npm servers
            // and the demo answer "method not found" and start through initialize at 2025-11-25.
            assertThat(r.protocolVersion()).as(r.name())
                    .isEqualTo(r.name().equals("sdk-python") ? "2026-07-28" : "2025-11-25");
            assertThat(r.tools()).as(r.name()).isPositive();
            assertThat(r.timeline().isOrdered()).as(r.name() + " " + r.timeline()).isTrue();
            assertThat(r.timeline().initializedMs()).as(r.name()).isNotNull();
            assertThat(r.timeline().exitMs()).as(r.name() + " ended").isNotNull();
        });
        assertThat(report.results()).extracting(ServerResult::name, ServerResult::tools).contains(
                org.assertj.core.groups.Tuple.tuple("everything", 13), org.assertj.core.groups.Tuple.tuple("filesystem", 14),
                org.assertj.core.groups.Tuple.tuple("memory", 9), org.assertj.core.groups.Tuple.tuple("thinking", 1),
                org.assertj.core.groups.Tuple.tuple("sdk-python", 1), org.assertj.core.groups.Tuple.tuple("demo", 3));
        assertThat(report.slowest()).isNotNull();
        assertThat(report.servers()).allSatisfy(s -> assertThat(s.recommendedTimeoutSec()).isPositive());
        assertThat(ProbeProcesses.livingIn(dir)).as("no server outlives the probe").isEmpty();
    }

    @Test
    void run_everythingOverStreamableHttpOnLoopback_sessionNegotiatedAndToolsListed() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path preload = RealServers.loopbackPreload(dir);
        ProcessBuilder pb = new ProcessBuilder("node", "-r", preload.toString(),
                RealServers.npmServer("server-everything").toString(), "streamableHttp")
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("http.log").toFile());
        pb.environment().put("PORT", Integer.toString(port));
        Process server = pb.start();
        try {
            awaitListening(server, port);
            assertThat(ProbeProcesses.listeners(port)).as("bound to 127.0.0.1 only")
                    .isNotEmpty().allSatisfy(a -> assertThat(a).startsWith("0100007F:"));

            ProbeReport report = StartupProbe.builder().timeout(TIMEOUT).build()
                    .run(List.of(ServerConfig.http("everything-http", URI.create("http://127.0.0.1:" + port + "/mcp"), Map.of())));

            ServerResult r = report.results().get(0);
            assertThat(r.outcome()).as(r.reason()).isEqualTo(Outcome.OK);
            assertThat(r.transport()).isEqualTo(ServerConfig.Transport.HTTP);
            assertThat(r.protocolVersion()).isEqualTo("2025-11-25");
            assertThat(r.tools()).isEqualTo(13);
            assertThat(r.timeline().isOrdered()).isTrue();
            assertThat(r.timeline().exitMs()).as("session closed").isNotNull();
        } finally {
            ProcessTree.end(server.toHandle(), 1_000);
            server.waitFor(2, TimeUnit.SECONDS);
        }
    }

    @Test
    void run_httpServerNotRunning_spawnFailedSayingSo() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }

        ServerResult r = StartupProbe.builder().timeout(Duration.ofSeconds(10)).build()
                .run(List.of(ServerConfig.http("gone", URI.create("http://127.0.0.1:" + port + "/mcp"), Map.of())))
                .results().get(0);

        assertThat(r.outcome()).isEqualTo(Outcome.SPAWN_FAILED);
        assertThat(r.reason()).startsWith("cannot connect to http://127.0.0.1:" + port + "/mcp").endsWith("is the server running?");
    }

    private void awaitListening(Process server, int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!server.isAlive()) {
                throw new IllegalStateException("server-everything streamableHttp exited: " + Files.readString(dir.resolve("http.log")));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (java.io.IOException notYet) {
                Thread.sleep(100); // waiting for a real server to listen, not timing logic
            }
        }
        throw new IllegalStateException("server-everything did not listen on " + port + " within 60 s");
    }
}
