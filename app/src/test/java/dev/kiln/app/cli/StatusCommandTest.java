package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.HostileDaemon;
import dev.kiln.testkit.ProcessTest;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln status URL} against real daemons on loopback: a {@code kiln serve} child process with TLS (a
 * self-signed keystore made with the JDK's keytool) and a pinned fingerprint, a daemon whose watch degraded, and
 * one that is gone, one whose watch is over its inotify limit (in all five places the verdict shows); and
 * {@code kiln serve --bind 0.0.0.0} without TLS, which must not start.
 */
@ProcessTest @DaemonTest
class StatusCommandTest {
    private static final ObjectMapper M = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void status_tlsDaemonWithPinnedCertificate_healthyExit0_wrongPinOrNoPinExit2_goneExit2() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "20").exit()).isZero();
        HealthStatusTest.healthyDemo(ws);
        Path pw = Files.writeString(dir.resolve("tls-password"), "a-long-pass\n");
        Path ks = keystore(dir.resolve("kiln.p12"), "a-long-pass");
        Path otherKs = keystore(dir.resolve("other.p12"), "a-long-pass");
        String otherPin = sha256(otherKs, "a-long-pass");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                "dev.kiln.app.Main", "serve", ws.toString(), "--port", "0", "--interval", "200ms",
                "--tls-keystore", ks.toString(), "--tls-password-file", pw.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            List<String> banner = new ArrayList<>();
            String tls = null;
            for (int i = 0; i < 8 && tls == null; i++) {
                String line = out.readLine();
                assertThat(line).as("banner line " + i + " after " + banner).isNotNull();
                banner.add(line);
                if (line.trim().startsWith("tls:")) {
                    tls = line;
                }
            }
            assertThat(banner.get(0)).contains("https://127.0.0.1:");
            String url = banner.get(0).substring(banner.get(0).indexOf("https://"));
            String pin = sha256(ks, "a-long-pass");
            assertThat(tls).as("the banner names the certificate's fingerprint").contains("SHA256 " + pin);
            assertThat(String.join("\n", banner)).contains(ws.resolve("observer/api-token").toAbsolutePath().toString());

            // healthy once the first projection is done (bounded: only a failing test waits the whole time)
            CliRun[] last = new CliRun[1];
            Await.await("kiln status healthy", Duration.ofSeconds(60), () -> {
                last[0] = CliRun.kiln("status", url, "--pin", pin, "--json");
                return last[0].exit() == 0;
            });
            JsonNode j = M.readTree(last[0].out());
            assertThat(j.path("status").asText()).isEqualTo("healthy");
            assertThat(j.path("reachable").asBoolean()).isTrue();
            assertThat(j.path("api_version").asInt()).isEqualTo(2);
            JsonNode state = M.readTree(ws.resolve("observer/state.json").toFile()); // the daemon's own document
            assertThat(j.path("contracts").asLong()).isEqualTo(state.path("leaves").size()).isPositive();
            assertThat(j.path("failures").asLong()).isEqualTo(state.path("failures").size());
            assertThat(j.path("revision").asLong()).isPositive();
            assertThat(j.path("watch").path("mode").asText()).isEqualTo("live");
            assertThat(j.path("tls_sha256").asText()).isEqualTo(pin);
            assertThat(j.path("last_projection_age_ms").isNumber()).isTrue();

            CliRun human = CliRun.kiln("status", url, "--pin", pin.replace(":", "").toLowerCase(Locale.ROOT));
            assertThat(human.exit()).isZero();
            assertThat(human.out()).contains("healthy").contains("contracts:  " + j.path("contracts").asLong()).contains("watch:      live");

            // the workspace's directory names its daemon: the lock gives the URL and the pin, no flag needed
            CliRun byDir = CliRun.kiln("status", ws.toString(), "--json");
            assertThat(byDir.exit()).as(byDir.err()).isZero();
            assertThat(M.readTree(byDir.out()).path("tls_sha256").asText()).isEqualTo(pin);

            CliRun wrongPin = CliRun.kiln("status", url, "--pin", otherPin);
            assertThat(wrongPin.exit()).isEqualTo(2);
            assertThat(wrongPin.err()).contains("certificate fingerprint mismatch").contains(pin).contains(otherPin);

            CliRun noPin = CliRun.kiln("status", url, "--json");
            assertThat(noPin.exit()).isEqualTo(2);
            assertThat(noPin.err()).contains("--pin").contains("It presented SHA256 " + pin);
            assertThat(M.readTree(noPin.out()).path("status").asText()).isEqualTo("unreachable");

            CliRun plainToTls = CliRun.kiln("status", url.replace("https://", "http://"));
            assertThat(plainToTls.exit()).isEqualTo(2);

            CliRun pinOverHttp = CliRun.kiln("status", url.replace("https://", "http://"), "--pin", pin);
            assertThat(pinOverHttp.exit()).isEqualTo(2);
            assertThat(pinOverHttp.err()).contains("needs an https:// URL");

            p.destroy();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
            CliRun gone = CliRun.kiln("status", url, "--pin", pin);
            assertThat(gone.exit()).isEqualTo(2);
            assertThat(gone.err()).contains("nothing listens");
            CliRun goneByDir = CliRun.kiln("status", ws.toString());
            assertThat(goneByDir.exit()).isEqualTo(2);
            assertThat(goneByDir.err()).contains("no kiln serve holds " + ws.toAbsolutePath().normalize())
                    .contains("kiln serve " + ws.toAbsolutePath().normalize());
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void status_watchDegraded_exit1NamingWhy() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "5").exit()).isZero();
        HealthStatusTest.healthyDemo(ws);
        try (ProjectionDaemon d = ProjectionDaemon.builder(WorkspaceLayout.of(ws)).port(0).start()) {
            String url = d.url().toString();
            Await.await("kiln status healthy", Duration.ofSeconds(60), () -> CliRun.kiln("status", url).exit() == 0);
            // the watched root goes away: the watch degrades, the daemon keeps projecting on the interval
            try (Stream<Path> s = Files.walk(ws.resolve("tasks"))) {
                for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(f);
                }
            }
            CliRun[] last = new CliRun[1];
            Await.await("kiln status degraded", Duration.ofSeconds(60), () -> {
                last[0] = CliRun.kiln("status", url);
                return last[0].exit() == 1;
            });
            assertThat(last[0].out()).contains("degraded").contains("watch_degraded: watch degraded");
        }
    }

    /**
     * A watch over its inotify limit (one watch short of the workspace's directories, injected: the machine's own limit
     * is shared by every process): the daemon stat-walks what it cannot watch, and all five places say degraded with
     * {@code watch_polling}.
     */
    @Test
    @dev.kiln.testkit.KernelTest
    void watchOverItsInotifyLimit_degradedWatchPolling_inAllFivePlaces() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "5").exit()).isZero();
        HealthStatusTest.healthyDemo(ws);
        WorkspaceLayout layout = WorkspaceLayout.of(ws);
        long dirs;
        try (Stream<Path> walk = Files.walk(ws)) {
            dirs = walk.filter(Files::isDirectory).filter(f -> !f.startsWith(layout.observerDir())).count();
        }
        try (ProjectionDaemon d = ProjectionDaemon.builder(layout).port(0).watchLimit(dirs - 1).start();
                HealthPlaces.Cards cards = HealthPlaces.Cards.attach(d.url(), d.tokenFile());
                dev.kiln.ui.fleet.FleetViewModel page = HealthPlaces.fleet(new dev.kiln.core.fleet.DaemonEntry("polling", d.url(),
                        java.util.Optional.of(d.tokenFile()), java.util.Optional.empty()))) {
            d.awaitFirstProjection(Duration.ofSeconds(60));
            HealthPlaces.seenEverywhere("polling", d.url(), () -> page.row("polling"), cards,
                    dev.kiln.core.health.HealthState.DEGRADED, "watch_polling");
        }
    }

    /** #25 item 6: an endless health grew kiln status to 6.5 GB (OutOfMemoryError, then deaf to SIGTERM). */
    @Test
    void status_endlessHealth_exit2NamingTheDaemonAndTheBound_withinASmallHeap_andNotDeafToSigterm() throws Exception {
        try (HostileDaemon d = HostileDaemon.start().route("/api/v1/health", HostileDaemon.endless())) {
            CliChild c = CliChild.start(dir, List.of("-Xmx64m"), "status", d.url().toString());
            try {
                c.awaitEndOrStall(d);
                assertThat(c.terminate(30)).as("kiln status exited (by itself, or on SIGTERM)").isTrue();
                assertThat(c.process().exitValue()).as(c.stderr()).isEqualTo(2);
                assertThat(c.stderr()).contains("the daemon at " + d.url()).contains("sent more than 1 MiB answering GET"
                        + " /api/v1/health").contains("check the URL").doesNotContain("OutOfMemoryError").doesNotContain("\tat ");
            } finally {
                c.process().destroyForcibly();
            }
        }
    }

    /** #25 item 7: a health that drips a byte a second had no overall deadline. */
    @Test
    void status_healthDrippingAByteASecond_exit2AfterItsTimeout() throws Exception {
        try (HostileDaemon d = HostileDaemon.start().route("/api/v1/health", HostileDaemon.drip(Duration.ofMillis(200)))) {
            CliRun r = CliRun.kiln("status", d.url().toString(), "--timeout", "1s", "--json");
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains("the daemon at " + d.url()).contains("within 1 s").contains("--timeout");
            assertThat(M.readTree(r.out()).path("status").asText()).isEqualTo("unreachable");
        }
    }

    @Test
    void status_notAUrl_exit2() {
        CliRun r = CliRun.kiln("status", "ftp://127.0.0.1:1/");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("http://HOST:PORT/");
        CliRun q = CliRun.kiln("status", "http://127.0.0.1:1/?token=abc");
        assertThat(q.exit()).isEqualTo(2);
        assertThat(q.err()).contains("--token-file").doesNotContain("abc");
    }

    @Test
    void serve_bindAllInterfacesWithoutTls_exit2SayingHowToFixIt_andTouchesNothing() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "5").exit()).isZero();
        CliRun r = CliRun.kiln("serve", ws.toString(), "--bind", "0.0.0.0", "--port", "0");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("0.0.0.0").contains("without TLS").contains("--tls-keystore")
                .contains("--tls-password-file").contains("keytool -genkeypair");
        assertThat(ws.resolve("observer/api-token")).doesNotExist();
        CliRun half = CliRun.kiln("serve", ws.toString(), "--tls-keystore", dir.resolve("x.p12").toString());
        assertThat(half.exit()).isEqualTo(2);
        assertThat(half.err()).contains("go together");
    }

    static Path keystore(Path file, String password) throws Exception {
        keytool("-genkeypair", "-alias", "kiln", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "30",
                "-storetype", "PKCS12", "-keystore", file.toString(), "-storepass", password, "-keypass", password,
                "-dname", "CN=localhost", "-ext", "san=dns:localhost,ip:127.0.0.1");
        return file;
    }

    /** The fingerprint as keytool prints it: what an operator would copy. */
    static String sha256(Path file, String password) throws Exception {
        for (String line : keytool("-list", "-v", "-storetype", "PKCS12", "-keystore", file.toString(), "-storepass",
                password).split("\n")) {
            if (line.trim().startsWith("SHA256:")) {
                return line.trim().substring("SHA256:".length()).trim();
            }
        }
        throw new AssertionError("keytool printed no SHA256 fingerprint");
    }

    private static String keytool(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.getInputStream().transferTo(out);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("keytool finished").isTrue();
        assertThat(p.exitValue()).as("keytool: " + out).isZero();
        return out.toString(StandardCharsets.UTF_8);
    }
}
