package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the console remembers survives a restart, and damaged memory never stops it from opening. */
class ConsoleSettingsTest {
    @TempDir
    Path tmp;

    @Test
    void writeThenRead_keepsThemeBoundsAndRecent() throws Exception {
        Path file = tmp.resolve("cfg/kiln/console.properties");
        ConsoleSettings s = ConsoleSettings.empty().withTheme(Theme.LIGHT)
                .withBounds(new ConsoleSettings.Bounds(10, 20, 1280, 800))
                .withRecent(Path.of("/ws/a")).withRecent(Path.of("/ws/b")).withRecent(Path.of("/ws/a"));

        s.write(file);
        ConsoleSettings read = ConsoleSettings.read(file);

        assertThat(read.theme()).contains(Theme.LIGHT);
        assertThat(read.bounds()).contains(new ConsoleSettings.Bounds(10, 20, 1280, 800));
        assertThat(read.recent()).containsExactly(Path.of("/ws/a"), Path.of("/ws/b"));
        assertThat(file.resolveSibling("console.properties.tmp")).doesNotExist();
    }

    @Test
    void withRecent_keepsTheNewestEight() {
        ConsoleSettings s = ConsoleSettings.empty();
        for (int i = 0; i < 12; i++) {
            s = s.withRecent(Path.of("/ws/" + i));
        }
        assertThat(s.recent()).hasSize(ConsoleSettings.RECENT).first().isEqualTo(Path.of("/ws/11"));
        assertThat(s.recent()).last().isEqualTo(Path.of("/ws/4"));
    }

    @Test
    void read_missingFile_isEmpty() {
        assertThat(ConsoleSettings.read(tmp.resolve("nope.properties"))).isEqualTo(ConsoleSettings.empty());
    }

    @Test
    void read_badValues_areIgnoredOneByOne() throws Exception {
        Path file = tmp.resolve("console.properties");
        Files.writeString(file, "theme=solarized\nwindow=1,2,wide,4\nrecent.0=/ws/kept\n");

        ConsoleSettings read = ConsoleSettings.read(file);

        assertThat(read.theme()).isEmpty();
        assertThat(read.bounds()).isEmpty();
        assertThat(read.recent()).containsExactly(Path.of("/ws/kept"));
    }

    @Test
    void read_tinyWindow_isNotRestored() throws Exception {
        Path file = tmp.resolve("console.properties");
        Files.writeString(file, "window=0,0,20,10\ntheme=dark\n");
        assertThat(ConsoleSettings.read(file).bounds()).isEqualTo(Optional.empty());
        assertThat(ConsoleSettings.read(file).theme()).contains(Theme.DARK);
    }
}
