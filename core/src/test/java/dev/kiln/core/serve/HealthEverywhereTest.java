package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.alert.Alert;
import dev.kiln.core.alert.AlertRule;
import dev.kiln.core.alert.AlertRules;
import dev.kiln.core.alert.Alerts;
import dev.kiln.core.demo.DemoSummary;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.health.HealthReason;
import dev.kiln.core.health.HealthRules;
import dev.kiln.core.health.HealthState;
import dev.kiln.core.health.HealthVerdict;
import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ProbeRuns;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.StartupProbe;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each reason provoked for real — a broken contract, a warm against a closed loopback index (real uv), a probe of a
 * server slower than its timeout (a real process), a watch over its (injected) inotify limit — and seen with the same
 * state in the health answer, the client's reading of it, {@code /metrics} and the alert rules; the answer has the
 * golden file's shape.
 */
@DaemonTest
@ProcessTest
class HealthEverywhereTest {
    private static final ObjectMapper M = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void failingDaemon_sameVerdictInHealthClientMetricsAndAlerts() throws Exception {
        DemoSummary demo = new DemoWorkspace().write(dir, 6, 3, false);
        WorkspaceLayout layout = WorkspaceLayout.of(dir);
        deleteDemoExtras(demo, true);
        Files.createDirectories(layout.tasksDir().resolve("broken"));
        Files.writeString(layout.tasksDir().resolve("broken/contract.json"), "{ \"id\": \"broken\", ");
        warmAgainstAClosedIndex();
        probeAServerSlowerThanItsTimeout(layout);

        try (ProjectionDaemon d = ProjectionDaemon.builder(layout).port(0).start()) {
            d.awaitFirstProjection(Duration.ofSeconds(60));
            JsonNode body = M.readTree(Http.call("GET", d.url().resolve("/" + Wire.HEALTH)).body());

            assertThat(body.path("verdict").asText()).isEqualTo("failing");
            Map<String, String> reasons = new HashMap<>();
            body.path("reasons").forEach(r -> reasons.put(r.path("code").asText(), r.path("state").asText()));
            assertThat(reasons).containsEntry("contract_failures", "failing").containsEntry("seed_failed", "failing")
                    .containsEntry("probe_over_timeout", "failing");
            assertThat(body.path("failed_contracts").toString()).contains("broken/contract.json");
            assertThat(message(body, "seed_failed")).contains("app");
            assertGoldenShape(body);

            DaemonHealth h = ServeClient.remote(d.url(), null, null).health();
            HealthVerdict v = h.verdict();
            assertThat(v.state()).isEqualTo(HealthState.FAILING);
            assertThat(v.reasons()).extracting(HealthReason::code).containsExactlyElementsOf(codes(body));
            assertThat(HealthRules.judge(h.evidence())).as("the client's evidence judges as the daemon did").isEqualTo(v);

            String metrics = Http.call("GET", d.url().resolve("/metrics")).body();
            assertThat(metrics).contains("kiln_health{state=\"failing\"} 1.0", "kiln_health{state=\"healthy\"} 0.0",
                    "kiln_health_reason{code=\"contract_failures\"} 1.0", "kiln_health_reason{code=\"seed_failed\"} 1.0",
                    "kiln_health_reason{code=\"probe_over_timeout\"} 1.0", "kiln_health_reason{code=\"watch_degraded\"} 0.0");
            for (AlertRule r : AlertRules.defaults()) {
                assertThat(metrics).as("the exported rule %s names a metric the daemon exports", r.name())
                        .containsPattern("(?m)^" + r.metricName() + "[{ ]");
            }

            List<Alert> firing = new Alerts(AlertRules.defaults(), Clock.systemUTC(), EventSink.none())
                    .evaluate(h.evidence().samples());
            assertThat(firing).filteredOn(Alert::firing).extracting(a -> a.rule().name())
                    .contains("KilnContractFailures", "KilnSeedWarmFailed", "KilnProbeOverTimeout");
        }
    }

    @Test
    void watchOverItsLimit_degradedEverywhere() throws Exception {
        DemoSummary demo = new DemoWorkspace().write(dir, 30, 5, false);
        WorkspaceLayout layout = WorkspaceLayout.of(dir);
        deleteDemoExtras(demo, false);
        for (String sub : List.of("area-a/leaf-1", "area-a/leaf-2", "area-b/leaf-1", "area-b/leaf-2")) {
            Files.createDirectories(layout.tasksDir().resolve(sub));
        }
        long dirs;
        try (var walk = Files.walk(dir)) {
            dirs = walk.filter(Files::isDirectory).filter(p -> !p.startsWith(layout.observerDir())).count();
        }
        // one watch short of the workspace's directories: the watch stays live and stat-walks the rest
        try (ProjectionDaemon d = ProjectionDaemon.builder(layout).port(0).watchLimit(dirs - 1).start()) {
            d.awaitFirstProjection(Duration.ofSeconds(60));
            java.util.concurrent.atomic.AtomicReference<JsonNode> seen = new java.util.concurrent.atomic.AtomicReference<>();
            dev.kiln.testkit.Await.await("a partial watch", () -> {
                try {
                    seen.set(M.readTree(Http.call("GET", d.url().resolve("/" + Wire.HEALTH)).body()));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                return seen.get().path("watch").path("partial").asBoolean();
            });
            JsonNode body = seen.get();
            assertThat(body.path("verdict").asText()).as(body.toString()).isEqualTo("degraded");
            assertThat(codes(body)).containsExactly("watch_polling");
            assertThat(ServeClient.remote(d.url(), null, null).health().verdict().state()).isEqualTo(HealthState.DEGRADED);
            assertThat(Http.call("GET", d.url().resolve("/metrics")).body()).contains("kiln_health{state=\"degraded\"} 1.0",
                    "kiln_health_reason{code=\"watch_polling\"} 1.0");
        }
    }

    @Test
    void golden_readsBackAsTheVerdictItSays_andAsTheTableJudgesIt() throws Exception {
        String golden = golden();
        DaemonHealth h = Wire.readHealth(URI.create("http://127.0.0.1:1/"), golden, Optional.empty());
        assertThat(h.verdict().state().wireName()).isEqualTo(M.readTree(golden).path("verdict").asText());
        assertThat(HealthRules.judge(h.evidence())).as("the golden agrees with the table").isEqualTo(h.verdict());
    }

    /** Keeps the demo's workspace to what a test provokes: its malformed contract and never-warmed target go. */
    private void deleteDemoExtras(DemoSummary demo, boolean keepTarget) throws IOException {
        Path malformed = dir.resolve(demo.malformed());
        if (!Files.exists(malformed)) {
            malformed = WorkspaceLayout.of(dir).tasksDir().resolve(demo.malformed());
        }
        Files.delete(malformed);
        if (!keepTarget) {
            try (var walk = Files.walk(WorkspaceLayout.of(dir).targetsDir())) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Target {@code app} whose lock points at a loopback port nothing listens on; a real uv warm of it fails. */
    private void warmAgainstAClosedIndex() throws IOException {
        String base = dev.kiln.testkit.ClosedIndexTarget.write(dir);
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("UV_INDEX_URL", base + "/simple");
        env.put("UV_HTTP_RETRIES", "0");
        WarmResult w = SeedCaches.builder(dir).environment(env).build().warm("app", Cancellation.create());
        assertThat(w.outcome()).as(w.message()).isEqualTo(WarmOutcome.FAILED);
    }

    /** A real stdio server that never answers, held to 500 ms: over its timeout; the run saved as kiln probe does. */
    private void probeAServerSlowerThanItsTimeout(WorkspaceLayout layout) throws Exception {
        Path py = dir.resolve("slow_server.py");
        Files.writeString(py, "import time\ntime.sleep(300)\n");
        ServerConfig slow = ServerConfig.stdio("slow", dir, "python3", List.of(py.toString()), Map.of())
                .withStartupTimeout(Duration.ofMillis(500));
        ProbeReport r = StartupProbe.builder().build().run(List.of(slow));
        assertThat(r.overTimeout()).isEqualTo(1);
        ProbeRuns.save(layout, r);
    }

    private static List<String> codes(JsonNode body) {
        List<String> c = new ArrayList<>();
        body.path("reasons").forEach(r -> c.add(r.path("code").asText()));
        return c;
    }

    private static String message(JsonNode body, String code) {
        for (JsonNode r : body.path("reasons")) {
            if (r.path("code").asText().equals(code)) {
                return r.path("message").asText();
            }
        }
        return "";
    }

    static String golden() throws IOException {
        try (InputStream in = HealthEverywhereTest.class.getResourceAsStream("/api/v1/health.json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Every key the answer has is in the golden file, at the same place; the golden's keys are snake_case. */
    static void assertGoldenShape(JsonNode answer) throws IOException {
        JsonNode golden = M.readTree(golden());
        TreeSet<String> extra = new TreeSet<>(paths(answer, ""));
        extra.removeAll(paths(golden, ""));
        assertThat(extra).as("keys of the answer missing from api/v1/health.json").isEmpty();
        assertThat(paths(golden, "")).allSatisfy(p -> assertThat(p).matches("[a-z0-9_./\\[\\]]+"));
    }

    private static TreeSet<String> paths(JsonNode n, String at) {
        TreeSet<String> out = new TreeSet<>();
        if (n.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String p = at.isEmpty() ? e.getKey() : at + "." + e.getKey();
                out.add(p);
                out.addAll(paths(e.getValue(), p));
            }
        } else if (n.isArray()) {
            n.forEach(x -> out.addAll(paths(x, at + "[]")));
        }
        return out;
    }
}
