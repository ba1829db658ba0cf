package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files an operator points Kiln at, provoked for real: token files that are a FIFO (made with {@code mkfifo}),
 * {@code /dev/zero}, a directory or a real file with a stray second line, in {@code kiln status URL}, {@code kiln status
 * NAME} and the {@code kiln status --all} table; a daemon list over its bounds; a TLS password file of mode 644 given to
 * {@code kiln serve}. Commands that read the daemon list run as child processes (the list is found through
 * {@code XDG_CONFIG_HOME}), each bounded so that one that hangs fails the test rather than the build.
 */
@ProcessTest @DaemonTest @KernelTest
class OperatorFilesTest {
    private static final String SECRET = "5ec2e7".repeat(10) + "feed";
    private static final ObjectMapper M = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void status_tokenFileWithAStrayLine_refusedNamingTheFile_tokenNeverPrinted() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "5").exit()).isZero();
        Path stray = Files.writeString(dir.resolve("eval-3.token"), SECRET + "\nstray-second-line\n");
        try (ProjectionDaemon d = ProjectionDaemon.builder(WorkspaceLayout.of(ws)).port(0).start()) {
            CliRun r = CliRun.kiln("status", d.url().toString(), "--token-file", stray.toString());
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains(stray.toString()).contains("holds 2 lines").contains("must hold one line")
                    .doesNotContain("Exception").doesNotContain("\tat ");
            assertThat(r.out() + r.err()).doesNotContain(SECRET).doesNotContain("stray-second-line")
                    .doesNotContain("invalid header");

            CliRun json = CliRun.kiln("status", d.url().toString(), "--token-file", stray.toString(), "--json");
            assertThat(json.exit()).isEqualTo(2);
            assertThat(M.readTree(json.out()).path("error").asText()).contains(stray.toString());
            assertThat(json.out() + json.err()).doesNotContain(SECRET).doesNotContain("stray-second-line");
        }
    }

    @Test
    void statusNameAndAll_fifoZeroDirectoryAndStrayLineTokens_refusedAtOnceEachInItsRow_theGoodDaemonStillAnswers()
            throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "5").exit()).isZero();
        Path fifo = dir.resolve("fifo.token");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertThat(mk.waitFor(30, TimeUnit.SECONDS) && mk.exitValue() == 0).as("mkfifo").isTrue();
        Path stray = Files.writeString(dir.resolve("stray.token"), SECRET + "\nstray-second-line\n");
        Path config = dir.resolve("config");
        try (ProjectionDaemon d = ProjectionDaemon.builder(WorkspaceLayout.of(ws)).port(0).start()) {
            d.awaitFirstProjection(Duration.ofSeconds(60));
            String url = d.url().toString();
            Path list = Files.createDirectories(config.resolve("kiln")).resolve(DaemonList.FILE);
            Files.writeString(list, "{\"daemons\": ["
                    + entry("good", url, null) + ", " + entry("fifo", url, fifo) + ", " + entry("zero", url, Path.of("/dev/zero"))
                    + ", " + entry("dir", url, dir) + ", " + entry("stray", url, stray) + "]}\n");

            Child one = kilnChild(config, "status", "fifo");
            assertThat(one.exit()).isEqualTo(2);
            assertThat(one.err()).contains(fifo.toString()).contains("is a FIFO").contains("must hold one line");

            Child all = kilnChild(config, "status", "--all");
            assertThat(all.exit()).isEqualTo(2);
            assertThat(row(all.out(), "good")).contains("failing"); // answered: the demo's malformed contract (#29)
            for (String bad : List.of("fifo", "zero", "dir", "stray")) {
                assertThat(row(all.out(), bad)).as(bad).contains("unreachable");
            }
            assertThat(all.err()).contains("fifo: cannot read the API token file " + fifo + ": it is a FIFO")
                    .contains("zero: cannot read the API token file /dev/zero: it is a device")
                    .contains("dir: cannot read the API token file " + dir + ": it is a directory")
                    .contains("stray: cannot read the API token file " + stray + ": it holds 2 lines")
                    .doesNotContain("Exception").doesNotContain("OutOfMemory");
            assertThat(all.out() + all.err()).doesNotContain(SECRET).doesNotContain("stray-second-line");
        }
    }

    @Test
    void statusAll_daemonListOverItsBounds_refusedNamingFileAndBound_andLeftAsItWas() throws Exception {
        Path config = dir.resolve("config");
        Path list = Files.createDirectories(config.resolve("kiln")).resolve(DaemonList.FILE);
        // a real list just over the size bound: valid JSON, every entry well-formed
        StringBuilder big = new StringBuilder("{\"daemons\": [");
        String padding = "x".repeat(1500);
        for (int i = 0; big.length() <= DaemonList.MAX_BYTES; i++) {
            big.append(i == 0 ? "" : ", ").append(entry("d" + i, "http://127.0.0.1:" + (1024 + i) + "/",
                    dir.resolve(padding + i)));
        }
        String bigText = big.append("]}\n").toString();
        Files.writeString(list, bigText);
        Child tooBig = kilnChild(config, "status", "--all");
        assertThat(tooBig.exit()).isEqualTo(2);
        assertThat(tooBig.err()).contains("the daemon list " + list).contains("more than a daemon list may hold")
                .contains("1 MiB").contains("will not overwrite it").doesNotContain("Exception");
        assertThat(Files.readString(list)).isEqualTo(bigText);
        // more daemons than a list may hold, in a list under 1 MiB: DaemonListTest
    }

    @Test
    void serve_tlsPasswordFileReadableByOthers_warnsNamingItAndHowToFix_passwordNeverPrinted() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "5").exit()).isZero();
        Path ks = StatusCommandTest.keystore(dir.resolve("kiln.p12"), "a-long-pass");
        Path pw = Files.writeString(dir.resolve("kiln.pass"), "a-long-pass\n");
        Files.setPosixFilePermissions(pw, PosixFilePermissions.fromString("rw-r--r--"));
        Path err = dir.resolve("serve.err");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                "dev.kiln.app.Main", "serve", ws.toString(), "--port", "0", "--tls-keystore", ks.toString(),
                "--tls-password-file", pw.toString()).redirectError(err.toFile()).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String banner = out.readLine();
            assertThat(banner).as("banner").isNotNull().startsWith("Serving ").contains("https://127.0.0.1:");
            assertThat(Files.readString(err)).contains("TLS password file " + pw).contains("can be read by other users")
                    .contains("mode 644").contains("chmod 600 " + pw).doesNotContain("a-long-pass");
        } finally {
            p.destroy();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    private static String entry(String name, String url, Path tokenFile) {
        return "{\"name\": \"" + name + "\", \"url\": \"" + url + "\""
                + (tokenFile == null ? "" : ", \"token_file\": \"" + tokenFile + "\"") + "}";
    }

    /** The table row of daemon {@code name}. */
    private static String row(String table, String name) {
        return table.lines().filter(l -> l.startsWith(name + " ")).findFirst().orElse("(no row for " + name + ")");
    }

    private record Child(int exit, String out, String err) {
    }

    /** {@code kiln args…} in a JVM of its own with a small heap; killed, and the test failed, if it hangs. */
    private Child kilnChild(Path config, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-cp", System.getProperty("java.class.path"), "dev.kiln.app.Main"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("XDG_CONFIG_HOME", config.toString());
        pb.environment().put("XDG_STATE_HOME", dir.resolve("state").toString());
        Path out = Files.createTempFile(dir, "kiln-out", ".txt");
        Path err = Files.createTempFile(dir, "kiln-err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("kiln " + String.join(" ", args) + " finished; it printed: "
                    + Files.readString(out) + Files.readString(err)).isTrue();
        } finally {
            p.destroyForcibly();
        }
        return new Child(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
