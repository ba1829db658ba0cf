package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.serve.client.ClientInternals;
import dev.kiln.core.snapshot.TestTrees;
import dev.kiln.core.startup.BytecodeMode;
import dev.kiln.core.startup.Outcome;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ProbeRuns;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerResult;
import dev.kiln.core.startup.Timeline;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.io.ByteArrayInputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /metrics} of a real daemon on a real workspace: names, values, promtool's lint, who may read it. */
@DaemonTest @ProcessTest
class FleetMetricsTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final Path PROMTOOL = Path.of("/usr/bin/promtool");

    /** The metrics issue #13 asks for; docs/MONITORING.md lists the same. */
    static final List<String> REQUIRED = List.of("kiln_build_info", "kiln_projection_ticks_total",
            "kiln_projection_tick_duration_seconds_bucket", "kiln_projection_contracts_parsed_total",
            "kiln_projection_contracts_reused_total", "kiln_projection_contracts", "kiln_projection_contract_failures",
            "kiln_projection_revision", "kiln_watch_live", "kiln_watch_polled_directories", "kiln_watch_degrades_total", "kiln_sse_clients",
            "kiln_state_file_syncs_total", "kiln_state_file_sync_seconds_total", "kiln_archive_cache_hits_total",
            "kiln_archive_cache_misses_total", "kiln_archive_cache_builds_total", "kiln_archive_cache_evictions_total",
            "kiln_archive_cache_bytes", "kiln_seed_warms_total", "kiln_seed_warm_duration_seconds_bucket",
            "kiln_seed_age_seconds", "kiln_probe_initialize_duration_seconds_bucket", "kiln_probe_server_starts_total",
            "kiln_probe_servers_over_timeout");

    @TempDir
    Path dir;
    private WorkspaceLayout layout;
    private ProjectionDaemon daemon;

    @BeforeEach
    void workspace() throws Exception {
        layout = WorkspaceLayout.of(dir);
        TestTrees.contract(layout.tasksDir(), "payments/refunds/retry", "running");
        TestTrees.contract(layout.tasksDir(), "search/ranking/backfill", "pending");
    }

    @AfterEach
    void stop() {
        if (daemon != null) {
            daemon.close();
        }
    }

    private ProjectionDaemon start(String bind) throws Exception {
        daemon = ProjectionDaemon.builder(layout)
                .pacing(new ChangePacer.Settings(Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofHours(1)))
                .bind(bind).port(0).start();
        daemon.awaitFirstProjection(PATIENCE);
        return daemon;
    }

    private Http.Response scrape(String... headers) throws Exception {
        return Http.call("GET", daemon.url().resolve("metrics"), headers);
    }

    /** The value of the sample {@code series} (name plus its exact label set as printed), if present. */
    static Optional<Double> value(String exposition, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)").matcher(exposition);
        return m.find() ? Optional.of(Double.parseDouble(m.group(1))) : Optional.empty();
    }

    @Test
    void exposition_names_every_listed_metric_and_reads_the_workspace_records() throws Exception {
        // What `kiln warm` and `kiln probe` leave in a workspace: a journal line, a seed manifest, a saved run.
        Path journal = SeedCaches.of(dir).journalFile();
        Files.createDirectories(journal.getParent());
        Files.writeString(journal, "{\"at\":\"2026-01-01T00:00:00Z\",\"target\":\"py\",\"outcome\":\"warmed\",\"hash\":\"ab\","
                + "\"duration_ms\":42000,\"bytes\":1,\"files\":1,\"message\":\"ok\"}\n");
        Path seed = SeedCaches.of(dir).seedDir("py");
        Files.createDirectories(seed);
        Files.writeString(seed.resolve("kiln-seed.json"), "{\"target\":\"py\",\"hash\":\"ab\",\"warmed_at\":\""
                + Instant.now().minusSeconds(3600) + "\",\"duration_ms\":42000}");
        Files.writeString(seed.resolve(".kiln-seed-hash"), "ab\n");
        // A saved probe run as `kiln probe` writes it: one server answered in 45 s (over a 30 s client's timeout, under
        // 60 s), one in 0.4 s, one never answered within its 30 s, one exited.
        Timeline none = new Timeline(0.0, null, null, null, null, null);
        ProbeRuns.save(layout, new ProbeReport(Instant.parse("2026-01-01T00:00:00Z"), "all", 1, BytecodeMode.AS_IS, List.of(
                new ServerResult("slow", ServerConfig.Transport.STDIO, 1, Outcome.OK, null, "", "2025-11-25", 45_000.0,
                        45_100.0, 3, 60_000, none, List.of()),
                new ServerResult("fast", ServerConfig.Transport.STDIO, 1, Outcome.OK, null, "", "2025-11-25", 400.0, 420.0,
                        9, 30_000, none, List.of()),
                new ServerResult("hung", ServerConfig.Transport.STDIO, 1, Outcome.TIMEOUT, null, "no answer", null, null,
                        null, -1, 30_000, none, List.of()),
                new ServerResult("dead", ServerConfig.Transport.STDIO, 1, Outcome.EXITED, 1, "exited", null, null, null, -1,
                        30_000, none, List.of("Traceback")))));
        start("127.0.0.1");

        Http.Response r = scrape();
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.header("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        String body = r.body();
        for (String name : REQUIRED) {
            assertThat(body).as(name).containsPattern("(?m)^" + name + "[{ ]");
        }
        assertThat(value(body, "kiln_projection_ticks_total{wake=\"startup\"}")).contains(1.0);
        assertThat(value(body, "kiln_projection_contracts")).contains(2.0);
        assertThat(value(body, "kiln_projection_revision")).contains((double) daemon.revision());
        assertThat(value(body, "kiln_watch_live")).contains(1.0);
        assertThat(value(body, "kiln_watch_polled_directories")).contains(0.0); // the limit is far above this tree
        assertThat(value(body, "kiln_seed_warms_total{outcome=\"warmed\"}")).contains(1.0);
        assertThat(value(body, "kiln_seed_warms_total{outcome=\"failed\"}")).contains(0.0);
        assertThat(value(body, "kiln_seed_warm_duration_seconds_bucket{le=\"30.0\"}")).contains(0.0);
        assertThat(value(body, "kiln_seed_warm_duration_seconds_bucket{le=\"60.0\"}")).contains(1.0);
        assertThat(value(body, "kiln_seed_age_seconds{target=\"py\"}")).hasValueSatisfying(v -> assertThat(v).isGreaterThanOrEqualTo(3600));
        // bucket edges at the clients' timeouts: 45 s is over 30 s, under 60 s
        assertThat(value(body, "kiln_probe_initialize_duration_seconds_bucket{server=\"slow\",le=\"10.0\"}")).contains(0.0);
        assertThat(value(body, "kiln_probe_initialize_duration_seconds_bucket{server=\"slow\",le=\"30.0\"}")).contains(0.0);
        assertThat(value(body, "kiln_probe_initialize_duration_seconds_bucket{server=\"slow\",le=\"60.0\"}")).contains(1.0);
        assertThat(value(body, "kiln_probe_initialize_duration_seconds_count{server=\"fast\"}")).contains(1.0);
        assertThat(body).doesNotContain("kiln_probe_initialize_duration_seconds_count{server=\"dead\"}"); // no answer
        assertThat(value(body, "kiln_probe_servers_over_timeout")).contains(1.0);
        assertThat(value(body, "kiln_probe_server_starts_total{outcome=\"timeout\",server=\"hung\"}")).contains(1.0);
        assertThat(value(body, "kiln_probe_server_starts_total{outcome=\"exited\",server=\"dead\"}")).contains(1.0);
        assertThat(value(body, "kiln_probe_last_run_timestamp_seconds")).contains(1767225600.0);
        // no contract path or leaf id as a label value
        assertThat(body).doesNotContain("payments/refunds/retry").doesNotContain("search/ranking");

        // a second scrape does not count the same journal line or run twice
        String again = scrape().body();
        assertThat(value(again, "kiln_seed_warms_total{outcome=\"warmed\"}")).contains(1.0);
        assertThat(value(again, "kiln_probe_initialize_duration_seconds_count{server=\"slow\"}")).contains(1.0);
    }

    @Test
    void a_contract_edit_counts_a_change_tick_and_its_parse() throws Exception {
        start("127.0.0.1");
        String before = scrape().body();
        double parsed = value(before, "kiln_projection_contracts_parsed_total").orElseThrow();
        TestTrees.contract(layout.tasksDir(), "payments/refunds/retry", "done");
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        String after;
        do {
            assertThat(System.nanoTime()).as("a change tick within " + PATIENCE).isLessThan(deadline);
            Thread.sleep(20);
            after = scrape().body();
            // The watcher may report the new directory before the file's bytes: the parse can come a tick later.
        } while (value(after, "kiln_projection_ticks_total{wake=\"change\"}").orElse(0.0) < 1
                || value(after, "kiln_projection_contracts_parsed_total").orElseThrow() <= parsed);
        assertThat(value(after, "kiln_projection_contracts_parsed_total").orElseThrow()).isGreaterThan(parsed);
        assertThat(value(after, "kiln_projection_tick_duration_seconds_count").orElseThrow()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void promtool_accepts_the_exposition() throws Exception {
        assumeThat(Files.isExecutable(PROMTOOL)).as("promtool is absent (CI installs Debian's prometheus package)").isTrue();
        start("127.0.0.1");
        byte[] body = scrape().body().getBytes(StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(PROMTOOL.toString(), "check", "metrics").redirectErrorStream(true).start();
        try (var in = new ByteArrayInputStream(body); var out = p.getOutputStream()) {
            in.transferTo(out);
        }
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("promtool check metrics said: " + said).isZero();
        assertThat(said).isEmpty(); // lint findings (units, _total, help) are printed even with exit 0
    }

    @Test
    void a_protobuf_request_gets_text_because_the_protobuf_format_is_not_on_the_runtime_path() throws Exception {
        // The exporter pulls -exposition-formats (protobuf, 2 MB); the POM excludes it. Neither it nor protobuf loads.
        for (String cls : List.of("io.prometheus.metrics.expositionformats.internal.PrometheusProtobufWriterImpl",
                "com.google.protobuf.Message")) {
            assertThat(loads(cls)).as(cls).isFalse();
        }
        assertThat(System.getProperty("java.class.path")).doesNotContain("exposition-formats").doesNotContain("protobuf");
        start("127.0.0.1");
        Http.Response r = scrape("Accept", "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.header("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
    }

    private static boolean loads(String cls) {
        try {
            Class.forName(cls, false, FleetMetricsTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    @Test
    void beyond_loopback_without_the_token_is_401() throws Exception {
        Optional<InetAddress> external = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .filter(i -> {
                    try {
                        return i.isUp() && !i.isLoopback();
                    } catch (java.net.SocketException e) {
                        return false;
                    }
                })
                .flatMap(i -> Collections.list(i.getInetAddresses()).stream())
                .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()).findFirst();
        assumeThat(external).as("this host has no non-loopback IPv4 address").isPresent();
        // Beyond loopback the daemon serves TLS only: a self-signed keystore made with keytool, pinned by the client.
        Path dir = layout.root().resolveSibling(layout.root().getFileName() + "-tls");
        Files.createDirectories(dir);
        Path pw = Files.writeString(dir.resolve("tls-password"), "s3cret-pass\n");
        Path ks = ApiSecurityTest.Keystores.selfSigned(dir.resolve("k.p12"), "s3cret-pass", "localhost");
        daemon = ProjectionDaemon.builder(layout)
                .pacing(new ChangePacer.Settings(Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofHours(1)))
                .bind(external.get().getHostAddress()).tls(ks, pw).port(0).start();
        daemon.awaitFirstProjection(PATIENCE);
        java.net.http.HttpClient client = java.net.http.HttpClient.newBuilder()
                .sslContext(ClientInternals.pinnedContext(daemon.tlsFingerprint().orElseThrow())).build();
        URI metrics = daemon.url().resolve("metrics");
        java.util.function.Function<String, java.net.http.HttpResponse<String>> get = auth -> {
            try {
                java.net.http.HttpRequest.Builder r = java.net.http.HttpRequest.newBuilder(metrics).GET();
                if (auth != null) {
                    r.header("Authorization", auth);
                }
                return client.send(r.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        };
        java.net.http.HttpResponse<String> denied = get.apply(null);
        assertThat(denied.statusCode()).isEqualTo(401);
        assertThat(denied.headers().firstValue("WWW-Authenticate").orElse("")).contains("Bearer realm=\"kiln\"");
        assertThat(denied.body()).contains("observer/api-token");
        assertThat(get.apply("Bearer nope").statusCode()).isEqualTo(401);
        java.net.http.HttpResponse<String> allowed = get.apply("Bearer " + daemon.token().value());
        assertThat(allowed.statusCode()).isEqualTo(200);
        assertThat(allowed.body()).contains("kiln_projection_ticks_total");
    }
}
