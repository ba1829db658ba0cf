package dev.kiln.core.archive;

import dev.kiln.core.snapshot.StatIdentity;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a built archive was made of, by stat identity: re-checking it costs one stat per file and one listing
 * per directory, and reads no content. An immutable value shared by every reader of a cache entry.
 */
final class Manifest {

    sealed interface Check permits DirCheck, LeafCheck {
    }

    /** A directory: same inode, same (non-excluded) children. {@code children} null = not watched (the root of named members). */
    record DirCheck(Path path, String rel, Object fileKey, String[] children) implements Check {
    }

    /** A file, symlink or skipped special file: same stat identity. */
    record LeafCheck(Path path, String rel, StatIdentity identity) implements Check {
    }

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
    String firstChange(Excludes excludes) {
        for (Check c : checks) {
            String change = c instanceof DirCheck d ? check(d, excludes) : check((LeafCheck) c);
            if (change != null) {
                return change;
            }
        }
        return null;
    }

    private String check(LeafCheck c) {
        StatIdentity now;
        try {
            now = StatIdentity.of(c.path(), false);
        } catch (IOException e) {
            return display(c.rel()) + " deleted";
        }
        return now.equals(c.identity()) ? null : display(c.rel()) + " changed";
    }

    private String check(DirCheck d, Excludes excludes) {
        String[] now;
        try {
            if (!Objects.equals(StatIdentity.of(d.path(), false).fileKey(), d.fileKey())) {
                return display(d.rel()) + " replaced";
            }
            if (d.children() == null) {
                return null;
            }
            now = MemberWalk.listChildren(d.path(), d.rel(), excludes);
        } catch (IOException e) {
            return display(d.rel()) + " deleted";
        }
        if (Arrays.equals(now, d.children())) {
            return null;
        }
        Set<String> before = new HashSet<>(Arrays.asList(d.children()));
        for (String n : now) {
            if (!before.contains(n)) {
                return display(d.rel().isEmpty() ? n : d.rel() + "/" + n) + " added";
            }
        }
        Set<String> after = new HashSet<>(Arrays.asList(now));
        for (String n : d.children()) {
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
