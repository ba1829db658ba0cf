package dev.kiln.core.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.testkit.ProcessTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** state.json is replaced whole at once, synced behind the tick, and leaves nothing behind. */
@ProcessTest
class StateFileTest {
    @TempDir
    Path dir;

    private Path target() {
        return dir.resolve("observer").resolve("state.json");
    }

    private List<String> siblings() throws IOException {
        try (Stream<Path> s = Files.list(target().getParent())) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void write_readersSeeTheNewBytesAtOnce_flushLeavesOnlyTheDocument() throws Exception {
        StateFile f = new StateFile(target());
        for (int i = 0; i < 5; i++) {
            f.write(("{\"revision\":" + i + "}").getBytes(StandardCharsets.UTF_8));
            assertThat(Files.readString(target())).isEqualTo("{\"revision\":" + i + "}");
        }
        f.flush();

        assertThat(siblings()).as("temp files and replaced versions are gone once synced").containsExactly("state.json");
        assertThat(f.syncs()).isBetween(1L, 5L);
    }

    @Test
    void write_keepsTheModeOfTheDocumentItReplaces() throws Exception {
        StateFile f = new StateFile(target());
        f.write("{}".getBytes(StandardCharsets.UTF_8));
        Files.setPosixFilePermissions(target(), PosixFilePermissions.fromString("rw-r-----"));

        f.write("{\"a\":1}".getBytes(StandardCharsets.UTF_8));
        f.flush();

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target()))).isEqualTo("rw-r-----");
    }

    @Test
    void write_replacedVersionStillOpenElsewhere_keepsItsBytes() throws Exception {
        StateFile f = new StateFile(target());
        f.write("old".getBytes(StandardCharsets.UTF_8));
        try (var reader = Files.newByteChannel(target())) {
            f.write("new".getBytes(StandardCharsets.UTF_8));
            f.flush();
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8);
            reader.read(b);
            assertThat(new String(b.array(), 0, b.position(), StandardCharsets.UTF_8))
                    .as("a reader that opened the old document reads the old document whole").isEqualTo("old");
        }
        assertThat(Files.readString(target())).isEqualTo("new");
    }

    @Test
    void write_cannotRename_oldDocumentStaysAndNothingIsLeftBehind() throws Exception {
        StateFile f = new StateFile(target());
        f.write("{\"revision\":1}".getBytes(StandardCharsets.UTF_8));
        f.flush();
        Path blocker = dir.resolve("observer2");
        Files.createDirectories(blocker.resolve("state.json").resolve("child")); // a non-empty directory where the file goes
        StateFile g = new StateFile(blocker.resolve("state.json"));

        assertThatThrownBy(() -> g.write("{}".getBytes(StandardCharsets.UTF_8))).isInstanceOf(IOException.class);

        try (Stream<Path> s = Files.list(blocker)) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("state.json");
        }
        assertThat(Files.readString(target())).isEqualTo("{\"revision\":1}");
    }

    @Test
    void write_parentIsAFile_saysSo() throws Exception {
        Files.writeString(dir.resolve("observer"), "not a directory");
        StateFile f = new StateFile(target());

        assertThatThrownBy(() -> f.write("{}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IOException.class).hasMessageContaining("not a directory");
    }

    @Test
    void firstWrite_removesLeftoversOfAKilledWriter_butNotYoungOnes() throws Exception {
        Files.createDirectories(target().getParent());
        Path oldTmp = target().resolveSibling(".state.json.1a2b.tmp");
        Path oldVersion = target().resolveSibling(".state.json.3c4d.old");
        Path youngTmp = target().resolveSibling(".state.json.5e6f.tmp");
        Path unrelated = target().resolveSibling(".state.json.notes");
        for (Path p : List.of(oldTmp, oldVersion, youngTmp, unrelated)) {
            Files.writeString(p, "leftover");
        }
        FileTime longAgo = FileTime.from(Instant.now().minus(Duration.ofHours(1)));
        Files.setLastModifiedTime(oldTmp, longAgo);
        Files.setLastModifiedTime(oldVersion, longAgo);
        Files.setLastModifiedTime(unrelated, longAgo);

        StateFile f = new StateFile(target());
        f.write("{}".getBytes(StandardCharsets.UTF_8));
        f.flush();

        assertThat(siblings()).as("a young temp file may be another live writer's")
                .containsExactly(".state.json.5e6f.tmp", ".state.json.notes", "state.json");
    }

    /** A restart within the minute: the young leftovers of a writer whose process is gone go at once. */
    @Test
    void firstWrite_removesYoungLeftoversOfADeadProcess_keepsALiveOnes() throws Exception {
        Files.createDirectories(target().getParent());
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        long dead = gone.pid();
        long live = ProcessHandle.current().pid();
        Path deadOld = target().resolveSibling(".state.json." + dead + "-3c4d.old");
        Path deadTmp = target().resolveSibling(".state.json." + dead + "-1a2b.tmp");
        Path liveTmp = target().resolveSibling(".state.json." + live + "-5e6f.tmp");
        for (Path p : List.of(deadOld, deadTmp, liveTmp)) {
            Files.writeString(p, "leftover"); // all young
        }

        StateFile f = new StateFile(target());
        f.write("{}".getBytes(StandardCharsets.UTF_8));
        f.flush();

        assertThat(siblings()).as("the dead writer's leftovers go; a live writer's young temp file stays")
                .containsExactly(".state.json." + live + "-5e6f.tmp", "state.json");
    }
}
