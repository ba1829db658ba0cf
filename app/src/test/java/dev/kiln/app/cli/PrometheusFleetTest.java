package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus (Debian's package) scraping two real {@code kiln serve} processes every second: a contract edit
 * shows up as a change tick of that daemon only; a killed daemon shows {@code up == 0}. And the shipped Grafana
 * dashboard asks only for metrics a daemon really exports.
 */
@ProcessTest @DaemonTest
class PrometheusFleetTest {
    private static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
    private static final Path ROOT = Path.of(System.getProperty("kiln.project.root", "..")).toAbsolutePath().normalize();
    private static final Duration PATIENCE = Duration.ofSeconds(60); // a bound for a loaded machine, not a timing
    private static final ObjectMapper M = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    /** Starts a {@code kiln serve} child process on the test's class path. */
    private Process startServe(Path ws) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), "dev.kiln.app.Main",
                "serve", ws.toString(), "--port", "0", "--interval", "100ms", "--heartbeat", "1h")
                .redirectError(dir.resolve(ws.getFileName() + "-err.txt").toFile()).start();
        processes.add(p);
        return p;
    }

    /** The {@code host:port} a started daemon announces on its first line. */
    private String target(Process p, Path ws) throws Exception {
        String first = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertThat(first).as("kiln serve's banner (stderr: %s)", dir.resolve(ws.getFileName() + "-err.txt")).isNotNull();
        Matcher m = Pattern.compile("http://([^/]+)/").matcher(first);
        assertThat(m.find()).as(first).isTrue();
        return m.group(1);
    }

    @Test
    void prometheus_sees_a_change_tick_of_the_edited_daemon_only_and_a_killed_one_down() throws Exception {
        assumeThat(Files.isExecutable(PROMETHEUS)).as("/usr/bin/prometheus is absent: install Debian's prometheus package"
                + " (.ci/run does)").isTrue();
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        assertThat(CliRun.kiln("demo", a.toString(), "--contracts", "20").exit()).isZero();
        assertThat(CliRun.kiln("demo", b.toString(), "--contracts", "20").exit()).isZero();
        assertThat(System.getProperty("java.class.path")).doesNotContain("protobuf").doesNotContain("exposition-formats");
        Process daemonA = startServe(a); // both start at once: JVM start-up is most of this test's time
        Process daemonB = startServe(b);
        String targetA = target(daemonA, a);
        String targetB = target(daemonB, b);

        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // Prometheus has no "port 0": take a free one and hope nobody grabs it first
        }
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "  scrape_timeout: 1s",
                "scrape_configs:",
                "  - job_name: kiln",
                "    static_configs:",
                "      - targets: ['" + targetA + "', '" + targetB + "']",
                ""));
        Process prometheus = new ProcessBuilder(PROMETHEUS.toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        processes.add(prometheus);
        URI api = URI.create("http://127.0.0.1:" + port + "/api/v1/query");

        Map<String, Double> up = await(api, "up", v -> v.size() == 2 && v.values().stream().allMatch(x -> x == 1.0));
        assertThat(up).containsOnlyKeys(targetA, targetB);
        String changes = "kiln_projection_ticks_total{wake=\"change\"}";
        Map<String, Double> before = await(api, changes, v -> v.size() == 2);
        assertThat(before).containsEntry(targetA, 0.0).containsEntry(targetB, 0.0);

        Path contract;
        try (var s = Files.walk(WorkspaceLayout.of(a).tasksDir())) {
            contract = s.filter(p -> p.getFileName().toString().equals("contract.json")).sorted().findFirst().orElseThrow();
        }
        String text = Files.readString(contract);
        String edited = text.replaceFirst("(\"title\"\\s*:\\s*\")", "$1edited ");
        assertThat(edited).as("the edit changes " + contract).isNotEqualTo(text);
        Files.writeString(contract, edited);

        Map<String, Double> after = await(api, changes, v -> v.getOrDefault(targetA, 0.0) > 0);
        assertThat(after.get(targetB)).as("the other daemon saw no change").isEqualTo(0.0);

        daemonB.destroyForcibly();
        assertThat(daemonB.waitFor(10, TimeUnit.SECONDS)).isTrue();
        Map<String, Double> down = await(api, "up", v -> v.getOrDefault(targetB, 1.0) == 0.0);
        assertThat(down).containsEntry(targetA, 1.0);
    }

    /** Polls an instant query until {@code done} holds for its values by instance; fails after {@link #PATIENCE}. */
    private Map<String, Double> await(URI api, String query, Predicate<Map<String, Double>> done) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        Map<String, Double> last = Map.of();
        String said = "";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(api + "?query="
                        + URLEncoder.encode(query, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                said = r.body();
                if (r.statusCode() == 200) {
                    Map<String, Double> values = new HashMap<>();
                    for (JsonNode series : M.readTree(r.body()).path("data").path("result")) {
                        values.put(series.path("metric").path("instance").asText(), series.path("value").path(1).asDouble());
                    }
                    last = values;
                    if (done.test(values)) {
                        return values;
                    }
                }
            } catch (java.io.IOException e) {
                said = e.toString(); // Prometheus still starting
            }
            Thread.sleep(200);
        }
        throw new AssertionError("Prometheus never answered " + query + " as expected within " + PATIENCE + "; last values "
                + last + ", last answer " + said + "; log: " + Files.readString(dir.resolve("prometheus.log")));
    }

    @Test
    void every_query_of_the_grafana_dashboard_names_a_metric_the_daemon_exports() throws Exception {
        Path dashboard = ROOT.resolve("docs/grafana/kiln-fleet.json");
        List<String> exprs = new ArrayList<>();
        collectExprs(M.readTree(dashboard.toFile()), exprs);
        assertThat(exprs).as("queries in " + dashboard).hasSizeGreaterThan(10);

        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "20").exit()).isZero();
        writeSeedAndProbeRecords(ws);
        Set<String> exported = new TreeSet<>();
        try (ProjectionDaemon d = ProjectionDaemon.builder(WorkspaceLayout.of(ws)).port(0).start()) {
            d.awaitFirstProjection(PATIENCE);
            String body = HTTP.send(HttpRequest.newBuilder(d.url().resolve("metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Matcher m = Pattern.compile("(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]").matcher(body);
            while (m.find()) {
                exported.add(m.group(1));
            }
        }
        Path promtool = Path.of("/usr/bin/promtool");
        if (Files.isExecutable(promtool)) { // PromQL syntax: each query as a recording rule, linted by promtool
            StringBuilder rules = new StringBuilder("groups:\n- name: dashboard\n  rules:\n");
            for (int i = 0; i < exprs.size(); i++) {
                rules.append("  - record: kiln_dashboard_").append(i).append("\n    expr: ")
                        .append(M.writeValueAsString(exprs.get(i).replace("$instance", ".*"))).append('\n');
            }
            Path file = Files.writeString(dir.resolve("rules.yml"), rules);
            Process p = new ProcessBuilder(promtool.toString(), "check", "rules", file.toString()).redirectErrorStream(true).start();
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("promtool check rules: " + said).isZero();
        }
        Pattern metric = Pattern.compile("\\bkiln_[a-z0-9_]+");
        for (String expr : exprs) {
            Matcher m = metric.matcher(expr);
            assertThat(m.find()).as("query names a kiln_ metric: " + expr).isTrue();
            do {
                assertThat(exported).as("exported by a daemon (query: %s)", expr).contains(m.group());
            } while (m.find());
        }
    }

    @Test
    void the_documented_fleet_scrape_config_is_valid_for_prometheus() throws Exception {
        Path promtool = Path.of("/usr/bin/promtool");
        assumeThat(Files.isExecutable(promtool)).as("promtool is absent (CI installs Debian's prometheus package)").isTrue();
        String doc = Files.readString(ROOT.resolve("docs/MONITORING.md"));
        Matcher m = Pattern.compile("(?s)```yaml\n(global:.*?)```").matcher(doc);
        assertThat(m.find()).as("docs/MONITORING.md has the scrape config").isTrue();
        String config = m.group(1);
        assertThat(config).contains("credentials_file:");
        // promtool checks that token files exist: give the documented paths real files in the temp dir
        Path tokens = Files.createDirectories(dir.resolve("kiln-tokens"));
        Files.writeString(tokens.resolve("worker-01"), "t1");
        Files.writeString(tokens.resolve("worker-02"), "t2");
        Path file = Files.writeString(dir.resolve("fleet.yml"), config.replace("/etc/prometheus/kiln-tokens", tokens.toString()));
        Process p = new ProcessBuilder(promtool.toString(), "check", "config", file.toString()).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("promtool check config: " + said).isZero();
    }

    private static void collectExprs(JsonNode n, List<String> out) {
        if (n.isObject()) {
            n.fields().forEachRemaining(e -> {
                if (e.getKey().equals("expr") && e.getValue().isTextual()) {
                    out.add(e.getValue().asText());
                } else {
                    collectExprs(e.getValue(), out);
                }
            });
        } else if (n.isArray()) {
            n.forEach(c -> collectExprs(c, out));
        }
    }

    /** What `kiln warm` and `kiln probe` leave in a workspace, so the labelled seed and probe series exist. */
    private static void writeSeedAndProbeRecords(Path ws) throws Exception {
        dev.kiln.core.seed.SeedCaches seeds = dev.kiln.core.seed.SeedCaches.of(ws);
        Files.createDirectories(seeds.journalFile().getParent());
        Files.writeString(seeds.journalFile(), "{\"at\":\"2026-01-01T00:00:00Z\",\"target\":\"py\",\"outcome\":\"warmed\","
                + "\"hash\":\"ab\",\"duration_ms\":4200,\"bytes\":1,\"files\":1,\"message\":\"ok\"}\n");
        Path seed = seeds.seedDir("py");
        Files.createDirectories(seed);
        Files.writeString(seed.resolve("kiln-seed.json"), "{\"target\":\"py\",\"hash\":\"ab\",\"warmed_at\":\"2026-01-01T00:00:00Z\"}");
        Files.writeString(seed.resolve(".kiln-seed-hash"), "ab\n");
        Path probes = WorkspaceLayout.of(ws).observerDir().resolve("probes");
        Files.createDirectories(probes);
        Files.writeString(probes.resolve("probe-20260101T000000.000Z.json"), "{\"summary\":{\"started_at\":"
                + "\"2026-01-01T00:00:00Z\",\"over_timeout\":0},\"runs\":[{\"name\":\"fs\",\"outcome\":\"ok\",\"initialize_ms\":400.0}]}");
    }
}
