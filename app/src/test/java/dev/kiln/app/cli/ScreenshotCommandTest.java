package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.app.common.CliException;
import org.junit.jupiter.api.Test;

/** {@code kiln screenshot}'s arguments; the rendering itself runs in {@code LauncherIT} (it needs the launcher's Monocle). */
class ScreenshotCommandTest {
    @Test
    void parseSize_widthByHeight() {
        assertThat(ScreenshotCommand.parseSize("1280x800")).containsExactly(1280, 800);
        assertThat(ScreenshotCommand.parseSize(" 640X480 ")).containsExactly(640, 480);
    }

    @Test
    void parseSize_badOrTiny_saysWhatIsExpected() {
        for (String bad : new String[] {"1280", "axb", "10x10", "1280x800x2", "99999x800"}) {
            assertThatThrownBy(() -> ScreenshotCommand.parseSize(bad)).isInstanceOf(CliException.class)
                    .hasMessageContaining("WIDTHxHEIGHT").hasMessageContaining(bad);
        }
    }

    @Test
    void badTheme_exitsTwoBeforeAnythingStarts() {
        CliRun r = CliRun.kiln("screenshot", "--theme", "solarized", "/nonexistent");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--theme 'solarized' is not a theme: give light or dark");
    }

    @Test
    void badPage_namesThePages() throws Exception {
        java.nio.file.Path ws = java.nio.file.Files.createTempDirectory("kiln-shot");
        new dev.kiln.core.demo.DemoWorkspace().write(ws, 5, 1, false);
        CliRun r = CliRun.kiln("screenshot", "--page", "fleet-of-ships", ws.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("no page 'fleet-of-ships'; pages are projection, contracts");
    }
}
