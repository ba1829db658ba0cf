package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The field's scale: 32 real servers started at once, as a tools container does at session start — the npm reference
 * servers, the PyPI SDK's own server, the PyPI reference servers (fetch, time, git; mcp 2.x) and a PyPI server with a
 * heavy import graph (mcp-atlassian, ~4,300 .py). Every one gets a verdict and no process outlives the probe. Times
 * are never asserted. Run time on the 2-core kind: ~110 s measured under a load average of 26 (six builds
 * sharing the machine), the heavy servers answering last at ~105 s; the first run also installs the fixtures (~75 s).
 */
@ProcessTest
class ScaleProbeTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(240);

    @TempDir
    Path dir;

    private ServerConfig node(String name, String pkg, List<String> args, Map<String, String> env) throws Exception {
        List<String> a = new ArrayList<>(List.of(RealServers.npmServer(pkg).toString()));
        a.addAll(args);
        return ServerConfig.stdio(name, dir, "node", a, env);
    }

    @Test
    void run_thirtyTwoRealServersAtOnce_everyOneGetsAVerdictAndNoProcessIsLeft() throws Exception {
        Path sdkVenv = RealServers.mcpVenv();
        Path sdkServer = RealServers.mcpServerScript(dir);
        Path heavy = RealServers.pypiVenv("pypi-heavy-venv", "3.12", true, RealServers.HEAVY_PACKAGES);
        Path reference = RealServers.pypiVenv("pypi-reference-venv", "3.12", true, RealServers.REFERENCE_PACKAGES);
        Path files = Files.createDirectories(dir.resolve("files"));
        Path repo = Files.createDirectories(dir.resolve("repo"));
        RealServers.run(List.of("git", "init", "-q", repo.toString()), dir, 60);

        List<ServerConfig> servers = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            servers.add(node("everything-" + i, "server-everything", List.of(), Map.of()));
            servers.add(node("filesystem-" + i, "server-filesystem", List.of(files.toString()), Map.of()));
            servers.add(node("memory-" + i, "server-memory", List.of(),
                    Map.of("MEMORY_FILE_PATH", dir.resolve("memory-" + i + ".json").toString())));
            servers.add(node("thinking-" + i, "server-sequential-thinking", List.of(), Map.of()));
        }
        for (int i = 1; i <= 5; i++) {
            servers.add(ServerConfig.stdio("sdk-" + i, dir, sdkVenv.resolve("bin/python").toString(),
                    List.of(sdkServer.toString()), Map.of()));
        }
        for (int i = 1; i <= 4; i++) {
            servers.add(ServerConfig.stdio("atlassian-" + i, dir, heavy.resolve("bin/mcp-atlassian").toString(), List.of(),
                    Map.of("TOOLSETS", "all")));
        }
        servers.add(ServerConfig.stdio("fetch", dir, reference.resolve("bin/mcp-server-fetch").toString(), List.of(), Map.of()));
        servers.add(ServerConfig.stdio("time", dir, reference.resolve("bin/mcp-server-time").toString(),
                List.of("--local-timezone", "UTC"), Map.of()));
        servers.add(ServerConfig.stdio("git", dir, reference.resolve("bin/mcp-server-git").toString(),
                List.of("--repository", repo.toString()), Map.of()));
        assertThat(servers.size()).isGreaterThanOrEqualTo(32);

        long t0 = System.nanoTime();
        ProbeReport report = StartupProbe.builder().timeout(TIMEOUT).build().run(servers);
        System.out.printf("ScaleProbeTest: %d servers probed in %.1f s; slowest %s%n", servers.size(),
                (System.nanoTime() - t0) / 1e9, report.slowest() == null ? "-"
                        : report.slowest().name() + " " + Math.round(report.slowest().initializeMsMax()) + " ms");

        assertThat(report.servers()).hasSize(servers.size());
        assertThat(report.results()).allSatisfy(r -> {
            assertThat(r.outcome()).as(r.name() + ": " + r.reason() + " " + r.stderrTail()).isEqualTo(Outcome.OK);
            // mcp-atlassian lists its tools only once Jira/Confluence are configured: none here, but it answers.
            assertThat(r.tools()).as(r.name()).isGreaterThanOrEqualTo(r.name().startsWith("atlassian-") ? 0 : 1);
            assertThat(r.timeline().isOrdered()).as(r.name() + " " + r.timeline()).isTrue();
            assertThat(Phase.attribute(r.timeline()).bound()).as(r.name()).isNotEqualTo(Phase.Bound.UNKNOWN);
        });
        assertThat(report.results()).filteredOn(r -> r.name().startsWith("sdk-") || r.name().equals("time"))
                .allSatisfy(r -> assertThat(r.protocolVersion()).as(r.name()).isEqualTo("2026-07-28"));
        assertThat(report.results()).filteredOn(r -> r.name().startsWith("everything-") || r.name().startsWith("atlassian-"))
                .allSatisfy(r -> assertThat(r.protocolVersion()).as(r.name()).isEqualTo("2025-11-25"));
        assertThat(report.servers()).allSatisfy(s -> assertThat(s.recommendedTimeoutSec()).isPositive());
        assertThat(ProbeProcesses.livingIn(dir)).as("no server outlives the probe").isEmpty();
    }
}
