package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.FxTest;
import dev.kiln.testkit.ProcessTest;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real console in a child JVM (headless, Monocle) stopped with SIGTERM, which closes no window: its settings
 * (window size and position) are written anyway, whole.
 */
@ProcessTest
@FxTest
class ConsoleSigtermTest {
    @TempDir
    Path dir;

    @Test
    void console_stoppedWithSigterm_keepsItsWindowSettings() throws Exception {
        Path ws = dir.resolve("ws");
        new DemoWorkspace().write(ws, 30, 3, false);
        Path config = dir.resolve("config");
        Path frame = dir.resolve("first-frame");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-exports") || a.startsWith("--add-opens")) { // the toolkit's flags, as in this JVM
                cmd.add(a);
            }
        }
        cmd.addAll(List.of("-Dglass.platform=Monocle", "-Dmonocle.platform=Headless", "-Dprism.order=sw",
                "-Dkiln.firstFrameFile=" + frame, "-cp", System.getProperty("java.class.path"), "dev.kiln.app.Main", ws.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("out.txt").toFile());
        pb.environment().put("XDG_CONFIG_HOME", config.toString());
        pb.environment().remove("GTK_THEME");
        Process p = pb.start();
        try {
            Await.await("the console's first frame", Duration.ofSeconds(120), () -> Files.exists(frame) || !p.isAlive());
            assertThat(p.isAlive()).as("the console runs: %s", Files.exists(dir.resolve("out.txt"))
                    ? Files.readString(dir.resolve("out.txt")) : "").isTrue();
            Path settings = config.resolve("kiln/console.properties");
            assertThat(settings).doesNotExist(); // nothing written while it runs
            Thread.sleep(3_000); // the keeper samples the window every 2 s
            p.destroy(); // SIGTERM
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(settings).exists();
            String text = Files.readString(settings);
            assertThat(text).contains("window=").contains("recent.0=" + ws.toString().replace(":", "\\:"));
            assertThat(config.resolve("kiln/console.properties.tmp")).doesNotExist();
        } finally {
            p.destroyForcibly();
        }
    }
}
