package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class DemoCommandTest {
    @TempDir
    Path tmp;

    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = KilnCommand.commandLine();
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        return cl.execute(args);
    }

    @Test
    void demo_writesWorkspace() {
        assertThat(run("demo", tmp.resolve("ws").toString(), "--contracts", "25", "--seed", "3")).isZero();
        assertThat(tmp.resolve("ws/kiln.json")).exists();
    }

    @Test
    void demo_foreignDirectory_exitCode2WithClearMessage() throws Exception {
        Files.writeString(tmp.resolve("mine.txt"), "keep me");

        assertThat(run("demo", tmp.toString())).isEqualTo(2);

        assertThat(err.toString()).startsWith("kiln: ").contains("not a Kiln workspace").contains("--force");
        assertThat(tmp.resolve("mine.txt")).hasContent("keep me");
        assertThat(tmp.resolve("kiln.json")).doesNotExist();
    }

    @Test
    void console_onNonWorkspace_refusesBeforeOpeningAWindow() {
        assertThat(run(tmp.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("is not a Kiln workspace").contains("kiln demo");
    }

    @Test
    void console_malformedSettings_refusedWithFileNamed() throws Exception {
        assertThat(run("demo", tmp.resolve("ws").toString(), "--contracts", "5")).isZero();
        Files.writeString(tmp.resolve("ws/kiln.json"), "{\"interval\": \"soon\"}");

        assertThat(run(tmp.resolve("ws").toString())).isEqualTo(2);

        assertThat(err.toString()).contains("kiln.json").contains("'soon' is not a duration");
    }

    @Test
    void demo_zeroContracts_refused() {
        assertThat(run("demo", tmp.resolve("ws").toString(), "--contracts", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("contracts must be at least 1");
    }
}
