package dev.kiln.core.archive;

import dev.kiln.core.snapshot.StatIdentity;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Walks the member set of a root in archive order (depth first, children sorted by name, directories before
 * their contents), never following a symlink, and records the {@link Manifest} the cache validates against.
 *
 * <p>The manifest holds the stat identity of every file and symlink, and for every directory its identity
 * and its (non-excluded) child names. A directory's identity is only a short-cut: when it moved, the children
 * are listed and compared, because Python creating {@code __pycache__} in a package directory moves the
 * directory's mtime and must not invalidate an archive that excludes it. Identities are read before content
 * and listings, so a change during the walk shows up as a change later, never as a stale hit.
 */
final class MemberWalk {

    enum Kind { DIRECTORY, FILE, SYMLINK }

    /**
     * One archive entry.
     *
     * @param name entry name, {@code <root-name>/<relative>} ('/'-separated, no trailing slash)
     * @param executable any execute bit set (files only)
     * @param linkTarget symlink target as stored (symlinks only)
     */
    record Node(String name, Kind kind, Path path, boolean executable, @Nullable String linkTarget) {
    }

    @FunctionalInterface
    interface Visitor {
        /** Writes the node; returns the CRC32C of a file's content when asked ({@code wantCrc}), else anything. */
        long visit(Node node, boolean wantCrc) throws IOException;
    }

    /**
     * How close to the walk a change must be to fall inside one timestamp tick (a jiffy on ext4 without
     * multigrain timestamps, up to 10 ms): an entry whose ctime is that recent is "racy", because a change
     * right after our stat could leave its identity unchanged. Racy files are validated by content, racy
     * directories by listing (the trick git uses for its index).
     */
    static final long RACY_NANOS = 100_000_000L;

    /** What the walk saw: the manifest to validate against and the special files it skipped. */
    record Result(Manifest manifest, List<String> skipped, int entries, int files) {
    }

    private final Path root;
    private final String rootName;
    private final Excludes excludes;
    private final Visitor visitor;
    private final List<Manifest.Check> checks = new ArrayList<>();
    private final List<String> skipped = new ArrayList<>();
    private final long racyAfter;
    private int entries;
    private int files;

    private MemberWalk(Path realRoot, Excludes excludes, Visitor visitor) {
        this.root = realRoot;
        this.rootName = realRoot.getFileName() == null ? "root" : realRoot.getFileName().toString();
        this.excludes = excludes;
        this.visitor = visitor;
        java.time.Instant now = java.time.Instant.now();
        this.racyAfter = now.getEpochSecond() * 1_000_000_000L + now.getNano() - RACY_NANOS;
    }

    /**
     * Walks {@code members} (top-level names, sorted; empty = all of the root) of {@code realRoot}.
     *
     * @throws ArchiveException for a missing member, an escaping or absolute symlink, or a tree that changed
     *     under the walk
     */
    static Result walk(Path realRoot, List<String> members, Excludes excludes, Visitor visitor) throws IOException {
        MemberWalk w = new MemberWalk(realRoot, excludes, visitor);
        w.walkRoot(members);
        return new Result(new Manifest(realRoot, List.copyOf(w.checks)), List.copyOf(w.skipped), w.entries, w.files);
    }

    /**
     * The bytes of the regular files among {@code members} of {@code realRoot} (all of it when empty), by a stat
     * walk that reads no content, follows no symlink and honours the excludes as the archive walk does. Stops
     * counting once the sum is above {@code stopAbove}: a huge tree is refused without walking all of it.
     */
    static long sourceBytes(Path realRoot, List<String> members, Excludes excludes, long stopAbove) throws IOException {
        ArrayDeque<Map.Entry<Path, String>> todo = new ArrayDeque<>();
        if (members.isEmpty()) {
            for (String child : listChildren(realRoot, "", excludes)) {
                todo.push(Map.entry(realRoot.resolve(child), child));
            }
        } else {
            for (String m : members) {
                todo.push(Map.entry(realRoot.resolve(m), m));
            }
        }
        long sum = 0;
        while (!todo.isEmpty() && sum <= stopAbove) {
            Map.Entry<Path, String> e = todo.pop();
            BasicFileAttributes a;
            try {
                a = Files.readAttributes(e.getKey(), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException gone) {
                continue; // the archive walk says what is missing, in its own words
            }
            if (a.isRegularFile()) {
                sum += a.size();
            } else if (a.isDirectory()) {
                for (String child : listChildren(e.getKey(), e.getValue(), excludes)) {
                    todo.push(Map.entry(e.getKey().resolve(child), e.getValue() + "/" + child));
                }
            }
        }
        return sum;
    }

    private void walkRoot(List<String> members) throws IOException {
        StatIdentity rootId = StatIdentity.of(root, false);
        emit(new Node(rootName, Kind.DIRECTORY, root, false, null), false);
        if (members.isEmpty()) {
            String[] children = listChildren(root, "");
            checks.add(new Manifest.DirCheck(root, "", rootId, racy(rootId), children));
            for (String child : children) {
                visit(root.resolve(child), child);
            }
            return;
        }
        // Named members: the rest of the root is not ours to watch, only the members themselves.
        checks.add(new Manifest.DirCheck(root, "", rootId, racy(rootId), null));
        for (String m : members) {
            Path p = root.resolve(m);
            if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                throw new ArchiveException("Member '" + m + "' does not exist in " + root
                        + "; name an existing file or directory directly under the root");
            }
            visit(p, m);
        }
    }

    private void visit(Path p, String rel) throws IOException {
        // Identity first, content after: a change after this stat moves the identity, so it is never missed.
        StatIdentity id;
        BasicFileAttributes a;
        try {
            id = StatIdentity.of(p, false);
            a = attributes(p);
        } catch (NoSuchFileException e) {
            throw new ArchiveException(root.resolve(rel) + " disappeared while it was being archived; retry", e);
        }
        String name = rootName + "/" + rel;
        if (a.isSymbolicLink()) {
            String target = Files.readSymbolicLink(p).toString();
            refuseEscapingLink(rel, target);
            checks.add(new Manifest.LeafCheck(p, rel, id, false, 0));
            emit(new Node(name, Kind.SYMLINK, p, false, target), false);
        } else if (a.isDirectory()) {
            String[] children = listChildren(p, rel);
            checks.add(new Manifest.DirCheck(p, rel, id, racy(id), children));
            emit(new Node(name, Kind.DIRECTORY, p, false, null), false);
            for (String child : children) {
                visit(p.resolve(child), rel + "/" + child);
            }
        } else if (a.isRegularFile()) {
            boolean racy = racy(id);
            long crc = emit(new Node(name, Kind.FILE, p, executable(a), null), racy);
            checks.add(new Manifest.LeafCheck(p, rel, id, racy, crc));
        } else {
            // Sockets, fifos and devices have no content to ship; they are reported, not archived.
            checks.add(new Manifest.LeafCheck(p, rel, id, false, 0));
            skipped.add(rel + " (" + specialKind(p) + ", skipped)");
        }
    }

    private long emit(Node n, boolean wantCrc) throws IOException {
        entries++;
        if (n.kind() != Kind.DIRECTORY) {
            files++;
        }
        return visitor.visit(n, wantCrc);
    }

    private boolean racy(StatIdentity id) {
        return Math.max(id.ctimeNanos(), id.mtimeNanos()) >= racyAfter;
    }

    private void refuseEscapingLink(String rel, String target) {
        Path t = Path.of(target);
        if (t.isAbsolute()) {
            throw new ArchiveException("Symlink " + root.resolve(rel) + " points to the absolute path " + target
                    + ", which would dangle in a sandbox; make it relative to a file inside " + root + " or exclude it");
        }
        Path parent = Path.of(rel).getParent();
        Path resolved = (parent == null ? root : root.resolve(parent)).resolve(t).normalize();
        if (!resolved.startsWith(root)) {
            throw new ArchiveException("Symlink " + root.resolve(rel) + " points outside the root (" + target + " -> "
                    + resolved + "); archives never carry links out of their root: remove it or exclude it");
        }
    }

    /** Non-excluded child names, sorted: the order of the archive and of the manifest. */
    String[] listChildren(Path dir, String rel) throws IOException {
        String[] names = listChildren(dir, rel, excludes);
        for (String n : names) {
            // A name that is not valid UTF-8 decodes with U+FFFD and no longer names the file: say so, instead of
            // "disappeared" a moment later. (A name that really holds U+FFFD still resolves, and is archived.)
            if (n.indexOf('\uFFFD') >= 0 && !Files.exists(dir.resolve(n), LinkOption.NOFOLLOW_LINKS)) {
                throw new ArchiveException("Cannot archive " + dir.resolve(n) + ": its file name is not valid UTF-8 (the"
                        + " undecodable bytes are shown as \uFFFD), and archive names are UTF-8. Rename it (e.g. with"
                        + " convmv) or exclude it.");
            }
        }
        return names;
    }

    static String[] listChildren(Path dir, String rel, Excludes excludes) throws IOException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path c : s) {
                String n = c.getFileName().toString();
                if (!excludes.excludes(n, rel.isEmpty() ? n : rel + "/" + n)) {
                    names.add(n);
                }
            }
        }
        String[] out = names.toArray(new String[0]);
        Arrays.sort(out);
        return out;
    }

    private static BasicFileAttributes attributes(Path p) throws IOException {
        try {
            return Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (UnsupportedOperationException e) {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        }
    }

    private static boolean executable(BasicFileAttributes a) {
        if (a instanceof PosixFileAttributes pa) {
            Set<PosixFilePermission> perms = pa.permissions();
            return perms.contains(PosixFilePermission.OWNER_EXECUTE) || perms.contains(PosixFilePermission.GROUP_EXECUTE)
                    || perms.contains(PosixFilePermission.OTHERS_EXECUTE);
        }
        return false;
    }

    private static String specialKind(Path p) {
        try {
            Object mode = Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            int type = ((Integer) mode) & 0170000;
            return switch (type) {
                case 0140000 -> "socket";
                case 0010000 -> "fifo";
                case 0060000 -> "block device";
                case 0020000 -> "character device";
                default -> "special file";
            };
        } catch (IOException | RuntimeException e) {
            return "special file";
        }
    }
}
