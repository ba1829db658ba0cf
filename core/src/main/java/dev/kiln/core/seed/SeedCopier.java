package dev.kiln.core.seed;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Copies a seed into a job's scratch cache: every regular file is a new file with its own inode (never a hard
 * link, never a link back into the seed), so a job can do anything to its cache without touching the seed.
 *
 * <p>uv's cache links each wheel entry to its unpacked archive with a <em>relative</em> symbolic link inside the
 * cache; those are recreated as the same relative links, which then resolve inside the copy. A link that would
 * leave the seed is not recreated (and reported): the copy must never point into the seed or elsewhere.
 *
 * <p>Why it is shaped like this: a uv cache is thousands of small files, so the cost is system calls per file.
 * One {@code lstat} per entry (from the walk) gives type, size and mode; each file is then one create with its
 * mode, one read and one write through a reused buffer (or {@code sendfile} for large files), two closes.
 * Permissions are kept (wheels carry executable scripts); timestamps and owners are not, since uv keeps
 * freshness inside its cache entries, not in file times (the offline-install test proves the copy is
 * sufficient). Measured against {@code cp -a} by {@code kiln bench seed}: under strace this is 8 system calls per
 * file to GNU cp 9.1's ~16 (cp adds xattr, ACL, utimensat and fadvise calls), and the time is the kernel's file
 * creation. One thread on purpose: copying disjoint subtrees on two threads measured no faster (creation waits on
 * the filesystem's journal, which a second thread does not overlap) and its fastest rounds were slower.
 */
final class SeedCopier {
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final Set<OpenOption> CREATE = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS);

    /** Files up to this size go through one reused buffer; larger ones through {@code sendfile}. */
    private static final int SMALL = 64 * 1024;

    private final Path root;
    private final Path dst;
    /** The scratch cache's identity: a seed directory with it is the destination itself (a link loop, a race). */
    private final Object dstKey;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(SMALL);
    private final List<String> problems = new ArrayList<>();
    private long files;
    private long bytes;
    private long links;

    private SeedCopier(Path root, Path dst, Object dstKey) {
        this.root = root;
        this.dst = dst;
        this.dstKey = dstKey;
    }

    static CopyReport copy(Path seed, Path scratch, Clock clock) {
        Instant begin = clock.instant();
        Path root = seed.toAbsolutePath().normalize();
        Path dst = scratch.toAbsolutePath().normalize();
        if (!Files.isDirectory(root)) {
            return new CopyReport(false, 0, 0, 0, Duration.between(begin, clock.instant()),
                    Optional.of("no seed at " + root + " (warm the target first); the job proceeds without it"), false);
        }
        SeedCopier c;
        Object dstKey;
        try {
            // Real paths, not the spelling: SCRATCH (or a parent) may be a link into the seed, or the seed's parent.
            Path realRoot = root.toRealPath();
            Path realDst = realPath(dst);
            if (realDst.startsWith(realRoot) || realRoot.startsWith(realDst)) {
                return refused(begin, clock, "the scratch cache " + dst + " (really " + realDst + ") and the seed "
                        + root + " (really " + realRoot + ") overlap; copy refused: give a SCRATCH outside the seed");
            }
            Files.createDirectories(realDst);
            dstKey = Files.readAttributes(realDst, BasicFileAttributes.class, NOFOLLOW).fileKey();
            c = new SeedCopier(realRoot, realDst, dstKey);
        } catch (IOException | RuntimeException e) {
            return new CopyReport(false, 0, 0, 0, Duration.between(begin, clock.instant()),
                    Optional.of("cannot prepare the scratch cache " + dst + ": " + e + "; the job proceeds without the seed"),
                    false);
        }
        try (DirectoryStream<Path> top = Files.newDirectoryStream(c.dst)) {
            if (!(top instanceof SecureDirectoryStream<Path> sds)) {
                throw new IOException("this platform cannot open directories relative to each other; copy refused");
            }
            Object opened = sds.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey();
            if (!opened.equals(dstKey)) {
                // The scratch path was swapped between the check and the open: what was checked is not what is open.
                return refused(begin, clock, "the scratch cache " + dst + " changed while the copy began; copy refused");
            }
            c.copyDir(c.root, sds, Path.of(""), true);
        } catch (IOException | RuntimeException e) {
            c.problems.add("copy failed: " + e);
        }
        Optional<String> problem = c.problems.isEmpty() ? Optional.empty()
                : Optional.of(String.join("; ", c.problems) + "; the job proceeds with what was copied");
        return new CopyReport(c.problems.isEmpty(), c.files, c.bytes, c.links, Duration.between(begin, clock.instant()),
                problem, false);
    }

    private static CopyReport refused(Instant begin, Clock clock, String why) {
        return new CopyReport(false, 0, 0, 0, Duration.between(begin, clock.instant()), Optional.of(why), true);
    }

    /** The real path of {@code p}, which need not exist yet: its nearest existing ancestor's, plus the rest. */
    private static Path realPath(Path p) throws IOException {
        Path existing = p;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return p;
        }
        return existing.toRealPath().resolve(existing.relativize(p)).normalize();
    }

    /**
     * Copies the seed directory {@code from} into the open destination directory {@code to}. Every destination
     * entry is created or opened relative to {@code to}'s descriptor and never through a link: the job owns the
     * scratch dir, so anything found there that is not a plain directory or file is removed and made anew.
     */
    private void copyDir(Path from, SecureDirectoryStream<Path> to, Path rel, boolean top) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(from)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (top && SeedStore.isKilnFile(name)) {
                    continue; // the seed's bookkeeping stays with the seed
                }
                PosixFileAttributes a = Files.readAttributes(entry, PosixFileAttributes.class, NOFOLLOW);
                Path n = Path.of(name);
                if (a.isDirectory()) {
                    if (dstKey.equals(a.fileKey())) {
                        problems.add(rel.resolve(name) + " is the scratch cache itself; not copied into itself");
                        continue;
                    }
                    try (SecureDirectoryStream<Path> sub = openDir(to, rel.resolve(name), n)) {
                        copyDir(entry, sub, rel.resolve(name), false);
                    }
                } else if (a.isSymbolicLink()) {
                    copyLink(entry, to, rel.resolve(name), n);
                } else if (a.isRegularFile()) {
                    copyFile(entry, to, n, a);
                }
            }
        }
    }

    /** Opens (creating if needed) the directory {@code n} in {@code parent}, replacing a link or file found there. */
    private SecureDirectoryStream<Path> openDir(SecureDirectoryStream<Path> parent, Path rel, Path n) throws IOException {
        for (int attempt = 0; ; attempt++) {
            try {
                return parent.newDirectoryStream(n, NOFOLLOW); // O_NOFOLLOW: a link here fails, never is followed
            } catch (NoSuchFileException e) {
                // not there yet: create it below
            } catch (FileSystemException e) {
                if (attempt > 2) {
                    throw e;
                }
                // A link or a file where the seed has a directory: the job's own entry, so remove it (unlink
                // removes the link itself, not what it points at).
                parent.deleteFile(n);
            }
            if (attempt > 2) {
                throw new IOException(dst.resolve(rel) + " keeps changing under the copy");
            }
            try {
                // mkdir goes by path (SecureDirectoryStream has no mkdirat); opening it again right after, by
                // descriptor and without following, is what guarantees the copy goes where it was meant to.
                Files.createDirectory(dst.resolve(rel));
            } catch (FileAlreadyExistsException e) {
                // raced with another creator; the next open decides
            }
        }
    }

    private void copyLink(Path link, SecureDirectoryStream<Path> to, Path rel, Path n) throws IOException {
        Path target = Files.readSymbolicLink(link);
        Path resolved = link.getParent().resolve(target).normalize();
        if (target.isAbsolute() || !resolved.startsWith(root)) {
            problems.add("link " + root.relativize(link) + " -> " + target + " leaves the seed; not copied");
            return;
        }
        removeEntry(to, n);
        Files.createSymbolicLink(dst.resolve(rel), target);
        links++;
    }

    /** Removes whatever the job's cache has at {@code n} (a file or a link; a directory must be empty). */
    private static void removeEntry(SecureDirectoryStream<Path> dir, Path n) throws IOException {
        try {
            dir.deleteFile(n);
        } catch (NoSuchFileException e) {
            // nothing there
        } catch (FileSystemException e) {
            dir.deleteDirectory(n);
        }
    }

    private void copyFile(Path from, SecureDirectoryStream<Path> to, Path name, PosixFileAttributes a) throws IOException {
        Set<PosixFilePermission> perms = a.permissions();
        FileAttribute<Set<PosixFilePermission>> mode = PosixFilePermissions.asFileAttribute(
                perms.isEmpty() ? EnumSet.noneOf(PosixFilePermission.class) : EnumSet.copyOf(perms));
        SeekableByteChannel out;
        try {
            out = to.newByteChannel(name, CREATE, mode);
        } catch (FileAlreadyExistsException e) {
            // The job's cache already had this entry (a file, or a link to anywhere): the seed's content wins. A
            // hard link or a symlink there would share its target with someone else, so the old name is removed
            // and a fresh file made; O_EXCL never follows a link.
            removeEntry(to, name);
            out = to.newByteChannel(name, CREATE, mode);
        }
        try (SeekableByteChannel o = out; FileChannel in = FileChannel.open(from, StandardOpenOption.READ)) {
            long size = a.size();
            long done = 0;
            if (size <= SMALL) {
                // Most of a uv cache is small files: a plain read and write costs less than setting up sendfile.
                buffer.clear();
                while (buffer.hasRemaining() && in.read(buffer) > 0) {
                    // until EOF or full
                }
                buffer.flip();
                done = buffer.remaining();
                while (buffer.hasRemaining()) {
                    o.write(buffer);
                }
                long n;
                while (done == SMALL && (n = in.transferTo(done, Long.MAX_VALUE, o)) > 0) {
                    done += n; // it grew since the walk saw it
                }
            } else {
                while (done < size) {
                    long n = in.transferTo(done, size - done, o);
                    if (n <= 0) {
                        break; // the seed file shrank under us; copy what there is
                    }
                    done += n;
                }
            }
            bytes += done;
        }
        files++;
    }
}
