package dev.kiln.core.seed;

import dev.kiln.core.workspace.FileTrees;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The on-disk layout of seeds under the seeds directory, and the file operations a warm needs.
 *
 * <pre>
 * seeds/&lt;name&gt;/                    the seed: uv's cache, plus .kiln-seed-hash and kiln-seed.json
 * seeds/.&lt;name&gt;.warm-&lt;hash12&gt;/      a warm in flight (UV_CACHE_DIR), swapped in whole on success
 * seeds/.&lt;name&gt;.warm-&lt;hash12&gt;.venv/ the throwaway environment of that warm
 * seeds/.&lt;name&gt;.old-&lt;stamp&gt;/        the previous seed between the two renames of a swap
 * seeds/.&lt;name&gt;.lock                one warm of a target at a time, across processes
 * </pre>
 */
final class SeedStore {
    static final String HASH_FILE = ".kiln-seed-hash";
    static final String MANIFEST_FILE = "kiln-seed.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private SeedStore() {
    }

    static boolean isKilnFile(String name) {
        return name.equals(HASH_FILE) || name.equals(MANIFEST_FILE);
    }

    static Path freshDir(Path seedsDir, String name, String hash) {
        return seedsDir.resolve("." + name + ".warm-" + hash.substring(0, 12));
    }

    static Path venvDir(Path fresh) {
        return fresh.resolveSibling(fresh.getFileName() + ".venv");
    }

    static Path lockFile(Path seedsDir, String name) {
        return seedsDir.resolve("." + name + ".lock");
    }

    /** The hash a complete seed was warmed for; empty when there is no complete seed. */
    static Optional<String> seededHash(Path seedDir) {
        try {
            String h = Files.readString(seedDir.resolve(HASH_FILE), StandardCharsets.US_ASCII).strip();
            return h.isEmpty() ? Optional.empty() : Optional.of(h);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Sizes of a seed. */
    record Stats(long bytes, long files, long wheels) {
        static final Stats EMPTY = new Stats(0, 0, 0);
    }

    static Stats stats(Path dir) throws IOException {
        long[] acc = new long[3];
        if (!Files.isDirectory(dir)) {
            return Stats.EMPTY;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile()) {
                    acc[0] += attrs.size();
                    acc[1]++;
                }
                return FileVisitResult.CONTINUE;
            }
        });
        // uv unpacks each wheel into one directory of archive-v*/.
        try (DirectoryStream<Path> top = Files.newDirectoryStream(dir, "archive-v*")) {
            for (Path archive : top) {
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(archive)) {
                    for (Path e : entries) {
                        if (Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS)) {
                            acc[2]++;
                        }
                    }
                }
            }
        }
        return new Stats(acc[0], acc[1], acc[2]);
    }

    /** A seed's manifest as read back (the fields {@code seed ls} shows). */
    record Manifest(String hash, String uvVersion, Instant warmedAt, Duration duration, long bytes, long files, long wheels) {
    }

    static void writeMarkers(Path fresh, String target, String hash, String uvVersion, Instant at, Duration took,
            Stats stats) throws IOException {
        ObjectNode m = JSON.createObjectNode();
        m.put("target", target);
        m.put("hash", hash);
        m.put("uv_version", uvVersion);
        m.put("warmed_at", at.toString());
        m.put("duration_ms", took.toMillis());
        m.put("bytes", stats.bytes());
        m.put("files", stats.files());
        m.put("wheels", stats.wheels());
        Files.writeString(fresh.resolve(MANIFEST_FILE), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(m) + "\n");
        Files.writeString(fresh.resolve(HASH_FILE), hash + "\n", StandardCharsets.US_ASCII);
    }

    static Optional<Manifest> manifest(Path seedDir) {
        try {
            JsonNode m = JSON.readTree(Files.readString(seedDir.resolve(MANIFEST_FILE)));
            return Optional.of(new Manifest(m.path("hash").asText(""), m.path("uv_version").asText(""),
                    Instant.parse(m.path("warmed_at").asText("1970-01-01T00:00:00Z")),
                    Duration.ofMillis(m.path("duration_ms").asLong()), m.path("bytes").asLong(),
                    m.path("files").asLong(), m.path("wheels").asLong()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Puts {@code fresh} in place of {@code seedDir}: old aside, fresh in, old deleted. Both are directories of one
     * parent, so each rename is atomic; if the second fails the old seed is put back.
     */
    static void swap(Path fresh, Path seedDir, Instant at) throws IOException {
        Path old = null;
        if (Files.exists(seedDir, LinkOption.NOFOLLOW_LINKS)) {
            old = seedDir.resolveSibling("." + seedDir.getFileName() + ".old-" + at.toEpochMilli());
            Files.move(seedDir, old, StandardCopyOption.ATOMIC_MOVE);
        }
        try {
            Files.move(fresh, seedDir, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            if (old != null) {
                Files.move(old, seedDir, StandardCopyOption.ATOMIC_MOVE);
            }
            throw e;
        }
        if (old != null) {
            FileTrees.delete(old);
        }
    }

    /**
     * The checks a seed that arrived from elsewhere (the object store) passes before it is swapped in, the same a
     * warmed seed satisfies by construction: its hash file names {@code hash}; every entry is a directory, a regular
     * file or a relative link that resolves inside the seed; nothing else (no device, FIFO or socket).
     */
    static void checkArrived(Path fresh, String hash) throws IOException {
        Optional<String> h = seededHash(fresh);
        if (!h.equals(Optional.of(hash))) {
            throw new IOException("the arrived seed " + fresh + " is for lockfile hash " + h.orElse("(none: no "
                    + HASH_FILE + ")") + ", not " + hash + "; not installed");
        }
        Path root = fresh.toRealPath();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes a) throws IOException {
                if (a.isSymbolicLink()) {
                    Path target = Files.readSymbolicLink(file);
                    if (target.isAbsolute() || !file.resolveSibling(target).normalize().startsWith(root)) {
                        throw new IOException("the arrived seed's link " + root.relativize(file) + " -> " + target
                                + " leaves the seed; not installed");
                    }
                } else if (!a.isRegularFile()) {
                    throw new IOException("the arrived seed holds " + root.relativize(file)
                            + ", which is neither a file, a directory nor a link; not installed");
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Whether an earlier warm of {@code name} left anything (one directory listing; no lock). */
    static boolean hasLeftovers(Path seedsDir, String name) {
        try (DirectoryStream<Path> s = Files.newDirectoryStream(seedsDir, p -> isLeftover(p, name))) {
            return s.iterator().hasNext();
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean isLeftover(Path p, String name) {
        String f = p.getFileName().toString();
        return f.startsWith("." + name + ".warm-") || f.startsWith("." + name + ".old-");
    }

    /** Removes what a killed earlier warm of {@code name} left: fresh caches, their venvs, swapped-out seeds. */
    static List<Path> removeLeftovers(Path seedsDir, String name) throws IOException {
        List<Path> removed = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(seedsDir, p -> isLeftover(p, name))) {
            for (Path p : s) {
                FileTrees.delete(p);
                removed.add(p);
            }
        }
        return removed;
    }

    /**
     * Whether {@code pid} is a running process. The JDK calls a zombie alive, and a warm killed a moment ago stays
     * one until its parent reaps it: the next warm, started at once, would keep its leftovers. So a zombie (state
     * {@code Z} in {@code /proc/PID/stat}, where there is one) counts as gone.
     */
    static boolean running(long pid) {
        if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int close = stat.lastIndexOf(')'); // the command name in parentheses may hold spaces and ')'
            return close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) != 'Z';
        } catch (IOException | RuntimeException e) {
            // No /proc (not Linux): trust the JDK. Gone from /proc since the JDK looked: gone.
            boolean procFs = Files.isDirectory(Path.of("/proc/self"));
            return !procFs || Files.exists(Path.of("/proc", Long.toString(pid)));
        }
    }

    /** The prefix of a warm's throwaway project directory in the temp directory; it carries the warming pid. */
    static String projectPrefix(long pid, String name) {
        return "kiln-warm-" + pid + "-" + name + "-";
    }

    /**
     * Removes throwaway project directories of warms whose process is gone (killed before its cleanup ran). They
     * live in the temp directory, outside any workspace, so the pid in their name is how they are told apart.
     */
    static List<Path> removeOrphanProjects(Path tmpDir) {
        List<Path> removed = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(tmpDir, "kiln-warm-*")) {
            for (Path p : s) {
                String[] parts = p.getFileName().toString().split("-", 4);
                if (parts.length < 4 || !parts[2].matches("\\d+")) {
                    continue;
                }
                if (running(Long.parseLong(parts[2]))) {
                    continue;
                }
                try {
                    FileTrees.delete(p);
                    removed.add(p);
                } catch (IOException e) {
                    // someone else's to clean; never fail a warm over it
                }
            }
        } catch (IOException | RuntimeException e) {
            // an unreadable temp directory only means nothing is cleaned this time
        }
        return removed;
    }

}
