package dev.kiln.core.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@ProcessTest @KernelTest
class DaemonListTest {
    private static final String PIN = "ab".repeat(32);

    @TempDir
    Path dir;

    @Test
    void read_missingFile_isEmpty() throws IOException {
        assertThat(DaemonList.read(dir.resolve("daemons.json")).daemons()).isEmpty();
    }

    @Test
    void update_addsEditsRenamesRemoves_andReadsBackWhatItWrote() throws IOException {
        Path file = dir.resolve("kiln/daemons.json");
        DaemonEntry eval = DaemonEntry.of("eval-3", "https://eval-3:7117", "/home/op/eval-3.token", "SHA256:" + PIN);
        DaemonEntry tick = DaemonEntry.of("tick-1", "127.0.0.1:7200", "", "");
        DaemonList.update(file, l -> l.with(eval).with(tick));
        DaemonList read = DaemonList.read(file);
        assertThat(read.daemons()).containsExactly(eval, tick);
        assertThat(read.find("EVAL-3")).contains(eval);
        assertThat(eval.pin()).contains(("AB:".repeat(32)).substring(0, 95));
        assertThat(eval.url()).isEqualTo(URI.create("https://eval-3:7117/"));
        assertThat(tick.url()).isEqualTo(URI.create("http://127.0.0.1:7200/"));
        assertThat(tick.tokenFile()).isEmpty();

        DaemonEntry renamed = DaemonEntry.of("eval-03", "https://eval-3:7118/", "/home/op/eval-3.token", PIN);
        DaemonList.update(file, l -> l.replace("eval-3", renamed));
        assertThat(DaemonList.read(file).daemons()).as("a rename keeps its place").containsExactly(renamed, tick);

        DaemonList.update(file, l -> l.without("tick-1"));
        assertThat(DaemonList.read(file).daemons()).containsExactly(renamed);
        try (var s = Files.list(file.getParent())) {
            assertThat(s.map(p -> p.getFileName().toString())).as("no temp file left").containsExactly("daemons.json");
        }
    }

    @Test
    void read_relativeTokenFile_isRelativeToTheListsDirectory() throws IOException {
        Path file = Files.writeString(dir.resolve("daemons.json"),
                "{\"daemons\": [{\"name\": \"a\", \"url\": \"http://127.0.0.1:1/\", \"token_file\": \"tokens/a\"}]}");
        assertThat(DaemonList.read(file).daemons().get(0).tokenFile()).contains(dir.resolve("tokens/a"));
    }

    @Test
    void malformedFile_errorNamesTheFile_andUpdateLeavesItAsItWas() throws IOException {
        String broken = "{\"daemons\": [{\"name\": \"a\", \"url\": \"http://127.0.0.1:1/\"},";
        Path file = Files.writeString(dir.resolve("daemons.json"), broken);
        assertThatThrownBy(() -> DaemonList.read(file)).isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("not JSON").hasMessageContaining("will not overwrite");
        assertThatThrownBy(() -> DaemonList.update(file, l -> l.with(DaemonEntry.of("b", "http://h:2", "", ""))))
                .isInstanceOf(IOException.class).hasMessageContaining(file.toString());
        assertThat(Files.readString(file)).isEqualTo(broken);
    }

    @Test
    void badEntries_eachGetAMessageNamingFileAndEntry() throws IOException {
        assertBad("{\"hosts\": []}", "no \"daemons\" array");
        assertBad("{\"daemons\": [{\"url\": \"http://h:1/\"}]}", "entry 1 needs text \"name\" and \"url\"");
        assertBad("{\"daemons\": [{\"name\": \"a\", \"url\": \"ftp://h:1/\"}]}", "http://HOST:PORT/");
        assertBad("{\"daemons\": [{\"name\": \"a\", \"url\": \"http://h:1/\", \"pin\": \"" + PIN + "\"}]}", "needs an https:// URL");
        assertBad("{\"daemons\": [{\"name\": \"a\", \"url\": \"https://h:1/\", \"pin\": \"abc\"}]}", "64 hex digits");
        assertBad("{\"daemons\": [{\"name\": \"a\", \"url\": \"http://h:1/\"}, {\"name\": \"A\", \"url\": \"http://h:2/\"}]}",
                "two daemons are called A");
    }

    private void assertBad(String json, String why) throws IOException {
        Path file = Files.writeString(dir.resolve("daemons.json"), json);
        assertThatThrownBy(() -> DaemonList.read(file)).isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining(why);
    }

    @Test
    void entry_refusesTokenInUrlAndBadNames() {
        assertThatThrownBy(() -> DaemonEntry.of("a", "http://h:1/?token=secret", "", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("token file");
        assertThatThrownBy(() -> DaemonEntry.of(" ", "http://h:1/", "", "")).hasMessageContaining("short label");
        assertThatThrownBy(() -> DaemonEntry.of("http://h:1/", "http://h:1/", "", "")).hasMessageContaining("no URL");
        assertThatThrownBy(() -> DaemonList.empty().with(DaemonEntry.of("a", "http://h:1", "", ""))
                .replace("b", DaemonEntry.of("A", "http://h:2", "", ""))).hasMessageContaining("two daemons are called");
        assertThatThrownBy(() -> DaemonEntry.of("a", "http://h:1", "", "").withPin(PIN)).hasMessageContaining("https://");
        assertThat(DaemonEntry.of("a", "https://h:1", "", "").withPin(PIN).pin()).isEqualTo(Optional.of("AB:".repeat(31) + "AB"));
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void read_listOverItsSizeBound_refusedNamingFileAndBound_updateLeavesItAsItWas() throws IOException {
        StringBuilder b = new StringBuilder("{\"daemons\": [");
        for (int i = 0; b.length() <= DaemonList.MAX_BYTES; i++) {
            b.append(i == 0 ? "" : ", ").append("{\"name\": \"d").append(i).append("\", \"url\": \"http://127.0.0.1:")
                    .append(1024 + i).append("/\", \"token_file\": \"").append("t".repeat(1500)).append("\"}");
        }
        String text = b.append("]}\n").toString();
        Path file = Files.writeString(dir.resolve("daemons.json"), text);
        assertThatThrownBy(() -> DaemonList.read(file)).isInstanceOf(IOException.class)
                .hasMessageContaining("the daemon list " + file).hasMessageContaining(Files.size(file) + " bytes")
                .hasMessageContaining("1 MiB").hasMessageContaining("will not overwrite it");
        assertThatThrownBy(() -> DaemonList.update(file, l -> l.with(DaemonEntry.of("b", "http://h:2", "", ""))))
                .isInstanceOf(IOException.class).hasMessageContaining("1 MiB");
        assertThat(Files.readString(file)).isEqualTo(text);
    }

    @Test
    void read_moreDaemonsThanTheBound_refusedNamingFileAndCount() throws IOException {
        StringBuilder b = new StringBuilder("{\"daemons\": [");
        for (int i = 0; i <= DaemonList.MAX_DAEMONS; i++) {
            b.append(i == 0 ? "" : ", ").append("{\"name\": \"d").append(i).append("\", \"url\": \"http://127.0.0.1:")
                    .append(1024 + i).append("/\"}");
        }
        Path file = Files.writeString(dir.resolve("daemons.json"), b.append("]}\n"));
        assertThat(Files.size(file)).isLessThan(DaemonList.MAX_BYTES);
        assertThatThrownBy(() -> DaemonList.read(file)).isInstanceOf(IOException.class)
                .hasMessageContaining("the daemon list " + file)
                .hasMessageContaining("lists " + (DaemonList.MAX_DAEMONS + 1) + " daemons")
                .hasMessageContaining("at most " + DaemonList.MAX_DAEMONS);
        // exactly the bound is fine
        String full = Files.readString(file).replaceFirst(", \\{\"name\": \"d" + DaemonList.MAX_DAEMONS + "\"[^}]*}", "");
        assertThat(DaemonList.read(Files.writeString(file, full)).daemons()).hasSize(DaemonList.MAX_DAEMONS);
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void read_aFifoOrADirectory_refusedWithoutBlocking() throws Exception {
        Path fifo = dir.resolve("daemons.json");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertThat(mk.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) && mk.exitValue() == 0).isTrue();
        assertThatThrownBy(() -> DaemonList.read(fifo)).isInstanceOf(IOException.class)
                .hasMessageContaining("the daemon list " + fifo).hasMessageContaining("not a regular file");
        Path d = Files.createDirectories(dir.resolve("list-dir"));
        assertThatThrownBy(() -> DaemonList.read(d)).isInstanceOf(IOException.class)
                .hasMessageContaining("the daemon list " + d).hasMessageContaining("not a regular file");
    }
}
