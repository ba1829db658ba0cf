package dev.kiln.core.archive;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The writer's own bound: member files that grew past it after they were summed are not read on. */
class TarGzWriterTest {
    @TempDir
    Path tmp;

    /** Issue 25, item 17: a file the walk saw as regular, replaced by a symlink out of the root before it is read. */
    @Test
    void visit_fileSwappedForASymlinkAfterTheWalkSawIt_isNotFollowed() throws Exception {
        Path secret = Files.writeString(Files.createDirectories(tmp.resolve("outside")).resolve("id_ed25519"), "PRIVATE KEY");
        Path swapped = Files.createSymbolicLink(Files.createDirectories(tmp.resolve("root")).resolve("notes.txt"), secret);
        try (TarGzWriter w = new TarGzWriter(FileTime.from(SourceArchive.ENTRY_MTIME), Long.MAX_VALUE)) {
            assertThatThrownBy(() -> w.visit(new MemberWalk.Node("root/notes.txt", MemberWalk.Kind.FILE, swapped, false, null),
                    false)).isInstanceOf(ArchiveException.class).hasMessageContaining("became a symlink");
        }
    }

    @Test
    void visit_filesPastTheSourceBound_stopsBeforeReadingThem() throws Exception {
        Path a = Files.writeString(tmp.resolve("a.txt"), "a".repeat(600));
        Path b = Files.writeString(tmp.resolve("b.txt"), "b".repeat(600)); // grew since the walk summed it
        try (TarGzWriter w = new TarGzWriter(FileTime.from(SourceArchive.ENTRY_MTIME), 1000)) {
            w.visit(new MemberWalk.Node("r/a.txt", MemberWalk.Kind.FILE, a, false, null), false);
            assertThatThrownBy(() -> w.visit(new MemberWalk.Node("r/b.txt", MemberWalk.Kind.FILE, b, false, null), false))
                    .isInstanceOf(TarGzWriter.SourceGrew.class);
        }
    }
}
