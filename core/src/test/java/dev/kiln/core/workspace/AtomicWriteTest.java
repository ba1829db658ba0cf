package dev.kiln.core.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one temp writer of Kiln's replacements: {@link AtomicWrite#write} and the heal's swap both go through it. */
class AtomicWriteTest {
    @TempDir
    Path dir;

    @Test
    void write_existingFile_replacedWholeWithItsModeAndNoTempLeft() throws IOException {
        Path f = dir.resolve("kiln.json");
        Files.writeString(f, "old");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));

        AtomicWrite.write(f, "new".getBytes(StandardCharsets.UTF_8));

        assertThat(Files.readString(f)).isEqualTo("new");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).isEqualTo("rw-------");
        assertThat(names()).containsExactly("kiln.json");
    }

    @Test
    void tempBeside_hiddenSyncedFileWithTheTargetsMode_theCallerPlacesIt() throws IOException {
        Path f = dir.resolve("contract.json");
        Files.writeString(f, "{}");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r-----"));

        Path tmp = AtomicWrite.tempBeside(f, ".tmp", "{\"a\":1}".getBytes(StandardCharsets.UTF_8));

        assertThat(tmp.getParent()).isEqualTo(dir);
        assertThat(tmp.getFileName().toString()).startsWith(".contract.json.").endsWith(".tmp");
        assertThat(Files.readString(tmp)).isEqualTo("{\"a\":1}");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp))).isEqualTo("rw-r-----");
        assertThat(Files.readString(f)).as("the target is untouched").isEqualTo("{}");
    }

    @Test
    void write_parentIsAFile_refusedNamingItAndNothingWritten() throws IOException {
        Path notADir = dir.resolve("tasks");
        Files.writeString(notADir, "a file");

        assertThatThrownBy(() -> AtomicWrite.write(notADir.resolve("contract.json"), new byte[] {1}))
                .isInstanceOf(IOException.class).hasMessageContaining("is not a directory");
        assertThat(names()).containsExactly("tasks");
    }

    private java.util.List<String> names() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
