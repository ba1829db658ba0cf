package dev.kiln.core.snapshot;

import dev.kiln.core.contract.LeafIds;
import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The enumeration of {@code tasks/**}{@code /contract.json}: depth first, entries sorted by name, one
 * {@code stat} per contract file (which also yields its identity) and one {@code lstat} per other entry.
 *
 * <p>Directory symlinks are followed, but never into a directory that is already on the current path (a loop
 * is reported once and skipped), and never deeper than {@link #MAX_DEPTH}; so a walk always terminates. A
 * directory that cannot be listed is reported and skipped; the walk goes on.
 */
final class TreeWalk {
    static final int MAX_DEPTH = 64;

    interface Visitor {
        void contract(String relativeFile, Path file, StatIdentity identity);

        void failure(SnapshotFailure failure);
    }

    private final Visitor visitor;
    private final Set<Object> ancestors = new HashSet<>();

    private TreeWalk(Visitor visitor) {
        this.visitor = visitor;
    }

    /** Walks {@code tasksDir}; a missing directory has no contracts. */
    static void walk(Path tasksDir, Visitor visitor) {
        BasicFileAttributes root;
        try {
            root = Files.readAttributes(tasksDir, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            visitor.failure(new SnapshotFailure(".", SnapshotFailure.Kind.UNREADABLE_DIR, "cannot read tasks/: " + describe(e)));
            return;
        }
        if (!root.isDirectory()) {
            visitor.failure(new SnapshotFailure(".", SnapshotFailure.Kind.UNREADABLE_DIR, "tasks/ is not a directory"));
            return;
        }
        TreeWalk w = new TreeWalk(visitor);
        if (root.fileKey() != null) {
            w.ancestors.add(root.fileKey());
        }
        w.directory(tasksDir, "", 0);
    }

    private void directory(Path dir, String prefix, int depth) {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                entries.add(p);
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            return; // removed or replaced since it was seen: nothing of it exists any more
        } catch (IOException | DirectoryIteratorException e) {
            visitor.failure(new SnapshotFailure(prefix.isEmpty() ? "." : prefix.substring(0, prefix.length() - 1),
                    SnapshotFailure.Kind.UNREADABLE_DIR, "cannot list directory: " + describe(e)
                            + "; contracts below it are skipped until it can be read"));
            return;
        }
        entries.sort((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        for (Path p : entries) {
            String name = p.getFileName().toString();
            entry(p, name, prefix + name, depth);
        }
    }

    /**
     * One entry of a listed directory: a contract file, a directory to descend into, or nothing. Hidden entries
     * (a leading dot: {@code .git}, editor and atomic-write temp files) are not inputs — the watcher ignores them
     * too, so the incremental step and a full walk agree.
     */
    private void entry(Path p, String name, String rel, int depth) {
        if (name.startsWith(".")) {
            return;
        }
        if (name.equals(LeafIds.CONTRACT_FILE)) {
            try {
                StatIdentity id = StatIdentity.ofRegularFile(p);
                if (id != null) {
                    visitor.contract(rel, p, id);
                    return;
                }
            } catch (NoSuchFileException e) {
                return; // deleted since listed, or a dangling symlink: not a contract
            } catch (IOException e) {
                visitor.failure(new SnapshotFailure(rel, SnapshotFailure.Kind.IO_ERROR, "cannot stat: " + describe(e)));
                return;
            }
        }
        BasicFileAttributes a;
        boolean link;
        try {
            a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            link = a.isSymbolicLink();
            if (link) {
                a = Files.readAttributes(p, BasicFileAttributes.class);
            }
        } catch (IOException e) {
            return; // vanished, or a dangling symlink
        }
        if (!a.isDirectory()) {
            if (name.equals(LeafIds.CONTRACT_FILE)) {
                // a FIFO, socket or device where a contract belongs: say so rather than skip it in silence
                visitor.failure(new SnapshotFailure(rel, SnapshotFailure.Kind.REFUSED, (link ? "a symbolic link to " : "")
                        + "not a regular file (a FIFO, socket or device); special files are never read"));
            }
            return;
        }
        Object key = a.fileKey();
        if (key != null && ancestors.contains(key)) {
            visitor.failure(new SnapshotFailure(rel, SnapshotFailure.Kind.SYMLINK_LOOP,
                    "symlink loop: leads back to a directory above it; not followed"));
            return;
        }
        if (depth + 1 >= MAX_DEPTH) {
            visitor.failure(new SnapshotFailure(rel, SnapshotFailure.Kind.SYMLINK_LOOP,
                    "deeper than " + MAX_DEPTH + " levels (a symlink loop?); not followed"));
            return;
        }
        if (key != null) {
            ancestors.add(key);
        }
        directory(p, rel + "/", depth + 1);
        if (key != null) {
            ancestors.remove(key);
        }
    }

    /**
     * Walks one entry of the tree, {@code rel} (relative to {@code tasksDir}, {@code /}-separated), exactly as a
     * full walk would reach it: a contract file, or a directory with everything below it. Reports nothing when the
     * entry, or one of its ancestors, is gone or is not a directory a full walk would descend into (the caller keeps
     * the ancestors' own failures). The incremental step's enumeration of one changed path.
     */
    static void walkEntry(Path tasksDir, String rel, Visitor visitor) {
        String[] segments = rel.split("/");
        TreeWalk w = new TreeWalk(visitor);
        Path dir = tasksDir;
        try {
            BasicFileAttributes root = Files.readAttributes(tasksDir, BasicFileAttributes.class);
            if (!root.isDirectory()) {
                return;
            }
            if (root.fileKey() != null) {
                w.ancestors.add(root.fileKey());
            }
            for (int i = 0; i < segments.length - 1; i++) {
                if (segments[i].startsWith(".")) {
                    return;
                }
                dir = dir.resolve(segments[i]);
                BasicFileAttributes a = Files.readAttributes(dir, BasicFileAttributes.class);
                Object key = a.fileKey();
                if (!a.isDirectory() || (key != null && !w.ancestors.add(key)) || i + 1 >= MAX_DEPTH) {
                    return; // a full walk reports (or skips) this ancestor itself and never gets below it
                }
            }
        } catch (IOException e) {
            return;
        }
        String name = segments[segments.length - 1];
        w.entry(dir.resolve(name), name, rel, segments.length - 1);
    }

    static String describe(Exception e) {
        Throwable cause = e instanceof DirectoryIteratorException d ? d.getCause() : null;
        Throwable t = cause != null ? cause : e;
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + t.getMessage();
    }
}
