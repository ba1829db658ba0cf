package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.fleet.FleetActions;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fleet-wide actions over three real {@code kiln serve} child processes on loopback, each probing its own demo
 * servers on its own host: one daemon is killed (SIGKILL) while its probe runs, and its row says so (failed:
 * unreachable) while the other two finish with their servers' figures. Then {@code kiln fleet doctor --all --json}
 * in a process of its own over the same daemon list: a verdict per live daemon, the dead one failed as unreachable,
 * exit 1.
 */
@ProcessTest @DaemonTest
class FleetActionsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration PATIENCE = Duration.ofSeconds(90);

    @TempDir
    Path dir;
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        processes.forEach(Process::destroy);
        for (Process p : processes) {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void probeOnThreeDaemons_oneKilledHalfway_itsRowSaysUnreachable_theOthersFinish_thenDoctorAll() throws Exception {
        List<DaemonEntry> daemons = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Path ws = dir.resolve("ws-" + i);
            assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "8").exit()).isZero();
            if (i == 2) {
                // The victim's one server answers nothing for 25 s: its probe is still running when its daemon dies.
                Files.writeString(ws.resolve("servers.json"), "{\"mcpServers\": {\"silent\": {\"command\": \"python3\","
                        + " \"args\": [\"-c\", \"import time; time.sleep(60)\"], \"startup_timeout_sec\": 25}}}");
            }
            URI url = serve(ws);
            daemons.add(DaemonEntry.of(i == 2 ? "victim" : "eval-" + (i + 1), url.toString(),
                    ws.resolve("observer/api-token").toString(), ""));
        }
        Path config = dir.resolve("config");
        DaemonList.update(config.resolve("kiln").resolve(DaemonList.FILE), l -> {
            DaemonList out = l;
            for (DaemonEntry d : daemons) {
                out = out.with(d);
            }
            return out;
        });

        FleetActions.Run run = FleetActions.builder().concurrency(3).build().start(FleetActions.Kind.PROBE, daemons, r -> { });
        Await.await("the victim's probe runs on its host", PATIENCE, () -> run.progress().get(2).message().equals("probing its servers"));
        processes.get(2).destroyForcibly();
        assertThat(processes.get(2).waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(run.await(PATIENCE)).as("every row ended").isTrue();

        List<FleetActions.Progress> rows = run.progress();
        FleetActions.Progress victim = rows.get(2);
        assertThat(victim.state()).isEqualTo(FleetActions.State.FAILED);
        assertThat(victim.code()).isEqualTo("unreachable");
        assertThat(victim.message()).startsWith("unreachable");
        assertThat(victim.probe()).isEmpty();
        for (FleetActions.Progress p : rows.subList(0, 2)) {
            assertThat(p.state()).as(p.name() + ": " + p.message()).isEqualTo(FleetActions.State.DONE);
            assertThat(p.heat()).extracting(FleetActions.Heat::server)
                    .containsExactly("demo-light", "demo-stdlib", "demo-import-graph");
            // Under a loaded machine a server may miss its timeout: its cell says how it ended, never a figure.
            assertThat(p.heat()).allSatisfy(h -> {
                assertThat(h.timeoutMs()).isPositive();
                if (h.ok()) {
                    assertThat(h.slowestMs()).isPositive().isLessThan(h.timeoutMs());
                } else {
                    assertThat(h.outcome()).isNotEqualTo("ok").isNotEmpty();
                    assertThat(h.share()).isEqualTo(1.0);
                }
            });
            assertThat(p.heat()).as("the light server answers within its 30 s").anyMatch(FleetActions.Heat::ok);
            assertThat(p.message()).startsWith("3 servers");
        }
        assertThat(run.failed()).isEqualTo(1);

        // The same fleet headless: one JSON object per daemon, the dead one failed as unreachable, exit 1.
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), "dev.kiln.app.Main",
                "fleet", "doctor", "--all", "--json");
        pb.environment().put("XDG_CONFIG_HOME", config.toString());
        Path err = Files.createTempFile(dir, "fleet-err", ".txt");
        Process cli = pb.redirectError(err.toFile()).start();
        String out = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(cli.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(cli.exitValue()).as(Files.readString(err)).isEqualTo(1);
        Map<String, JsonNode> byName = out.lines().filter(l -> !l.isBlank()).map(FleetActionsTest::json)
                .collect(Collectors.toMap(n -> n.path("name").asText(), n -> n));
        assertThat(byName).containsOnlyKeys("eval-1", "eval-2", "victim");
        for (String live : List.of("eval-1", "eval-2")) {
            JsonNode n = byName.get(live);
            assertThat(n.path("action").asText()).isEqualTo("doctor");
            assertThat(n.path("state").asText()).as(n.toString()).isEqualTo("done");
            assertThat(n.path("verdict").asText()).as(n.toString()).isIn("up_to_date", "stale", "cannot_tell");
            assertThat(n.path("headline").asText()).isNotEmpty();
            assertThat(n.path("duration_ms").isIntegralNumber()).isTrue();
        }
        assertThat(byName.get("victim").path("state").asText()).isEqualTo("failed");
        assertThat(byName.get("victim").path("code").asText()).isEqualTo("unreachable");
        assertThat(Files.readString(err)).contains("victim: unreachable");
    }

    private static JsonNode json(String line) {
        try {
            return JSON.readTree(line);
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + line, e);
        }
    }

    /** Starts {@code kiln serve ws} on a free port and returns the URL its banner prints. */
    private URI serve(Path ws) throws Exception {
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(javaBin.toString(), "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                "dev.kiln.app.Main", "serve", ws.toString(), "--port", "0", "--interval", "500ms")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        processes.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String first = out.readLine();
        assertThat(first).as("kiln serve's banner").isNotNull().contains("http://127.0.0.1:");
        Thread drain = new Thread(() -> {
            try {
                out.transferTo(java.io.Writer.nullWriter());
            } catch (java.io.IOException e) {
                // the process ended
            }
        });
        drain.setDaemon(true);
        drain.start();
        return URI.create(first.substring(first.indexOf("http://")).strip());
    }
}
