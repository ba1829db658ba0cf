package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kiln serve} as a real process: prints where it serves, refuses a second daemon, stops cleanly on SIGTERM. */
@ProcessTest @DaemonTest
class ServeCommandTest {

    @TempDir
    Path dir;

    @Test
    void serve_process_printsUrlAndTokenRefusesASecondAndStopsCleanlyOnSigterm() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "60").exit()).isZero();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                "dev.kiln.app.Main", "serve", ws.toString(), "--port", "0", "--interval", "200ms")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            List<String> banner = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                String line = out.readLine();
                assertThat(line).as("banner line " + i + " after " + banner).isNotNull();
                banner.add(line);
            }
            assertThat(banner.get(0)).startsWith("Serving " + ws.toAbsolutePath()).contains("http://127.0.0.1:");
            assertThat(banner.get(3)).contains(ws.resolve("observer/api-token").toAbsolutePath().toString());
            URI base = URI.create(banner.get(0).substring(banner.get(0).indexOf("http://")));
            assertThat(Files.exists(ws.resolve("observer/api-token"))).isTrue();

            int status = 503;
            for (int i = 0; i < 600 && status == 503; i++) {
                HttpURLConnection c = (HttpURLConnection) base.resolve("api/state").toURL().openConnection();
                status = c.getResponseCode();
                c.disconnect();
                if (status == 503) {
                    Thread.sleep(50);
                }
            }
            assertThat(status).isEqualTo(200);

            CliRun second = CliRun.kiln("serve", ws.toString(), "--port", "0");
            assertThat(second.exit()).isEqualTo(2);
            assertThat(second.err().strip()).as("one line: who, where, what to do").doesNotContain("\n")
                    .startsWith("kiln: " + ws.toAbsolutePath() + " is already projected by kiln serve (pid " + p.pid() + "), API "
                            + base).contains("stop it first (kill " + p.pid()).contains("kiln status " + base);

            p.destroy(); // SIGTERM
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
            assertThat(ws.resolve("observer/api-token")).doesNotExist();
            assertThat(ws.resolve("observer/state.json")).exists();
            try (Stream<Path> s = Files.list(ws.resolve("observer"))) {
                assertThat(s.map(f -> f.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
            }
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void serve_kilnJsonBindsAllInterfaces_staysOnLoopbackAndWarnsNamingFileAndFlag() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "5").exit()).isZero();
        // a workspace is data anyone may hand over: its own settings must not open the API to the network
        Files.writeString(ws.resolve("kiln.json"), "{\"api\": {\"bind\": \"0.0.0.0\", \"port\": 0}}\n");
        Path err = dir.resolve("serve.err");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                "dev.kiln.app.Main", "serve", ws.toString()).redirectError(err.toFile()).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String banner = out.readLine();
            assertThat(banner).as("banner").isNotNull().startsWith("Serving ");
            assertThat(banner).contains("http://127.0.0.1:").doesNotContain("0.0.0.0");
            assertThat(Files.readString(err)).contains(ws.resolve("kiln.json").toAbsolutePath().toString())
                    .contains("0.0.0.0").contains("--bind 0.0.0.0");
        } finally {
            p.destroy();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    @Test
    void serve_whileAConsoleOwnsTheWorkspace_refusesInOneLineNamingTheConsoleItsApiAndWhatToDo() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "5").exit()).isZero();
        try (dev.kiln.core.Kiln console = dev.kiln.core.Kiln.open(ws, new dev.kiln.core.telemetry.EventBus(),
                java.time.Clock.systemUTC())) {
            assertThat(console.startLive()).as("nobody serves it: the console owns it").isEmpty();
            String api = console.apiUrl().orElseThrow();
            // read by another process: a descriptor of the lock file opened and closed here would drop the console's lock
            Process cat = new ProcessBuilder("cat", ws.resolve("observer/serve.lock").toString()).start();
            assertThat(new String(cat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII))
                    .as("the lock file records its holder's kind").contains("kind console\n");
            Path err = dir.resolve("serve.err");
            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            Process p = new ProcessBuilder(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                    "dev.kiln.app.Main", "serve", ws.toString(), "--port", "0").redirectError(err.toFile())
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            try {
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("refused, not serving").isTrue();
                assertThat(p.exitValue()).isEqualTo(2);
                List<String> lines = Files.readAllLines(err);
                assertThat(lines).as("the refusal is one line (the lock file is never printed raw)").hasSize(1);
                assertThat(lines.get(0)).isEqualTo("kiln: " + ws.toAbsolutePath() + " is already projected by a Kiln console (pid "
                        + ProcessHandle.current().pid() + "), API " + api + "; one writer per workspace: close that console"
                        + " (it stops projecting), or follow it: kiln attach " + api);
            } finally {
                p.destroyForcibly();
            }
            assertThat(console.apiUrl()).as("the console still owns it").contains(api);
        }
    }

    @Test
    void serve_notAWorkspace_exit2WithWhatToDo() {
        CliRun r = CliRun.kiln("serve", dir.resolve("nothing").toString(), "--port", "0");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("not a Kiln workspace").contains("kiln demo");
    }
}
