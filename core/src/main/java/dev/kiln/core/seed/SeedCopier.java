package dev.kiln.core.seed;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
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
    private static final Set<OpenOption> CREATE = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    private static final Set<OpenOption> REPLACE = Set.of(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE);

    /** Files up to this size go through one reused buffer; larger ones through {@code sendfile}. */
    private static final int SMALL = 64 * 1024;

    private final Path root;
    private final Path dst;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(SMALL);
    private final List<String> problems = new ArrayList<>();
    private long files;
    private long bytes;
    private long links;

    private SeedCopier(Path root, Path dst) {
        this.root = root;
        this.dst = dst;
    }

    static CopyReport copy(Path seed, Path scratch, Clock clock) {
        Instant begin = clock.instant();
        Path root = seed.toAbsolutePath().normalize();
        Path dst = scratch.toAbsolutePath().normalize();
        if (!Files.isDirectory(root)) {
            return new CopyReport(false, 0, 0, 0, Duration.between(begin, clock.instant()),
                    Optional.of("no seed at " + root + " (warm the target first); the job proceeds without it"));
        }
        if (dst.startsWith(root) || root.startsWith(dst)) {
            return new CopyReport(false, 0, 0, 0, Duration.between(begin, clock.instant()),
                    Optional.of("the scratch cache " + dst + " and the seed " + root + " overlap; copy refused"));
        }
        SeedCopier c = new SeedCopier(root, dst);
        try {
            Files.createDirectories(dst);
            c.copyDir(root, dst, true);
        } catch (IOException | RuntimeException e) {
            c.problems.add("copy failed: " + e);
        }
        Optional<String> problem = c.problems.isEmpty() ? Optional.empty()
                : Optional.of(String.join("; ", c.problems) + "; the job proceeds with what was copied");
        return new CopyReport(c.problems.isEmpty(), c.files, c.bytes, c.links, Duration.between(begin, clock.instant()),
                problem);
    }

    private void copyDir(Path from, Path to, boolean top) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(from)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (top && SeedStore.isKilnFile(name)) {
                    continue; // the seed's bookkeeping stays with the seed
                }
                PosixFileAttributes a = Files.readAttributes(entry, PosixFileAttributes.class, NOFOLLOW);
                Path target = to.resolve(name);
                if (a.isDirectory()) {
                    try {
                        Files.createDirectory(target);
                    } catch (FileAlreadyExistsException e) {
                        // merging into a job cache that already has this directory
                    }
                    copyDir(entry, target, false);
                } else if (a.isSymbolicLink()) {
                    copyLink(entry, target);
                } else if (a.isRegularFile()) {
                    copyFile(entry, target, a);
                }
            }
        }
    }

    private void copyLink(Path link, Path to) throws IOException {
        Path target = Files.readSymbolicLink(link);
        Path resolved = link.getParent().resolve(target).normalize();
        if (target.isAbsolute() || !resolved.startsWith(root)) {
            problems.add("link " + root.relativize(link) + " -> " + target + " leaves the seed; not copied");
            return;
        }
        Files.deleteIfExists(to);
        Files.createSymbolicLink(to, target);
        links++;
    }

    private void copyFile(Path from, Path to, PosixFileAttributes a) throws IOException {
        Set<PosixFilePermission> perms = a.permissions();
        FileAttribute<Set<PosixFilePermission>> mode = PosixFilePermissions.asFileAttribute(
                perms.isEmpty() ? EnumSet.noneOf(PosixFilePermission.class) : EnumSet.copyOf(perms));
        FileChannel out;
        try {
            out = FileChannel.open(to, CREATE, mode);
        } catch (FileAlreadyExistsException e) {
            // The job's cache already had this entry: the seed's content wins. A hard link there would share its
            // inode with someone else, so the old name is removed and a fresh file made.
            Files.delete(to);
            out = FileChannel.open(to, REPLACE, mode);
        }
        try (FileChannel o = out; FileChannel in = FileChannel.open(from, StandardOpenOption.READ)) {
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
