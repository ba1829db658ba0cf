package dev.kiln.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After {@code package}: the launcher's module path (the Prometheus jars are automatic modules) starts {@code kiln
 * serve} and serves {@code /metrics}, and the app's lib directory carries no protobuf.
 */
@ProcessTest @DaemonTest
class MetricsLauncherIT {
    private static final Path ROOT = Path.of(System.getProperty("kiln.project.root", "..")).toAbsolutePath().normalize();

    @TempDir
    Path tmp;

    @Test
    void theLibDirectoryHasTheTextFormatsAndNoProtobuf() throws Exception {
        List<String> jars;
        try (Stream<Path> s = Files.list(ROOT.resolve("app/target/lib"))) {
            jars = s.map(p -> p.getFileName().toString()).toList();
        }
        assertThat(jars).anyMatch(j -> j.startsWith("prometheus-metrics-exposition-textformats-"));
        assertThat(jars).noneMatch(j -> j.contains("protobuf") || j.startsWith("prometheus-metrics-exposition-formats-"));
    }

    @Test
    void kilnServeOnTheModulePathServesMetrics() throws Exception {
        Path ws = tmp.resolve("ws");
        Process demo = new ProcessBuilder(ROOT.resolve("kiln").toString(), "demo", ws.toString(), "--contracts", "10")
                .redirectErrorStream(true).redirectOutput(tmp.resolve("demo.txt").toFile()).start();
        assertThat(demo.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(demo.exitValue()).as(Files.readString(tmp.resolve("demo.txt"))).isZero();
        ProcessBuilder pb = new ProcessBuilder(ROOT.resolve("kiln").toString(), "serve", ws.toString(), "--port", "0")
                .redirectError(tmp.resolve("serve-err.txt").toFile());
        pb.environment().remove("DISPLAY");
        pb.environment().put("XDG_STATE_HOME", tmp.resolve("state").toString());
        Process serve = pb.start();
        try {
            String banner = new BufferedReader(new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertThat(banner).as("banner; stderr: %s", tmp.resolve("serve-err.txt")).isNotNull();
            Matcher m = Pattern.compile("(http://\\S+/)").matcher(banner);
            assertThat(m.find()).as(banner).isTrue();
            HttpResponse<String> r = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(m.group(1)).resolve("metrics")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("kiln_projection_ticks_total{wake=\"startup\"}")
                    .containsPattern("kiln_build_info\\{version=\"[0-9][^\"]*\"\\} 1"); // the jar's version on the module path
        } finally {
            serve.destroy();
            serve.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
