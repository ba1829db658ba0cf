package dev.kiln.core.projection;

import dev.kiln.core.workspace.AtomicWrite;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes {@code observer/state.json}: a reader sees the new document whole the moment {@link #write} returns, and
 * the document becomes durable (fsync of the file, then of the directory) moments later on a background thread.
 *
 * <p>Why not {@link dev.kiln.core.workspace.AtomicWrite}, which syncs before it renames: the state document is
 * derived, so a power cut can cost at most what the next start re-projects anyway; and at 10,000 leaves the
 * synchronous fsync of its megabytes was most of a one-file tick. Kiln still never shows a reader a mix of two
 * documents (temp file + atomic rename), never leaves a half-written file after a killed process (the bytes are
 * in the page cache before the rename), and {@link #flush} waits for durability where it matters (a CLI run
 * ending, a daemon stopping). User data (contracts) keeps the sync-then-rename write.
 *
 * <p>Replacing a file of megabytes also frees its blocks inside {@code rename}; a hard link to the old version,
 * made just before, moves that cost to the background too.
 *
 * <p><b>Written behind</b> ({@link #writtenBehind}, the daemon's mode): a document larger than a threshold is not
 * written in the tick at all. The tick hands the immutable {@link StateDocument.Segments} over and returns; the
 * process-wide {@code kiln-state-write} thread writes the newest handed-over document to a temp file, syncs it,
 * renames it over state.json and syncs the directory, at most once per {@code spacing}. Documents handed over
 * while one is being written are coalesced: the latest revision wins, the ones in between are never written. The
 * file then trails the in-memory document (what the API serves) by at most one write plus {@code spacing}. A
 * smaller document is written in the tick as above, after dropping any older one still waiting; a sequence number
 * checked under {@code renameLock} keeps an older background write from renaming over a newer document.
 *
 * <p><b>When the file cannot be written</b> (a full disk, a read-only mount, permissions), {@link #failure()} says so,
 * naming the file and the OS's reason ("No space left on device"), from the first failed write until a write of the
 * newest document succeeds; the transitions are logged once each. A written-behind state file (the daemon) never
 * throws for it: a document that failed in the tick is handed to the background writer, which retries about once a
 * second while newer revisions are served from memory. A plain one throws, and the caller's next tick tries again.
 *
 * <p>Either way a reader opens the old or the new document, whole (temp file + atomic rename), and a killed
 * process leaves one of them. Crash leftovers ({@code .state.json.*.tmp} and {@code .state.json.*.old}) are removed on
 * the first write: at once when the pid in their name is of a process that is gone, else when older than a minute.
 *
 * <p>Concurrency: {@link #write} and {@link #flush} are called by the projector (under its monitor); the fsync
 * runs on the process-wide {@code kiln-state-sync} thread, a written-behind document on {@code kiln-state-write}.
 * The fields marked "guarded by this" are shared between them, and {@link #flush} waits on this monitor.
 */
final class StateFile {
    private static final Logger LOG = LoggerFactory.getLogger(StateFile.class);
    private static final Duration LEFTOVER_AGE = Duration.ofMinutes(1);
    /** How soon a failed write of the newest document is tried again (unless a newer one comes first). */
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** One thread for every state file of the process: syncs are short and rare (at most one per tick). */
    private static final ExecutorService SYNC = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "kiln-state-sync");
        t.setDaemon(true);
        return t;
    });

    /** One thread for every written-behind state file of the process: latest document first, one at a time. */
    private static final ExecutorService WRITE = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "kiln-state-write");
        t.setDaemon(true);
        return t;
    });

    private final Path target;
    private final Path dir;
    private final String name;
    /** Documents above this size are written behind the tick; {@code Long.MAX_VALUE}: never. */
    private final long behindAbove;
    private final long spacingNanos;
    private volatile boolean cleaned;
    /** Serializes renames into place, so the newest document always wins. */
    private final Object renameLock = new Object();
    // guarded by renameLock
    private long renamedSeq;
    // guarded by this (the written-behind state)
    private long submittedSeq;
    private StateDocument.@Nullable Segments pending;
    private long pendingSeq;
    private boolean writerScheduled;
    private long lastBehindStart = Long.MIN_VALUE / 2;
    /** Why the file trails the newest document, or null; set by a failed write, cleared by a later one succeeding. */
    private @Nullable String failure;
    private long failureSeq;
    /** Set by a flush that gave the unwritable document up: a write failing meanwhile does not queue it again. */
    private boolean givenUp;
    private long behindWrites;
    private long behindNanos;

    // guarded by this
    private @Nullable FileChannel unsynced;
    private final List<Path> oldVersions = new ArrayList<>();
    private boolean syncScheduled;
    private @Nullable IOException syncFailure;
    private long syncs;
    private long syncNanos;

    /** A state file written in the tick (fsync behind it). */
    StateFile(Path target) {
        this(target, Long.MAX_VALUE, Duration.ZERO);
    }

    private StateFile(Path target, long behindAbove, Duration spacing) {
        this.target = target.toAbsolutePath();
        Path parent = this.target.getParent();
        if (parent == null) {
            throw new IllegalArgumentException("a state file lives in a directory, not at the root: " + this.target);
        }
        this.dir = parent;
        this.name = this.target.getFileName().toString();
        this.behindAbove = behindAbove;
        this.spacingNanos = spacing.toNanos();
    }

    /**
     * A state file whose documents larger than {@code aboveBytes} are written behind the tick, coalesced, at most
     * one write per {@code spacing} (see the class comment).
     */
    static StateFile writtenBehind(Path target, long aboveBytes, Duration spacing) {
        if (aboveBytes < 0 || spacing.isNegative()) {
            throw new IllegalArgumentException("threshold and spacing must not be negative, got " + aboveBytes + ", " + spacing);
        }
        return new StateFile(target, aboveBytes, spacing);
    }

    /**
     * Replaces the file with {@code bytes}; readers see them when this returns. Throws (and leaves the old
     * document in place) when the bytes cannot be written or renamed into place.
     */
    void write(byte[] bytes) throws IOException {
        write(StateDocument.Segments.of(bytes));
    }

    /**
     * Replaces the file with {@code doc}: at once (readers see it when this returns), or — above the written-behind
     * threshold — by handing it to the background writer, which returns at once. When a document written at once
     * cannot be written or renamed into place, the old document stays and {@link #failure()} says why; a plain state
     * file then throws, a written-behind one hands the document to the background writer to retry and returns false.
     *
     * @return whether the document is in place when this returns
     */
    boolean write(StateDocument.Segments doc) throws IOException {
        long seq;
        synchronized (this) {
            seq = ++submittedSeq;
            givenUp = false; // a new document after a flush: this one is retried again if need be
            if (doc.length() > behindAbove) {
                pending = doc;
                pendingSeq = seq;
                if (!writerScheduled) {
                    writerScheduled = true;
                    WRITE.execute(this::writeBehind);
                }
                return false;
            }
            pending = null; // older than this one: never to be written now
        }
        try {
            writeNow(doc, seq);
        } catch (IOException | RuntimeException e) {
            String why = cannotWrite(e);
            synchronized (this) {
                failed(why, seq);
                if (behindAbove == Long.MAX_VALUE) {
                    if (e instanceof RuntimeException r) {
                        throw r;
                    }
                    throw new IOException(why, e);
                }
                // the daemon's mode: the revision is served from memory, and the background writer retries it
                if (pending == null) {
                    pending = doc;
                    pendingSeq = seq;
                }
                lastBehindStart = System.nanoTime() + Math.max(0, RETRY_NANOS - spacingNanos);
                if (!writerScheduled) {
                    writerScheduled = true;
                    WRITE.execute(this::writeBehind);
                }
            }
            return false;
        }
        synchronized (this) {
            succeeded(seq);
        }
        return true;
    }

    /** The write in the tick: temp file, rename over the target; the fsync follows on the sync thread. */
    private void writeNow(StateDocument.Segments doc, long seq) throws IOException {
        prepareDirectory();
        Set<PosixFilePermission> mode = AtomicWrite.existingMode(target);
        Path tmp = dir.resolve(sibling("tmp"));
        Path old = null;
        FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            writeAll(ch, doc);
            if (mode != null) {
                Files.setPosixFilePermissions(tmp, mode);
            }
            synchronized (renameLock) {
                old = linkOldVersion();
                try {
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    throw new IOException("cannot replace " + target + " atomically on this file system", e);
                }
                renamedSeq = seq;
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            Files.deleteIfExists(tmp);
            if (old != null) {
                Files.deleteIfExists(old);
            }
            throw e;
        }
        schedule(ch, old);
    }

    /** "cannot write /w/observer/state.json: No space left on device": the file, and the OS's reason without a class name. */
    private String cannotWrite(Exception e) {
        String reason = e instanceof FileSystemException f && f.getReason() != null ? f.getReason() : e.getMessage();
        if (reason == null || reason.isBlank()) {
            reason = e.getClass().getSimpleName();
        }
        return reason.contains(target.toString()) ? reason : "cannot write " + target + ": " + reason;
    }

    // guarded by this
    private void failed(String why, long seq) {
        if (failure == null) {
            LOG.error("{}. {}", why, behindAbove == Long.MAX_VALUE ? "The file keeps the last document written; the next tick tries again."
                    : "The API serves the projection from memory; the file keeps the last document written and is retried"
                            + " about once a second.");
        }
        failure = why;
        failureSeq = Math.max(failureSeq, seq);
    }

    // guarded by this
    private void succeeded(long seq) {
        if (failure != null && seq >= failureSeq) {
            LOG.info("{} is written again (document {} of this process)", target, seq);
            failure = null;
        }
    }

    private void prepareDirectory() throws IOException {
        try {
            Files.createDirectories(dir);
        } catch (FileAlreadyExistsException e) {
            throw new IOException(dir + " exists and is not a directory; cannot write " + name + " into it", e);
        }
        if (!cleaned) {
            cleaned = true;
            removeLeftovers();
        }
    }

    private static void writeAll(FileChannel ch, StateDocument.Segments doc) throws IOException {
        ByteBuffer[] bufs = doc.buffers();
        long left = doc.length();
        while (left > 0) {
            left -= ch.write(bufs);
        }
    }

    /** The background writer: the newest pending document, written whole, synced, renamed; then the next. */
    private void writeBehind() {
        while (true) {
            StateDocument.Segments doc;
            long seq;
            synchronized (this) {
                if (pending == null) {
                    writerScheduled = false;
                    notifyAll();
                    return;
                }
                long wait = lastBehindStart + spacingNanos - System.nanoTime();
                if (wait > 0) {
                    try {
                        TimeUnit.NANOSECONDS.timedWait(this, wait); // more revisions may arrive: the latest wins
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        writerScheduled = false;
                        notifyAll();
                        return;
                    }
                    continue;
                }
                doc = pending;
                seq = pendingSeq;
                pending = null;
                lastBehindStart = System.nanoTime();
            }
            long t0 = System.nanoTime();
            String why = null;
            try {
                writeDurably(doc, seq);
            } catch (IOException | RuntimeException e) {
                why = cannotWrite(e);
            }
            synchronized (this) {
                behindWrites++;
                behindNanos += System.nanoTime() - t0;
                if (why != null) {
                    failed(why, seq);
                    if (pending == null && !givenUp) {
                        pending = doc; // retried after the spacing (at least a second) unless a newer one comes
                        pendingSeq = seq;
                        lastBehindStart = System.nanoTime() + Math.max(0, RETRY_NANOS - spacingNanos);
                    }
                } else {
                    succeeded(seq);
                }
                notifyAll();
            }
        }
    }

    /** Temp file, fsync, rename (unless a newer document is already in place), fsync of the directory. */
    private void writeDurably(StateDocument.Segments doc, long seq) throws IOException {
        prepareDirectory();
        Set<PosixFilePermission> mode = AtomicWrite.existingMode(target);
        Path tmp = dir.resolve(sibling("tmp"));
        boolean renamed = false;
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            writeAll(ch, doc);
            if (mode != null) {
                Files.setPosixFilePermissions(tmp, mode);
            }
            ch.force(true); // off the tick, so durable before it is visible
            synchronized (renameLock) {
                if (seq > renamedSeq) {
                    try {
                        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    } catch (AtomicMoveNotSupportedException e) {
                        throw new IOException("cannot replace " + target + " atomically on this file system", e);
                    }
                    renamedSeq = seq;
                    renamed = true;
                }
            }
        } finally {
            if (!renamed) {
                Files.deleteIfExists(tmp);
            }
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException | RuntimeException e) {
            // not every platform can open a directory; the rename itself is atomic either way
        }
    }

    /**
     * Why the file trails the newest document ("cannot write …/state.json: No space left on device"), or null when
     * the last write succeeded.
     */
    synchronized @Nullable String failure() {
        return failure;
    }

    /** Documents written behind the tick so far, and their total time (write + fsync + rename). */
    synchronized long behindWrites() {
        return behindWrites;
    }

    synchronized long behindNanos() {
        return behindNanos;
    }

    /**
     * Waits until everything written so far is durable. When the newest document cannot be written, it is given up
     * (no retry follows) and this throws saying why.
     *
     * @throws IOException when the last background sync failed (the document is in place, but a power cut could
     *     lose it)
     */
    void flush() throws IOException {
        synchronized (this) {
            try {
                while (syncScheduled || (writerScheduled && failure == null)) {
                    wait();
                }
                if (failure != null) {
                    // A flush ends a run (a daemon stopping, a CLI run ending): a document that cannot be written is
                    // given up, never retried later, behind the back of whoever owns the workspace next.
                    pending = null;
                    givenUp = true;
                    throw new IOException(failure);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for " + target + " to be synced");
            }
            if (syncFailure != null) {
                IOException f = syncFailure;
                syncFailure = null;
                throw new IOException("could not make " + target + " durable: " + f.getMessage(), f);
            }
        }
    }

    /** Background syncs run so far and their total time: what the tick no longer waits for. */
    synchronized long syncs() {
        return syncs;
    }

    synchronized long syncNanos() {
        return syncNanos;
    }

    private synchronized void schedule(FileChannel written, @Nullable Path old) {
        if (unsynced != null) {
            closeQuietly(unsynced); // superseded before it was synced: only the newest document needs to be durable
        }
        unsynced = written;
        if (old != null) {
            oldVersions.add(old);
        }
        if (!syncScheduled) {
            syncScheduled = true;
            SYNC.execute(this::sync);
        }
    }

    private void sync() {
        while (true) {
            FileChannel ch;
            List<Path> olds;
            synchronized (this) {
                ch = unsynced;
                if (ch == null) {
                    syncScheduled = false;
                    notifyAll();
                    return;
                }
                unsynced = null;
                olds = List.copyOf(oldVersions);
                oldVersions.clear();
            }
            long t0 = System.nanoTime();
            IOException failure = null;
            try {
                ch.force(true);
            } catch (IOException e) {
                failure = e;
            } finally {
                closeQuietly(ch);
            }
            for (Path o : olds) {
                try {
                    Files.deleteIfExists(o);
                } catch (IOException e) {
                    LOG.warn("Could not remove the replaced state document {}: {}", o, e.getMessage());
                }
            }
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true); // makes the rename durable
            } catch (IOException | RuntimeException e) {
                // not every platform can open a directory; the rename itself is atomic either way
            }
            synchronized (this) {
                syncs++;
                syncNanos += System.nanoTime() - t0;
                if (failure != null) {
                    if (syncFailure == null) {
                        LOG.error("Could not sync {} to disk: {}. Readers see it, but a power cut could lose it; "
                                + "the next start re-projects.", target, failure.getMessage());
                    }
                    syncFailure = failure;
                }
            }
        }
    }

    /** A hard link to the current document, so the rename over it does not free its blocks; null if none. */
    private @Nullable Path linkOldVersion() {
        Path old = dir.resolve(sibling("old"));
        try {
            Files.createLink(old, target);
            return old;
        } catch (NoSuchFileException e) {
            return null; // the first document
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null; // no hard links here: the rename frees the old blocks itself, which is only slower
        }
    }

    /** {@code .<name>.<pid>-<random>.<kind>}: the pid tells a dead writer's leftovers from a live one's. */
    private String sibling(String kind) {
        return "." + name + "." + ProcessHandle.current().pid() + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong())
                + "." + kind;
    }

    /** Whether the leftover {@code n} names a writer process that is gone (false when it names none, or a live one). */
    private boolean ofDeadProcess(String n) {
        String rest = n.substring(name.length() + 2);
        int dash = rest.indexOf('-');
        if (dash <= 0 || !rest.substring(0, dash).matches("\\d{1,18}")) {
            return false; // an older name without a pid: only its age can tell
        }
        long pid = Long.parseLong(rest.substring(0, dash));
        return pid != ProcessHandle.current().pid() && !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /**
     * Temp files and old versions a killed process left: at once when their writer's process is gone (a restart
     * within the minute), else once older than a minute (they may belong to another live writer). An old
     * version is a hard link to the previous document, so its mtime is that document's, not the crash's.
     */
    private void removeLeftovers() {
        Instant cutoff = Instant.now().minus(LEFTOVER_AGE);
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "." + name + ".*")) {
            for (Path p : s) {
                String n = p.getFileName().toString();
                if (!n.endsWith(".tmp") && !n.endsWith(".old")) {
                    continue;
                }
                try {
                    FileTime m = Files.getLastModifiedTime(p);
                    if (ofDeadProcess(n) || m.toInstant().isBefore(cutoff)) {
                        Files.deleteIfExists(p);
                    }
                } catch (IOException e) {
                    // vanished or unreadable: not ours to worry about
                }
            }
        } catch (IOException e) {
            LOG.debug("Could not look for leftovers in {}: {}", dir, e.getMessage());
        }
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // nothing was pending on it that matters now
        }
    }
}
