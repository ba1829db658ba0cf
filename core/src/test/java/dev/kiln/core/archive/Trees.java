package dev.kiln.core.archive;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Fixtures: small real source trees, a description of a tree for comparisons, and running GNU tar. */
final class Trees {
    private Trees() {
    }

    /** A checkout: pyproject, README, LICENSE, a package with a sub-package, an executable script, and junk to exclude. */
    static Path checkout(Path parent, String name) throws IOException {
        Path root = parent.resolve(name);
        write(root.resolve("pyproject.toml"), "[project]\nname = \"pkg\"\n");
        write(root.resolve("README.md"), "# pkg\n");
        write(root.resolve("LICENSE"), "MIT\n");
        write(root.resolve("pkg/__init__.py"), "VERSION = 1\n");
        write(root.resolve("pkg/core/engine.py"), "def run():\n    return 42\n");
        write(root.resolve("pkg/core/data.json"), "{}\n");
        write(root.resolve("pkg/bin/tool.sh"), "#!/bin/sh\necho hi\n");
        Files.setPosixFilePermissions(root.resolve("pkg/bin/tool.sh"), PosixFilePermissions.fromString("rwxr-x---"));
        Files.setPosixFilePermissions(root.resolve("pkg/core/data.json"), PosixFilePermissions.fromString("rw-------"));
        write(root.resolve("pkg/__pycache__/__init__.cpython-311.pyc"), "junk");
        write(root.resolve("pkg/core/__pycache__/engine.cpython-311.pyc"), "junk");
        write(root.resolve("pkg/core/stray.pyc"), "junk");
        write(root.resolve(".git/HEAD"), "ref: refs/heads/main\n");
        write(root.resolve("pkg/node_modules/x/index.js"), "junk");
        write(root.resolve(".venv/bin/python"), "junk");
        write(root.resolve("notes.txt"), "not a member\n");
        return root;
    }

    /**
     * A bigger tree for the cache and gzip tests: {@code files} files (pyproject, README, LICENSE and Python-like
     * modules of a few KB in {@code toolkit/} and its sub-packages), the same bytes for the same seed. (The
     * benchmark's anchor-shaped generator lives with the benchmarks, in the app.)
     */
    static void synthetic(Path root, int files, long seed) throws IOException {
        java.util.Random r = new java.util.Random(seed);
        String[] words = {"request", "handler", "session", "token", "buffer", "config", "payload", "schema", "stream",
            "result", "context", "client", "server", "worker", "queue", "event", "state", "cache", "index", "value"};
        String[] subs = {"", "core", "io", "net", "cli"};
        write(root.resolve("pyproject.toml"), "[project]\nname = \"toolkit\"\nversion = \"" + seed + "\"\n");
        write(root.resolve("README.md"), "# toolkit " + seed + "\n");
        write(root.resolve("LICENSE"), "MIT\n");
        for (int i = 0; i < files - 3; i++) {
            StringBuilder b = new StringBuilder("\"\"\"Module " + i + ".\"\"\"\n\nimport os\n\n");
            for (int line = 0, n = 60 + r.nextInt(60); line < n; line++) {
                b.append(words[r.nextInt(words.length)]).append('_').append(Integer.toHexString(r.nextInt())).append(" = ")
                        .append(words[r.nextInt(words.length)]).append('(').append(r.nextInt(10_000)).append(")\n");
            }
            String sub = subs[i % subs.length];
            write(root.resolve("toolkit").resolve(sub).resolve(i < subs.length ? "__init__.py" : "m_" + i + ".py"), b.toString());
        }
    }

    static void write(Path file, String content) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, content, StandardCharsets.UTF_8);
    }

    /** Relative path → "type mode content" for every file, directory and symlink under {@code root}. */
    static TreeMap<String, String> describe(Path root) throws IOException {
        TreeMap<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String rel = root.relativize(p).toString();
                String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
                if (Files.isSymbolicLink(p)) {
                    out.put(rel, "link -> " + Files.readSymbolicLink(p));
                } else if (Files.isDirectory(p)) {
                    out.put(rel, "dir " + mode);
                } else {
                    out.put(rel, "file " + mode + " " + Files.getLastModifiedTime(p).toMillis() + " "
                            + new String(Files.readAllBytes(p), StandardCharsets.UTF_8));
                }
            }
        }
        return out;
    }

    /** Runs a command, returns stdout; fails the test with its stderr when it exits non-zero. */
    static String run(Path dir, String... command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new AssertionError(command[0] + " is needed by this test and could not be started (" + e.getMessage()
                    + "); install it (apt-get install tar)", e);
        }
        p.getOutputStream().close();
        byte[] err;
        String out;
        try (InputStream o = p.getInputStream(); InputStream e = p.getErrorStream()) {
            out = new String(o.readAllBytes(), StandardCharsets.UTF_8);
            err = e.readAllBytes();
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s finished", List.of(command)).isTrue();
        assertThat(p.exitValue()).as("%s exit code; stderr: %s", List.of(command), new String(err, StandardCharsets.UTF_8))
                .isZero();
        return out;
    }

    static List<String> lines(String s) {
        List<String> out = new ArrayList<>();
        for (String l : s.split("\n")) {
            if (!l.isBlank()) {
                out.add(l);
            }
        }
        return out;
    }
}
