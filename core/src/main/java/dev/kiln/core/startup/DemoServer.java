package dev.kiln.core.startup;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Kiln's bundled demo MCP server: a stdlib-only Python stdio server, shipped as a resource, whose import graph is as
 * heavy as its {@code --weight} (stdlib packages) and {@code --modules} (generated modules, compiled on import when no
 * bytecode is usable) ask. The demo workspace and the tests run it with {@code python3}.
 */
public final class DemoServer {
    /** The script's file name. */
    public static final String FILE_NAME = "kiln_demo_server.py";

    private DemoServer() {
    }

    /** The script's bytes, as shipped. */
    public static byte[] script() {
        try (InputStream in = DemoServer.class.getResourceAsStream(FILE_NAME)) {
            if (in == null) {
                throw new UncheckedIOException(new IOException("resource missing from the build: " + FILE_NAME));
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the script into {@code dir} (created if missing) and returns its path. */
    public static Path extractTo(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path target = dir.resolve(FILE_NAME);
        Path tmp = Files.createTempFile(dir, ".kiln-demo-server", ".tmp");
        Files.write(tmp, script());
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return target;
    }
}
