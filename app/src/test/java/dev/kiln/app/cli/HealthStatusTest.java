package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln status} prints the verdict and every reason and exits by it: 2 for a failing daemon (a broken contract),
 * 1 for a degraded one (a stale seed), 2 for a SIGSTOPped one, which cannot answer within {@code --timeout}; the
 * stopped one is unreachable in all five places the verdict shows ({@link HealthPlaces}) and healthy again in all of
 * them once continued.
 */
@DaemonTest
@ProcessTest
class HealthStatusTest {
    private static final ObjectMapper M = new ObjectMapper();

    @TempDir
    Path dir;

    /** The demo without its malformed contract and its never-warmed target: a workspace with nothing wrong. */
    static void healthyDemo(Path ws) throws IOException {
        try (Stream<Path> s = Files.walk(ws.resolve("tasks"))) {
            for (Path f : s.filter(p -> p.getFileName().toString().equals("contract.json")).toList()) {
                try {
                    M.readTree(f.toFile());
                } catch (IOException e) {
                    Files.delete(f);
                }
            }
        }
        try (Stream<Path> s = Files.walk(ws.resolve("targets"))) {
            for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }

    @Test
    void status_brokenContractThenOnlyAStaleSeed_exit2ThenExit1_namingEveryReason() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "6").exit()).isZero(); // one malformed contract
        try (ProjectionDaemon d = ProjectionDaemon.builder(WorkspaceLayout.of(ws)).port(0).start()) {
            d.awaitFirstProjection(Duration.ofSeconds(60));
            String url = d.url().toString();
            CliRun failing = CliRun.kiln("status", url);
            assertThat(failing.exit()).as(failing.out()).isEqualTo(2);
            assertThat(failing.out()).contains(url + ": failing").containsPattern("failing: +contract_failures: 1 contract failed: ")
                    .containsPattern("degraded: +seed_stale: 1 seed stale: demo");
            JsonNode j = M.readTree(CliRun.kiln("status", url, "--json").out());
            assertThat(j.path("verdict").asText()).isEqualTo("failing");
            assertThat(j.path("reasons").get(0).path("code").asText()).isEqualTo("contract_failures");

            try (Stream<Path> s = Files.walk(ws.resolve("tasks"))) {
                for (Path f : s.filter(p -> p.getFileName().toString().equals("contract.json")).toList()) {
                    try {
                        M.readTree(f.toFile());
                    } catch (IOException e) {
                        Files.delete(f); // the broken contract goes; the stale seed stays
                    }
                }
            }
            CliRun[] last = new CliRun[1];
            Await.await("kiln status degraded", Duration.ofSeconds(60), () -> {
                last[0] = CliRun.kiln("status", url);
                return last[0].exit() == 1;
            });
            assertThat(last[0].out()).contains(url + ": degraded").contains("seed_stale").doesNotContain("contract_failures");
        }
    }

    /**
     * A real {@code kiln serve} child, SIGSTOPped: every place says it cannot be asked (failing, {@code unreachable}),
     * each within its bound; SIGCONT, and every place shows it healthy again by itself.
     */
    @Test
    void sigstoppedServe_unreachableInAllFivePlacesWithinBounds_sigcont_healthyAgainEverywhere() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "5").exit()).isZero();
        healthyDemo(ws);
        CliChild serve = CliChild.start(dir, List.of("-Xmx128m"), "serve", ws.toString(), "--port", "0");
        dev.kiln.ui.fleet.FleetViewModel fleet = null;
        HealthPlaces.Cards cards = null;
        try {
            String[] url = new String[1];
            Await.await("kiln serve's banner", Duration.ofSeconds(60), () -> {
                try {
                    String out = Files.readString(serve.out());
                    int at = out.indexOf("http://127.0.0.1:");
                    if (at < 0) {
                        return false;
                    }
                    url[0] = out.substring(at).split("\\s")[0];
                    return true;
                } catch (IOException e) {
                    return false;
                }
            });
            java.net.URI u = java.net.URI.create(url[0]);
            Path token = ws.resolve("observer/api-token");
            fleet = HealthPlaces.fleet(new dev.kiln.core.fleet.DaemonEntry("served", u, java.util.Optional.of(token),
                    java.util.Optional.empty()));
            dev.kiln.ui.fleet.FleetViewModel page = fleet;
            cards = HealthPlaces.Cards.attach(u, token);
            HealthPlaces.seenEverywhere("served", u, () -> page.row("served"), cards, dev.kiln.core.health.HealthState.HEALTHY);

            signal("STOP", serve.process().pid());
            HealthPlaces.unreachableEverywhere("served", u, () -> page.row("served"), cards);
            CliRun json = CliRun.kiln("status", url[0], "--timeout", "1s", "--json");
            JsonNode j = M.readTree(json.out());
            assertThat(j.path("verdict").asText()).isEqualTo("failing");
            assertThat(j.path("reasons").get(0).path("code").asText()).isEqualTo("unreachable");

            signal("CONT", serve.process().pid());
            HealthPlaces.seenEverywhere("served", u, () -> page.row("served"), cards, dev.kiln.core.health.HealthState.HEALTHY);
        } finally {
            signal("CONT", serve.process().pid());
            if (fleet != null) {
                fleet.close();
            }
            if (cards != null) {
                cards.close();
            }
            serve.process().destroy();
            if (!serve.process().waitFor(30, TimeUnit.SECONDS)) {
                serve.process().destroyForcibly();
            }
        }
    }

    private static void signal(String sig, long pid) throws IOException, InterruptedException {
        Process k = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start();
        assertThat(k.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(k.exitValue()).as("kill -" + sig).isZero();
    }
}
