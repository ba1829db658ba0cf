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
