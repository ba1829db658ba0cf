package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
class ServeCommandTest {

    @TempDir
    Path dir;

    @Test
    void serve_process_printsUrlAndTokenRefusesASecondAndStopsCleanlyOnSigterm() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "60").exit()).isZero();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
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
            assertThat(second.err()).contains("already serving").contains("pid " + p.pid());

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
        Process p = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
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
    void serve_notAWorkspace_exit2WithWhatToDo() {
        CliRun r = CliRun.kiln("serve", dir.resolve("nothing").toString(), "--port", "0");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("not a Kiln workspace").contains("kiln demo");
    }
}
