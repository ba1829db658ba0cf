package dev.kiln.testkit;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A seed target whose warm fails for real: target {@code app} of a workspace, its lockfile pointing at a loopback port
 * nothing listens on (its index and its one wheel), so a real uv warm of it cannot download and its seed is failed.
 * The health tests of core and app provoke a failed warm with it.
 */
public final class ClosedIndexTarget {
    private ClosedIndexTarget() {
    }

    /** Writes {@code targets/app} into the workspace {@code ws}; returns the closed index's base URL. */
    public static String write(Path ws) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String base = "http://127.0.0.1:" + port;
        Path t = ws.resolve("targets/app");
        Files.createDirectories(t);
        Files.writeString(t.resolve("target.json"), "{\"source\": {\"dir\": \".\"}, \"extras\": \"all\"}\n");
        Files.writeString(t.resolve("pyproject.toml"), """
                [project]
                name = "kiln-health-app"
                version = "0.1.0"
                requires-python = ">=3.9"
                dependencies = ["kiln-gone==1.0"]
                """);
        Files.writeString(t.resolve("uv.lock"), """
                version = 1
                revision = 3
                requires-python = ">=3.9"

                [[package]]
                name = "kiln-health-app"
                version = "0.1.0"
                source = { virtual = "." }
                dependencies = [
                    { name = "kiln-gone" },
                ]

                [package.metadata]
                requires-dist = [{ name = "kiln-gone", specifier = "==1.0" }]

                [[package]]
                name = "kiln-gone"
                version = "1.0"
                source = { registry = "%1$s/simple" }
                wheels = [
                    { url = "%1$s/files/kiln_gone-1.0-py3-none-any.whl", hash = "sha256:%2$s", size = 100 },
                ]
                """.formatted(base, "0".repeat(64)));
        return base;
    }
}
