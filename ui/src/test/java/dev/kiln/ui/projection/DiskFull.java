package dev.kiln.ui.projection;

import dev.kiln.testkit.SmallDisk;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/** A real full disk for the Projection page's tests: testkit's 1 MiB {@link SmallDisk} (root only; skipped otherwise). */
final class DiskFull {
    private DiskFull() {
    }

    static void mount(Path dir) throws Exception {
        Assumptions.assumeTrue(SmallDisk.canMount(), "mounting a tmpfs needs root");
        SmallDisk.mount(dir, "1m");
    }

    /** Detaches it at once, even while a daemon still has files open on it (it is closed after the test). */
    static void unmount(Path dir) throws Exception {
        SmallDisk.unmount(dir);
    }

    /** Fills the file system under {@code dir} to its last byte; the filler is returned for the test to delete. */
    static Path fill(Path dir) throws IOException {
        return SmallDisk.fill(dir.resolve("filler"));
    }

    /**
     * Edits the first contract in place: the page its truncation frees is taken again, so the edit fits on the full
     * disk, while a new state.json (a temp file renamed over) does not.
     */
    static Path editInPlace(Path workspace) throws IOException {
        Path contract;
        try (Stream<Path> files = Files.walk(workspace.resolve("tasks"))) {
            contract = files.filter(p -> p.endsWith("contract.json")).sorted().findFirst().orElseThrow();
        }
        String text = Files.readString(contract);
        String edited = text.replaceFirst("\"title\" : \"[^\"]*\"", "\"title\" : \"edited on a full disk\"");
        if (edited.equals(text)) {
            throw new IllegalStateException("no title to edit in " + contract);
        }
        Files.writeString(contract, edited);
        return contract;
    }

}
