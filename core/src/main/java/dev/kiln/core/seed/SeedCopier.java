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
import java.nio.file.attribute.PosixFileAttributeView;
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
import org.jspecify.annotations.Nullable;

/**
 * Copies a seed into a job's scratch cache: every regular file is a new file with its own inode (never a hard
 * link, never a link back into the seed), so a job can do anything to its cache without touching the seed.
 *
 * <p>uv's cache links each wheel entry to its unpacked archive with a <em>relative</em> symbolic link inside the
 * cache; those are recreated as the same relative links, which then resolve inside the copy. A link that would
 * leave the seed is not recreated (and reported): the copy must never point into the seed or elsewhere. Special
 * files (FIFOs, sockets, devices) are never copied nor opened.
 *
 * <p>Why it is shaped like this: a uv cache is thousands of small files, so the cost is system calls and path
 * lookups per file. Both trees are walked through directory descriptors ({@code openat}/{@code fstatat} relative
 * to the open directory, never a full path resolved again per entry), one {@code fstatat} per entry gives type,
 * size and mode, and each file is one create with its mode, one open, the contents moved in the kernel
 * ({@link CopyMode#KERNEL}: {@code FileChannel.transferTo}, which is {@code copy_file_range} on JDK 21+ and
 * {@code sendfile} on 17) and two closes. The size is the walk's: a seed is published by an atomic rename and
 * never written in place, so its files do not grow under a copy. When the kernel path is refused (a channel that
 * is not a file's, a filesystem that answers {@code EOPNOTSUPP}/{@code EXDEV}/{@code EINVAL}), that file and every
 * later one go through one reused buffer ({@link CopyMode#STREAM}) and the report says so. Permissions are kept
 * (wheels carry executable scripts); timestamps and owners are not, since uv keeps freshness inside its cache
 * entries, not in file times (the offline-install test proves the copy is sufficient). Measured against
 * {@code cp -a} by {@code kiln bench seed}. One thread on purpose: copying disjoint subtrees on two threads
 * measured no faster (creation waits on the filesystem's journal, which a second thread does not overlap).
 *
 * <p>Not thread-safe: one copier per copy, confined to the calling thread.
 */
final class SeedCopier {
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final Set<OpenOption> CREATE = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS);
    private static final Set<OpenOption> READ = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);

    /** The stream fallback's buffer. */
    private static final int BUFFER = 64 * 1024;

    /** Moves {@code count} bytes from {@code position} of {@code in} to {@code out}'s position; a seam for the refusal tests. */
    @FunctionalInterface
    interface Transfer {
        long transfer(FileChannel in, long position, long count, FileChannel out) throws IOException;
    }

    static final Transfer KERNEL = (in, position, count, out) -> in.transferTo(position, count, out);

    private final Path root;
    private final Path dst;
    /** The scratch cache's identity: a seed directory with it is the destination itself (a link loop, a race). */
    private final Object dstKey;
    private final Transfer transfer;
    /** Allocated by the first file that needs the stream fallback; most copies never do. */
    private @Nullable ByteBuffer buffer;
    private final List<String> problems = new ArrayList<>();
    private CopyMode mode;
    private long files;
    private long bytes;
    private long links;

    private SeedCopier(Path root, Path dst, Object dstKey, CopyMode preferred, Transfer transfer) {
        this.root = root;
        this.dst = dst;
        this.dstKey = dstKey;
        this.mode = preferred;
        this.transfer = transfer;
    }

    static CopyReport copy(Path seed, Path scratch, Clock clock) {
        return copy(seed, scratch, clock, CopyMode.KERNEL, KERNEL);
    }

    /** A copy that starts in {@code preferred} mode, moving kernel-mode contents with {@code transfer}. */
    static CopyReport copy(Path seed, Path scratch, Clock clock, CopyMode preferred, Transfer transfer) {
        Instant begin = clock.instant();
        Path root = seed.toAbsolutePath().normalize();
        Path dst = scratch.toAbsolutePath().normalize();
        if (!Files.isDirectory(root)) {
            return new CopyReport(false, 0, 0, 0, Duration.between(begin, clock.instant()),
                    Optional.of("no seed at " + root + " (warm the target first); the job proceeds without it"), false,
                    preferred);
        }
        SeedCopier c;
        Object dstKey;
        try {
            // Real paths, not the spelling: SCRATCH (or a parent) may be a link into the seed, or the seed's parent.
            Path realRoot = root.toRealPath();
            Path realDst = realPath(dst);
            if (realDst.startsWith(realRoot) || realRoot.startsWith(realDst)) {
                return refused(begin, clock, "the scratch cache " + dst + " (really " + realDst + ") and the seed "
                        + root + " (really " + realRoot + ") overlap; copy refused: give a SCRATCH outside the seed",
                        preferred);
            }
            Files.createDirectories(realDst);
            dstKey = Files.readAttributes(realDst, BasicFileAttributes.class, NOFOLLOW).fileKey();
            c = new SeedCopier(realRoot, realDst, dstKey, preferred, transfer);
        } catch (IOException | RuntimeException e) {
            return new CopyReport(false, 0, 0, 0, Duration.between(begin, clock.instant()),
                    Optional.of("cannot prepare the scratch cache " + dst + ": " + e + "; the job proceeds without the seed"),
                    false, preferred);
        }
        try (DirectoryStream<Path> top = Files.newDirectoryStream(c.dst);
                DirectoryStream<Path> seedTop = Files.newDirectoryStream(c.root)) {
            if (!(top instanceof SecureDirectoryStream<Path> sds) || !(seedTop instanceof SecureDirectoryStream<Path> from)) {
                throw new IOException("this platform cannot open directories relative to each other; copy refused");
            }
            Object opened = sds.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey();
            if (!opened.equals(dstKey)) {
                // The scratch path was swapped between the check and the open: what was checked is not what is open.
                return refused(begin, clock, "the scratch cache " + dst + " changed while the copy began; copy refused",
                        preferred);
            }
            c.copyDir(from, sds, Path.of(""), true);
        } catch (IOException | RuntimeException e) {
            c.problems.add("copy failed: " + e);
        }
        Optional<String> problem = c.problems.isEmpty() ? Optional.empty()
                : Optional.of(String.join("; ", c.problems) + "; the job proceeds with what was copied");
        return new CopyReport(c.problems.isEmpty(), c.files, c.bytes, c.links, Duration.between(begin, clock.instant()),
                problem, false, c.mode);
    }

    private static CopyReport refused(Instant begin, Clock clock, String why, CopyMode mode) {
        return new CopyReport(false, 0, 0, 0, Duration.between(begin, clock.instant()), Optional.of(why), true, mode);
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
     * Copies the open seed directory {@code from} into the open destination directory {@code to}. Every entry on
     * both sides is read, created or opened relative to its directory's descriptor and never through a link: the
     * job owns the scratch dir, so anything found there that is not a plain directory or file is removed and made
     * anew.
     */
    private void copyDir(SecureDirectoryStream<Path> from, SecureDirectoryStream<Path> to, Path rel, boolean top)
            throws IOException {
        for (Path entry : from) {
            String name = entry.getFileName().toString();
            if (top && SeedStore.isKilnFile(name)) {
                continue; // the seed's bookkeeping stays with the seed
            }
            Path n = Path.of(name);
            PosixFileAttributes a = from.getFileAttributeView(n, PosixFileAttributeView.class, NOFOLLOW).readAttributes();
            if (a.isDirectory()) {
                if (dstKey.equals(a.fileKey())) {
                    problems.add(rel.resolve(name) + " is the scratch cache itself; not copied into itself");
                    continue;
                }
                try (SecureDirectoryStream<Path> src = from.newDirectoryStream(n, NOFOLLOW);
                        SecureDirectoryStream<Path> sub = openDir(to, rel.resolve(name), n)) {
                    copyDir(src, sub, rel.resolve(name), false);
                }
            } else if (a.isSymbolicLink()) {
                copyLink(entry, to, rel.resolve(name), n);
            } else if (a.isRegularFile()) {
                copyFile(from, to, n, a);
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
        Path resolved = link.resolveSibling(target).normalize(); // relative to the link's directory
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

    private void copyFile(SecureDirectoryStream<Path> from, SecureDirectoryStream<Path> to, Path name,
            PosixFileAttributes a) throws IOException {
        Set<PosixFilePermission> perms = a.permissions();
        FileAttribute<Set<PosixFilePermission>> fileMode = PosixFilePermissions.asFileAttribute(
                perms.isEmpty() ? EnumSet.noneOf(PosixFilePermission.class) : EnumSet.copyOf(perms));
        SeekableByteChannel out;
        try {
            out = to.newByteChannel(name, CREATE, fileMode);
        } catch (FileAlreadyExistsException e) {
            // The job's cache already had this entry (a file, or a link to anywhere): the seed's content wins. A
            // hard link or a symlink there would share its target with someone else, so the old name is removed
            // and a fresh file made; O_EXCL never follows a link.
            removeEntry(to, name);
            out = to.newByteChannel(name, CREATE, fileMode);
        }
        try (SeekableByteChannel o = out; SeekableByteChannel i = from.newByteChannel(name, READ)) {
            long size = a.size();
            long done = 0;
            if (mode == CopyMode.KERNEL && i instanceof FileChannel in && o instanceof FileChannel fo) {
                try {
                    while (done < size) {
                        long n = transfer.transfer(in, done, size - done, fo);
                        if (n <= 0) {
                            break; // the seed file shrank under us; copy what there is
                        }
                        done += n;
                    }
                } catch (IOException refused) {
                    // The kernel path said no (EOPNOTSUPP, EXDEV, EINVAL from a filesystem that cannot): this and
                    // every later file go through the buffer, from where the kernel stopped.
                    mode = CopyMode.STREAM;
                    fo.position(done);
                    done = stream(i, o, done, size);
                }
            } else {
                mode = CopyMode.STREAM;
                done = stream(i, o, 0, size);
            }
            bytes += done;
        }
        files++;
    }

    /** Copies {@code in} from {@code done} up to {@code size} bytes through the reused buffer; the bytes copied in all. */
    private long stream(SeekableByteChannel in, SeekableByteChannel out, long done, long size) throws IOException {
        ByteBuffer buf = buffer;
        if (buf == null) {
            buf = ByteBuffer.allocateDirect(BUFFER);
            buffer = buf;
        }
        if (done > 0) {
            in.position(done);
        }
        while (done < size) {
            buf.clear();
            if (size - done < BUFFER) {
                buf.limit((int) (size - done));
            }
            int n = in.read(buf);
            if (n <= 0) {
                break; // shrank under us
            }
            buf.flip();
            while (buf.hasRemaining()) {
                out.write(buf);
            }
            done += n;
        }
        return done;
    }
}
