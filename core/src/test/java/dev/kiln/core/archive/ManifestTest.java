package dev.kiln.core.archive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.snapshot.StatIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The validation rules, including the racy cases a fast test cannot provoke through the file system. */
class ManifestTest {
    private static final Excludes DEFAULTS = new Excludes(SourceArchive.DEFAULT_EXCLUDES);

    @TempDir
    Path tmp;

    @Test
    void firstChange_racyFileSameIdentityNewContent_reportsChange() throws IOException {
        Path f = Files.writeString(tmp.resolve("a.py"), "x = 1\n");
        StatIdentity id = StatIdentity.of(f, false);
        long archivedCrc = Manifest.crc("x = 2\n".getBytes());

        Manifest m = new Manifest(tmp, List.of(new Manifest.LeafCheck(f, "a.py", id, true, archivedCrc)));

        assertThat(m.firstChange(DEFAULTS)).isEqualTo("a.py changed (same stat identity, new content)");
    }

    @Test
    void firstChange_racyFileSameContent_unchanged() throws IOException {
        Path f = Files.writeString(tmp.resolve("a.py"), "x = 1\n");

        Manifest m = new Manifest(tmp, List.of(new Manifest.LeafCheck(f, "a.py", StatIdentity.of(f, false), true,
                Manifest.crc(Files.readAllBytes(f)))));

        assertThat(m.firstChange(DEFAULTS)).isNull();
    }

    @Test
    void firstChange_racyDirectorySameIdentityNewChild_reportsAdded() throws IOException {
        Path d = Files.createDirectories(tmp.resolve("pkg"));
        Files.writeString(d.resolve("a.py"), "");
        Files.writeString(d.resolve("b.py"), "");

        // As if b.py had landed in the same timestamp tick: the identity recorded is the current one.
        Manifest m = new Manifest(tmp, List.of(new Manifest.DirCheck(d, "pkg", StatIdentity.of(d, false), true,
                new String[] {"a.py"})));

        assertThat(m.firstChange(DEFAULTS)).isEqualTo("pkg/b.py added");
    }

    @Test
    void firstChange_directoryIdentityMovedByExcludedChild_unchanged() throws IOException {
        Path d = Files.createDirectories(tmp.resolve("pkg"));
        Files.writeString(d.resolve("a.py"), "");
        StatIdentity before = StatIdentity.of(d, false);
        Files.createDirectories(d.resolve("__pycache__"));

        Manifest m = new Manifest(tmp, List.of(new Manifest.DirCheck(d, "pkg", before, false, new String[] {"a.py"})));

        assertThat(StatIdentity.of(d, false)).isNotEqualTo(before);
        assertThat(m.firstChange(DEFAULTS)).isNull();
    }

    @Test
    void firstChange_manyChecksSplitOverCores_reportsTheFirstChangeInOrder() throws IOException {
        List<Manifest.Check> checks = new ArrayList<>();
        for (int i = 0; i < Manifest.PARALLEL_SLICE * 4; i++) {
            Path f = Files.writeString(tmp.resolve("f" + i), "v" + i);
            checks.add(new Manifest.LeafCheck(f, "f" + i, StatIdentity.of(f, false), false, 0));
        }
        Manifest m = new Manifest(tmp, checks);
        assertThat(m.firstChange(DEFAULTS)).isNull();

        Files.delete(tmp.resolve("f" + (Manifest.PARALLEL_SLICE * 3 + 5)));
        Files.writeString(tmp.resolve("f" + (Manifest.PARALLEL_SLICE * 2 + 1)), "longer content");

        assertThat(m.firstChange(DEFAULTS)).isEqualTo("f" + (Manifest.PARALLEL_SLICE * 2 + 1) + " changed");
    }
}
