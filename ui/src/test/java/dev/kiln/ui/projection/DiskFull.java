package dev.kiln.ui.projection;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/** A real full disk for the Projection page's tests: a 1 MiB tmpfs (root only; skipped otherwise), filled up. */
final class DiskFull {
    private DiskFull() {
    }

    static void mount(Path dir) throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "mounting a tmpfs needs root");
        run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir.toString());
    }

    /** Detaches it at once, even while a daemon still has files open on it (it is closed after the test). */
    static void unmount(Path dir) throws Exception {
        run("umount", "-l", dir.toString());
    }

    /** Fills the file system under {@code dir} to its last byte; the filler is returned for the test to delete. */
    static Path fill(Path dir) throws IOException {
        Path filler = dir.resolve("filler");
        byte[] chunk = new byte[4096];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(chunk);
                out.flush();
            }
        } catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains("No space left on device")) {
                throw e;
            }
        }
        return filler;
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

    private static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(List.of(cmd)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
        }
    }
}
