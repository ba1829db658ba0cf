package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.fleet.DaemonEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the console remembers survives a restart, and damaged memory never stops it from opening. */
class ConsoleSettingsTest {
    private static final String PIN = "AB:".repeat(31) + "AB";

    @TempDir
    Path tmp;

    @Test
    void withRecentDaemon_newestFirst_onePerUrl_theNewestNameAndCredentialsWin() {
        ConsoleSettings s = ConsoleSettings.empty()
                .withRecentDaemon(DaemonEntry.of("eval-1", "http://127.0.0.1:7001/", "", ""))
                .withRecentDaemon(DaemonEntry.of("eval-2", "http://127.0.0.1:7002/", "", ""))
                .withRecentDaemon(DaemonEntry.of("eval-1-renamed", "127.0.0.1:7001", "/keys/eval-1.token", ""));

        assertThat(s.daemons()).extracting(DaemonEntry::name).containsExactly("eval-1-renamed", "eval-2");
        assertThat(s.daemons().get(0).tokenFile()).contains(Path.of("/keys/eval-1.token"));
        assertThat(s.withRecentDaemon(DaemonEntry.of("eval-2", "http://127.0.0.1:7002/", "keys/../eval-2.token", ""))
                .daemons().get(0).tokenFile()).as("relative to where it was given, kept absolute")
                .contains(Path.of("eval-2.token").toAbsolutePath());
    }

    @Test
    void withRecentDaemon_keepsTheNewestEight() {
        ConsoleSettings s = ConsoleSettings.empty();
        for (int i = 0; i < 12; i++) {
            s = s.withRecentDaemon(DaemonEntry.of("d" + i, "http://127.0.0.1:" + (7000 + i) + "/", "", ""));
        }
        assertThat(s.daemons()).hasSize(ConsoleSettings.RECENT_DAEMONS)
                .extracting(DaemonEntry::name).startsWith("d11").endsWith("d4");
    }

    @Test
    void writeThenRead_keepsRecentDaemons_withTheTokenFilesPathAndPin_neverTheToken() throws Exception {
        Path token = Files.writeString(tmp.resolve("eval-3.token"), "s3cr3t-token-value\n");
        Path file = tmp.resolve("cfg/kiln/console.properties");
        DaemonEntry tls = DaemonEntry.of("eval-3", "https://eval-3.internal:7117/", token.toString(), PIN);
        DaemonEntry plain = DaemonEntry.of("daemon", "http://127.0.0.1:7117/", "", "");
        ConsoleSettings s = ConsoleSettings.empty().withRecent(Path.of("/ws/a")).withRecentDaemon(plain).withRecentDaemon(tls);

        s.write(file);
        ConsoleSettings read = ConsoleSettings.read(file);

        assertThat(read.daemons()).containsExactly(tls, plain);
        assertThat(read.recent()).containsExactly(Path.of("/ws/a"));
        String written = Files.readString(file);
        assertThat(written).doesNotContain("s3cr3t").contains("eval-3.token").contains(PIN.replace(":", "\\:"));
        assertThat(read.withTheme(Theme.DARK).withRecent(Path.of("/ws/b")).daemons()).as("other changes keep them")
                .containsExactly(tls, plain);
    }

    @Test
    void read_badDaemons_areIgnoredOneByOne() throws Exception {
        Path file = tmp.resolve("console.properties");
        Files.writeString(file, "recent.0=/ws/kept\n"
                + "daemon.0.name=ftp\ndaemon.0.url=ftp://eval-1/\n"
                + "daemon.1.name=kept\ndaemon.1.url=http://127.0.0.1:7117/\n"
                + "daemon.2.name=pinned-plain\ndaemon.2.url=http://127.0.0.1:7118/\ndaemon.2.pin=" + PIN + "\n"
                + "daemon.3.url=http://127.0.0.1:7117/\n" // the same URL again: the first one stands
                + "daemon.4.url=http://127.0.0.1:7119/\n"); // no name: the generic one kiln attach URL gives

        ConsoleSettings read = ConsoleSettings.read(file);

        assertThat(read.daemons()).containsExactly(DaemonEntry.of("kept", "http://127.0.0.1:7117/", "", ""),
                DaemonEntry.of("daemon", "http://127.0.0.1:7119/", "", ""));
        assertThat(read.recent()).containsExactly(Path.of("/ws/kept"));
    }

    @Test
    void read_corruptFile_isEmpty() throws Exception {
        Path file = tmp.resolve("console.properties");
        Files.writeString(file, "daemon.0.url=http://127.0.0.1:7117/\ntheme=light\nbroken=\\uZZZZ\n");

        assertThat(ConsoleSettings.read(file)).isEqualTo(ConsoleSettings.empty());
    }

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
