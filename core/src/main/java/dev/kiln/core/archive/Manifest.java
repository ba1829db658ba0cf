package dev.kiln.core.archive;

import dev.kiln.core.snapshot.StatIdentity;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import org.jspecify.annotations.Nullable;

/**
 * What a built archive was made of, by stat identity: re-checking it costs one stat per file and one listing
 * per directory, and reads no content. An immutable value shared by every reader of a cache entry.
 */
final class Manifest {

    sealed interface Check permits DirCheck, LeafCheck {
    }

    /**
     * A directory: same inode and same (non-excluded) children. An unchanged, non-racy identity proves the
     * children unchanged without listing (adding, removing or renaming an entry moves the directory's mtime);
     * otherwise the children are listed and compared, so a write into an excluded {@code __pycache__} is not a
     * change. {@code children} null = not watched (the root of named members: only the members count).
     */
    record DirCheck(Path path, String rel, StatIdentity identity, boolean racy, String @Nullable [] children) implements Check {
    }

    /** A file, symlink or skipped special file: same stat identity, and for a racy file the same content. */
    record LeafCheck(Path path, String rel, StatIdentity identity, boolean racy, long crc) implements Check {
    }

    /** Checks per core before validation is split across cores. */
    static final int PARALLEL_SLICE = 128;

    private final Path root;
    private final List<Check> checks;

    Manifest(Path root, List<Check> checks) {
        this.root = root;
        this.checks = checks;
    }

    int size() {
        return checks.size();
    }

    /**
     * Re-stats the member set.
     *
     * @return null when nothing changed, else a short description of the first change found
     */
    @Nullable String firstChange(Excludes excludes) {
        int n = checks.size();
        int parts = Math.min(Runtime.getRuntime().availableProcessors(), n / PARALLEL_SLICE);
        if (parts < 2) {
            return scan(0, n, excludes);
        }
        // A hit's latency is the stat walk: split it over the cores. The first change in manifest order wins,
        // so the reported change does not depend on scheduling.
        List<ForkJoinTask<String>> rest = new ArrayList<>();
        for (int p = 1; p < parts; p++) {
            int from = n * p / parts;
            int to = n * (p + 1) / parts;
            rest.add(ForkJoinPool.commonPool().submit(() -> scan(from, to, excludes)));
        }
        String change = scan(0, n / parts, excludes);
        for (ForkJoinTask<String> t : rest) {
            String c = t.join();
            if (change == null) {
                change = c;
            }
        }
        return change;
    }

    private @Nullable String scan(int from, int to, Excludes excludes) {
        for (Check c : checks.subList(from, to)) {
            String change = c instanceof DirCheck d ? check(d, excludes) : check((LeafCheck) c);
            if (change != null) {
                return change;
            }
        }
        return null;
    }

    private @Nullable String check(LeafCheck c) {
        StatIdentity now;
        try {
            now = StatIdentity.of(c.path(), false);
        } catch (IOException e) {
            return display(c.rel()) + " deleted";
        }
        if (!now.equals(c.identity())) {
            return display(c.rel()) + " changed";
        }
        if (c.racy()) {
            try {
                if (crc(c.path()) != c.crc()) {
                    return display(c.rel()) + " changed (same stat identity, new content)";
                }
            } catch (IOException e) {
                return display(c.rel()) + " unreadable";
            }
        }
        return null;
    }

    /** The CRC32C of a file's content, read through one buffer (a file can be larger than any array). */
    static long crc(Path file) throws IOException {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        byte[] buf = new byte[256 * 1024];
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buf)) > 0) {
                crc.update(buf, 0, n);
            }
        }
        return crc.getValue();
    }

    static long crc(byte[] content) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(content);
        return crc.getValue();
    }

    private @Nullable String check(DirCheck d, Excludes excludes) {
        String[] children = d.children();
        String[] now;
        try {
            StatIdentity id = StatIdentity.of(d.path(), false);
            if (!Objects.equals(id.fileKey(), d.identity().fileKey())) {
                return display(d.rel()) + " replaced";
            }
            if (children == null || (!d.racy() && id.equals(d.identity()))) {
                return null;
            }
            now = MemberWalk.listChildren(d.path(), d.rel(), excludes);
        } catch (IOException e) {
            return display(d.rel()) + " deleted";
        }
        if (Arrays.equals(now, children)) {
            return null;
        }
        Set<String> before = new HashSet<>(Arrays.asList(children));
        for (String n : now) {
            if (!before.contains(n)) {
                return display(d.rel().isEmpty() ? n : d.rel() + "/" + n) + " added";
            }
        }
        Set<String> after = new HashSet<>(Arrays.asList(now));
        for (String n : children) {
            if (!after.contains(n)) {
                return display(d.rel().isEmpty() ? n : d.rel() + "/" + n) + " deleted";
            }
        }
        return display(d.rel()) + " changed";
    }

    private String display(String rel) {
        return rel.isEmpty() ? root.toString() : rel;
    }
}
