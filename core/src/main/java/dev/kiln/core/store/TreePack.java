package dev.kiln.core.store;

import java.io.BufferedOutputStream;
import org.jspecify.annotations.Nullable;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipParameters;

/**
 * A directory tree as one compressed tar (docs/ARCHITECTURE.md, "The object store": why one object per tree), and
 * back. Packing is deterministic (entries sorted, owners 0, times 0), so the same tree gives the same bytes. Unpacking
 * trusts nothing: every entry must stay inside the target directory, links must be relative and resolve inside it,
 * and only directories, regular files and symbolic links are made (a hard link, device or FIFO is refused). The
 * object's SHA-256 is computed over the bytes as they arrive and compared with the manifest's before anything is
 * installed.
 */
final class TreePack {
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final Set<OpenOption> CREATE = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS);

    private TreePack() {
    }

    record Packed(long bytes, long files, long treeBytes, String sha256) {
    }

    record Unpacked(long files, long treeBytes, long bytes, String sha256) {
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Packs {@code dir} into {@code out} (which must not exist). */
    static Packed pack(Path dir, Path out) throws IOException {
        List<Path> entries;
        try (Stream<Path> s = Files.walk(dir)) {
            entries = new ArrayList<>(s.filter(p -> !p.equals(dir)).toList());
        }
        entries.sort((a, b) -> dir.relativize(a).toString().compareTo(dir.relativize(b).toString()));
        MessageDigest md = sha256();
        long files = 0;
        long treeBytes = 0;
        CountingOutputStream counted;
        GzipParameters gz = new GzipParameters();
        gz.setCompressionLevel(Deflater.DEFAULT_COMPRESSION);
        gz.setModificationTime(0);
        byte[] buf = new byte[64 * 1024];
        try (OutputStream file = Files.newOutputStream(out, StandardOpenOption.CREATE_NEW);
             OutputStream c = counted = new CountingOutputStream(new DigestOutputStream(new BufferedOutputStream(file, 1 << 16), md));
             GzipCompressorOutputStream z = new GzipCompressorOutputStream(c, gz);
             TarArchiveOutputStream tar = new TarArchiveOutputStream(z, 1 << 16)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            for (Path p : entries) {
                String name = dir.relativize(p).toString();
                PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, NOFOLLOW);
                TarArchiveEntry e;
                if (a.isDirectory()) {
                    e = new TarArchiveEntry(name + "/", TarConstants.LF_DIR);
                    e.setMode(040000 | mode(a.permissions()));
                } else if (a.isSymbolicLink()) {
                    e = new TarArchiveEntry(name, TarConstants.LF_SYMLINK);
                    e.setLinkName(Files.readSymbolicLink(p).toString());
                } else if (a.isRegularFile()) {
                    e = new TarArchiveEntry(name, TarConstants.LF_NORMAL);
                    e.setMode(0100000 | mode(a.permissions()));
                    e.setSize(a.size());
                } else {
                    throw new IOException(p + " is neither a file, a directory nor a link; a seed holds none of those");
                }
                e.setModTime(0);
                e.setUserId(0);
                e.setGroupId(0);
                e.setUserName("");
                e.setGroupName("");
                tar.putArchiveEntry(e);
                if (a.isRegularFile()) {
                    long left = a.size();
                    try (InputStream in = Files.newInputStream(p, NOFOLLOW)) {
                        int n;
                        while (left > 0 && (n = in.read(buf, 0, (int) Math.min(buf.length, left))) > 0) {
                            tar.write(buf, 0, n);
                            left -= n;
                        }
                    }
                    if (left != 0) {
                        throw new IOException(p + " shrank while it was packed; run again when nothing writes the seed");
                    }
                    files++;
                    treeBytes += a.size();
                }
                tar.closeArchiveEntry();
            }
            tar.finish();
        }
        return new Packed(counted.count, files, treeBytes, HexFormat.of().formatHex(md.digest()));
    }

    private static int mode(Set<PosixFilePermission> perms) {
        int m = 0;
        for (PosixFilePermission p : perms) {
            m |= 1 << (8 - p.ordinal());
        }
        return m;
    }

    private static Set<PosixFilePermission> perms(int mode) {
        EnumSet<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
        for (PosixFilePermission p : PosixFilePermission.values()) {
            if ((mode & (1 << (8 - p.ordinal()))) != 0) {
                s.add(p);
            }
        }
        s.add(PosixFilePermission.OWNER_READ);
        s.add(PosixFilePermission.OWNER_WRITE);
        return s;
    }

    /**
     * Unpacks the object arriving on {@code raw} into the empty directory {@code into}, hashing every byte read. The
     * stream is read to its end (the hash covers the whole object), and the result says what arrived; the caller
     * compares it with the manifest before installing anything.
     *
     * @param what the object's name, for messages
     * @throws StoreException when an entry is unsafe (names the entry), or the bytes are not a tar.gz and their hash
     *     does not match {@code expectedSha} (a corrupted object, named)
     */
    static Unpacked unpack(InputStream raw, Path into, String what, String expectedSha) throws IOException {
        return unpack(raw, into, what, expectedSha, 0);
    }

    /** Files up to this size are handed to the writers whole; a larger one is written by the reading thread itself. */
    static final int HANDED_OFF_MAX = 1 << 20;
    /** The most bytes of handed-off files held in memory at once (the reader waits beyond it). */
    static final int IN_FLIGHT_MAX = 16 << 20;

    /**
     * As {@link #unpack(InputStream, Path, String, String)}, with {@code writers} threads creating the regular files
     * while the calling thread goes on reading, hashing, unzipping and checking entries (0: the caller writes each file
     * itself). Creating thousands of small files is most of a pull's time; the checks are the same either way (every
     * entry is checked, and its parent directory made, on the reading thread before a writer sees it), and a failed
     * write fails the unpack as it would inline.
     */
    static Unpacked unpack(InputStream raw, Path into, String what, String expectedSha, int writers) throws IOException {
        if (writers <= 0) {
            return unpack(raw, into, what, expectedSha, null);
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(writers, r -> {
            Thread t = new Thread(r, "kiln-unpack");
            t.setDaemon(true);
            return t;
        });
        Writers w = new Writers(pool);
        try {
            return unpack(raw, into, what, expectedSha, w);
        } finally {
            pool.shutdownNow();
            try {
                // no writer may still be making files when the caller clears the directory after a failure
                boolean stopped = pool.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS);
                assert stopped : "the writers of " + what + " did not stop within 60 s";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The writer threads of one unpack: files handed to them with their content, bounded by {@link #IN_FLIGHT_MAX}
     * bytes in memory; the first failure is kept and rethrown by {@link #check} and {@link #finish}.
     *
     * <p>Concurrency: {@code hand} and {@code finish} run on the reading thread; the tasks on the pool's; the failure is
     * an atomic reference, the in-flight bytes a semaphore.
     */
    private static final class Writers {
        private final java.util.concurrent.ExecutorService pool;
        private final java.util.concurrent.Semaphore room = new java.util.concurrent.Semaphore(IN_FLIGHT_MAX);
        private final java.util.concurrent.atomic.AtomicReference<@Nullable IOException> failed =
                new java.util.concurrent.atomic.AtomicReference<>();
        private final List<java.util.concurrent.Future<?>> tasks = new ArrayList<>();

        Writers(java.util.concurrent.ExecutorService pool) {
            this.pool = pool;
        }

        void hand(Path p, int mode, byte[] content, String what, String name) throws IOException {
            check();
            int need = Math.max(1, content.length);
            try {
                room.acquire(need);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while unpacking " + what);
            }
            tasks.add(pool.submit(() -> {
                try {
                    write(p, mode, content, what, name);
                } catch (IOException e) {
                    failed.compareAndSet(null, e);
                } catch (RuntimeException e) {
                    failed.compareAndSet(null, new IOException(e.toString(), e));
                } finally {
                    room.release(need);
                }
            }));
        }

        void check() throws IOException {
            IOException e = failed.get();
            if (e != null) {
                throw e instanceof StoreFailure f ? f.unwrap() : e;
            }
        }

        /** Waits for every handed file; the first failure, if any. */
        void finish() throws IOException {
            for (java.util.concurrent.Future<?> f : tasks) {
                try {
                    f.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted while unpacking");
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IOException(String.valueOf(e.getCause()), e.getCause());
                }
            }
            check();
        }
    }

    /** A refusal found by a writer (an entry twice), carried through the writers' IOException channel. */
    private static final class StoreFailure extends IOException {
        private static final long serialVersionUID = 1L;
        private final transient StoreException refusal;

        StoreFailure(StoreException refusal) {
            super(refusal.getMessage(), refusal);
            this.refusal = refusal;
        }

        IOException unwrap() {
            throw refusal;
        }
    }

    /** One regular file of the tree, created new (never through a link), with the entry's permissions. */
    private static void write(Path p, int mode, byte[] content, String what, String name) throws IOException {
        try (SeekableByteChannel ch = Files.newByteChannel(p, CREATE, PosixFilePermissions.asFileAttribute(perms(mode)))) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(content);
            while (b.hasRemaining()) {
                ch.write(b);
            }
        } catch (FileAlreadyExistsException x) {
            throw new StoreFailure(new StoreException(what + ": entry \"" + name + "\" appears twice; not installed"));
        }
    }

    private static Unpacked unpack(InputStream raw, Path into, String what, String expectedSha, @Nullable Writers writers)
            throws IOException {
        MessageDigest md = sha256();
        HashingInputStream hashed = new HashingInputStream(new java.io.BufferedInputStream(raw, 1 << 16), md);
        Path root = into.toAbsolutePath().normalize();
        java.util.Set<Path> made = new java.util.HashSet<>(); // directories known to exist: one mkdir each, not per file
        made.add(root);
        long files = 0;
        long treeBytes = 0;
        byte[] buf = new byte[64 * 1024];
        try {
            GzipCompressorInputStream z = new GzipCompressorInputStream(hashed);
            TarArchiveInputStream tar = new TarArchiveInputStream(z, 1 << 16);
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                String name = e.getName();
                Path p = root.resolve(name).normalize();
                if (name.startsWith("/") || !p.startsWith(root) || p.equals(root) && !e.isDirectory()) {
                    throw new StoreException(what + ": entry \"" + name + "\" leaves the target directory; not installed");
                }
                byte type = e.getLinkFlag();
                boolean plain = type == TarConstants.LF_NORMAL || type == TarConstants.LF_OLDNORM;
                if (!plain && !e.isDirectory() && !e.isSymbolicLink()) {
                    throw new StoreException(what + ": entry \"" + name + "\" is a " + kind(e)
                            + "; a seed holds only files, directories and links; not installed");
                }
                if (e.isDirectory()) {
                    if (made.add(p)) {
                        Files.createDirectories(p);
                    }
                } else if (e.isSymbolicLink()) {
                    Path target = Path.of(e.getLinkName());
                    if (target.isAbsolute() || !java.util.Objects.requireNonNullElse(p.getParent(), root).resolve(target).normalize().startsWith(root)) {
                        throw new StoreException(what + ": link \"" + name + "\" -> \"" + e.getLinkName()
                                + "\" leaves the seed; not installed");
                    }
                    if (made.add(p.getParent())) {
                        Files.createDirectories(p.getParent());
                    }
                    Files.createSymbolicLink(p, target);
                } else if (writers != null && e.getSize() <= HANDED_OFF_MAX) {
                    if (made.add(p.getParent())) {
                        Files.createDirectories(p.getParent());
                    }
                    byte[] content = new byte[(int) e.getSize()];
                    int at = 0;
                    int n;
                    while (at < content.length && (n = tar.read(content, at, content.length - at)) > 0) {
                        at += n;
                    }
                    if (at != content.length) {
                        throw new IOException(what + ": entry \"" + name + "\" ends after " + at + " of its " + content.length
                                + " bytes");
                    }
                    writers.hand(p, e.getMode(), content, what, name);
                    treeBytes += at;
                    files++;
                } else {
                    if (made.add(p.getParent())) {
                        Files.createDirectories(p.getParent());
                    }
                    try (SeekableByteChannel ch = Files.newByteChannel(p, CREATE,
                            PosixFilePermissions.asFileAttribute(perms(e.getMode())));
                         OutputStream out = Channels.newOutputStream(ch)) {
                        int n;
                        while ((n = tar.read(buf)) > 0) {
                            out.write(buf, 0, n);
                            treeBytes += n;
                        }
                    } catch (FileAlreadyExistsException x) {
                        throw new StoreException(what + ": entry \"" + name + "\" appears twice; not installed");
                    }
                    files++;
                }
            }
            hashed.drain();
            if (writers != null) {
                writers.finish();
            }
        } catch (IOException | RuntimeException x) {
            if (x instanceof StoreException) {
                throw x;
            }
            if (x instanceof StoreFailure f) {
                throw f.unwrap();
            }
            if (writers != null) {
                writers.check(); // a writer's failure (the disk full, an entry twice) is the cause, not the bytes
            }
            if (hashed.failedReading) {
                throw x; // the network, not the bytes: the caller retries
            }
            // Not a readable tar.gz. A corrupted object or a different one: the hash says which.
            hashed.drain();
            String sha = HexFormat.of().formatHex(md.digest());
            if (!sha.equals(expectedSha)) {
                throw corrupted(what, sha, expectedSha, x);
            }
            throw new StoreException(what + " is not a readable tar.gz (" + Retry.rootMessage(x) + "); not installed", x);
        }
        String sha = HexFormat.of().formatHex(md.digest());
        if (!sha.equals(expectedSha)) {
            throw corrupted(what, sha, expectedSha, null);
        }
        return new Unpacked(files, treeBytes, hashed.count, sha);
    }

    static StoreException corrupted(String what, String sha, String expected, @Nullable Throwable cause) {
        String m = what + " is corrupted: its bytes hash to SHA-256 " + sha + ", its manifest says " + expected
                + "; not installed (the local seed is as it was). Delete the key in the store and push it again.";
        return cause == null ? new StoreException(m) : new StoreException(m, cause);
    }

    private static String kind(TarArchiveEntry e) {
        if (e.isLink()) {
            return "hard link";
        }
        if (e.isCharacterDevice() || e.isBlockDevice()) {
            return "device";
        }
        if (e.isFIFO()) {
            return "FIFO";
        }
        return "entry of type " + (char) e.getLinkFlag();
    }

    /** Hashes and counts what passes; remembers whether reading the source failed (a network fault, retried). */
    static final class HashingInputStream extends FilterInputStream {
        private final MessageDigest md;
        long count;
        boolean failedReading;

        HashingInputStream(InputStream in, MessageDigest md) {
            super(in);
            this.md = md;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n;
            try {
                n = in.read(b, off, len);
            } catch (IOException e) {
                failedReading = true;
                throw e;
            }
            if (n > 0) {
                md.update(b, off, n);
                count += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            byte[] b = new byte[(int) Math.min(n, 8192)];
            int r = read(b, 0, b.length);
            return Math.max(r, 0);
        }

        /** No mark/reset: a reader that reset and read again would hash bytes twice (gunzip pushes back this way). */
        @Override
        public boolean markSupported() {
            return false;
        }

        @Override
        public synchronized void mark(int limit) {
        }

        @Override
        public synchronized void reset() throws IOException {
            throw new IOException("mark/reset not supported");
        }

        void drain() throws IOException {
            byte[] b = new byte[64 * 1024];
            while (read(b, 0, b.length) >= 0) {
                // hashing the rest
            }
        }

        @Override
        public void close() {
            // the caller closes the source
        }
    }

    static final class CountingOutputStream extends java.io.FilterOutputStream {
        long count;

        CountingOutputStream(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count += len;
        }
    }
}
