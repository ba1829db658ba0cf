package dev.kiln.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real small disk for tests of a full file system: a tmpfs mounted on a test's directory (root only; the tests
 * assume {@link #canMount()}), filled to its last byte and detached afterwards.
 */
public final class SmallDisk {
    private SmallDisk() {
    }

    /** Whether this process may mount one (CI runs as root). */
    public static boolean canMount() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** Mounts a tmpfs of {@code size} (as {@code mount -o size=}, e.g. {@code 1m}) on {@code dir}. */
    public static void mount(Path dir, String size) throws IOException, InterruptedException {
        run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString());
    }

    /** Detaches it at once, even while a daemon still has files open on it (they are closed after the test). */
    public static void unmount(Path dir) throws IOException, InterruptedException {
        run("umount", "-l", dir.toString());
    }

    /** Writes {@code filler} until the file system under it has no byte left; returns it for the test to delete. */
    public static Path fill(Path filler) throws IOException {
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

    private static void run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(List.of(cmd)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
        }
    }
}
