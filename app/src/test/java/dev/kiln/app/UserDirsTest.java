package dev.kiln.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.ProcessTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the user's directories are, and what happens when they cannot be written. */
@ProcessTest
class UserDirsTest {
    @TempDir
    Path tmp;

    @Test
    void state_homeFromTheEnvironment_winsOverJavasUserHome() {
        Map<String, String> env = Map.of("HOME", "/home/someone-else");

        assertThat(UserDirs.state(env)).isEqualTo(Path.of("/home/someone-else/.local/state/kiln"));
        assertThat(UserDirs.data(env)).isEqualTo(Path.of("/home/someone-else/.local/share/kiln"));
        assertThat(UserDirs.state(Map.of("HOME", "/h", "XDG_STATE_HOME", "/x/state")))
                .isEqualTo(Path.of("/x/state/kiln"));
    }

    @Test
    void consoleSettings_xdgConfigHomeFirst_thenHomeDotConfig() {
        assertThat(UserDirs.consoleSettings(Map.of("HOME", "/h"))).isEqualTo(Path.of("/h/.config/kiln/console.properties"));
        assertThat(UserDirs.consoleSettings(Map.of("HOME", "/h", "XDG_CONFIG_HOME", "/x/cfg")))
                .isEqualTo(Path.of("/x/cfg/kiln/console.properties"));
    }

    /** A real kiln process whose state dir cannot be written: one line on stderr, then the command runs. */
    @Test
    void main_stateDirNotWritable_printsOneLineAndCarriesOn() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home/.local")).getParent();
        // A file where the state directory should be: unwritable even for root, whom mode bits do not stop.
        Files.writeString(home.resolve(".local/state"), "not a directory");
        {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    "dev.kiln.app.Main", "--version");
            pb.environment().remove("XDG_STATE_HOME");
            pb.environment().remove("XDG_DATA_HOME");
            pb.environment().put("HOME", home.toString());
            pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            Process p = pb.start();
            String out;
            String err;
            try (var o = p.getInputStream(); var e = p.getErrorStream()) {
                out = new String(o.readAllBytes(), StandardCharsets.UTF_8);
                err = new String(e.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();

            assertThat(p.exitValue()).as(err).isZero();
            assertThat(out).isNotBlank();
            List<String> lines = err.lines().toList();
            assertThat(lines).as(err).hasSize(1);
            assertThat(lines.get(0)).contains(home.resolve(".local/state/kiln/logs").toString()).contains("not written");
        }
    }
}
