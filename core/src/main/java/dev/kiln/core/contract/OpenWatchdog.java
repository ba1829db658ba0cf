package dev.kiln.core.contract;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens contract files for reading ({@code O_RDONLY|O_NOFOLLOW}) on the calling thread, and releases an open that has
 * not returned within a bound ({@link #releaseAfter()}), so that no thread stays blocked.
 *
 * <p>Why: the caller {@code lstat}s first, but a FIFO renamed over the file between that {@code lstat} and the open
 * makes {@code open(2)} wait for a writer, possibly forever, and Java 17 cannot open with {@code O_NONBLOCK}. An
 * earlier design opened every file on a small pool and abandoned a stuck open: a thread hand-off per file (the cold
 * tick ×4), and a thread whose FIFO was renamed away stayed blocked for good, so a workspace writer could fill the
 * pool and make every later open fail, blamed on whichever file came next.
 *
 * <p>How a blocked open is released (Linux), every {@link #releaseAfter()} until it returns:
 * <ol>
 *   <li>if the path is a FIFO now, the watchdog opens it read-write and closes it: that never blocks on Linux, and a
 *       reader waiting on that FIFO returns. Its first {@code pread} then fails ({@code ESPIPE}), and the caller
 *       refuses it as not a regular file;
 *   <li>the blocked thread gets a {@code SIGPIPE} ({@code kill(2)} on its thread id, which the kernel delivers to that
 *       thread; Java has no call for it, so {@code /bin/sh}'s {@code kill} sends it). The JVM ignores SIGPIPE and the
 *       kernel restarts the interrupted open, which resolves the path again: a FIFO renamed away, which no open can
 *       reach any more, no longer holds it.
 * </ol>
 * A regular file opens in microseconds; only a swapped-in FIFO (or a very slow file system, whose open a signal merely
 * restarts) meets the bound.
 *
 * <p>Concurrency: any thread may call {@link #open}. Each thread announces its open in progress in a slot of its own
 * (written only by that thread, read by the watchdog through volatile fields); the single daemon watchdog thread
 * ({@code kiln-open-watchdog}) scans the slots while opens happen and parks while none do.
 */
final class OpenWatchdog {
    private static final Logger LOG = LoggerFactory.getLogger(OpenWatchdog.class);
    /** A regular file opens in microseconds; this leaves a loaded machine's slow open alone. */
    static final Duration RELEASE_AFTER = Duration.ofMillis(500);
    private static final OpenWatchdog SHARED = new OpenWatchdog(RELEASE_AFTER);

    /** One per thread that ever opened a contract; the watchdog drops a slot when its thread has ended. */
    private final ConcurrentLinkedQueue<Slot> slots = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<Slot> mine = ThreadLocal.withInitial(this::newSlot);
    private volatile long releaseAfterNanos;
    /** Set while the watchdog parks with no open in sight; an open that sees it unparks the watchdog. */
    private volatile boolean idle = true;
    private volatile @Nullable Thread watchdog;
    private boolean warned; // guarded by the watchdog thread (only it touches it)

    private OpenWatchdog(Duration releaseAfter) {
        releaseAfter(releaseAfter);
    }

    /** The process's watchdog, which {@link ContractStore#readBounded} opens through. */
    static OpenWatchdog shared() {
        return SHARED;
    }

    Duration releaseAfter() {
        return Duration.ofNanos(releaseAfterNanos);
    }

    /** How long an open may take before it is released (tests shorten it). */
    void releaseAfter(Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("the release bound must be positive, got " + d);
        }
        releaseAfterNanos = d.toNanos();
        Thread w = watchdog;
        if (w != null) {
            LockSupport.unpark(w); // a round parked for the old bound looks again now
        }
    }

    /** Where one thread announces its open in progress. */
    private static final class Slot {
        final Thread thread;
        /** The thread's id in the kernel (for the signal), or -1 when this system does not say. */
        final long tid;
        // written only by the slot's thread; startedNanos and opens are published by the volatile write of path
        long startedNanos;
        long opens;
        volatile @Nullable Path path;
        // the watchdog's own
        long seenOpens = -1;
        long lastReleaseNanos;

        Slot(Thread thread, long tid) {
            this.thread = thread;
            this.tid = tid;
        }
    }

    private Slot newSlot() {
        Slot s = new Slot(Thread.currentThread(), ownTid());
        slots.add(s);
        return s;
    }

    /** {@code /proc/thread-self} links to {@code <pid>/task/<tid>}. */
    private static long ownTid() {
        try {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Opens {@code file} for reading, never through a final symlink; returns once open, however it was released. */
    FileChannel open(Path file) throws IOException {
        Slot s = mine.get();
        s.startedNanos = System.nanoTime();
        s.opens++;
        s.path = file;
        if (idle) {
            wake();
        }
        try {
            return FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        } finally {
            s.path = null;
        }
    }

    private void wake() {
        Thread w = watchdog;
        if (w == null) {
            synchronized (this) {
                w = watchdog;
                if (w == null) {
                    w = new Thread(this::watch, "kiln-open-watchdog");
                    w.setDaemon(true);
                    idle = false; // awake from now on: opens do not unpark it, each would wake it for nothing
                    watchdog = w;
                    w.start();
                    return;
                }
            }
        }
        LockSupport.unpark(w);
    }

    /** The watchdog: scans the slots every half bound while opens happen; parks once a whole round saw none begin. */
    private void watch() {
        long lastTotal = -1;
        while (true) {
            long now = System.nanoTime();
            long bound = releaseAfterNanos;
            boolean busy = false;
            long total = 0;
            for (Slot s : slots) {
                if (!s.thread.isAlive()) {
                    slots.remove(s);
                    continue;
                }
                Path p = s.path;
                total += s.opens;
                if (p == null) {
                    continue;
                }
                busy = true;
                if (s.opens != s.seenOpens) {
                    s.seenOpens = s.opens; // a new open: its clock starts now for the release rounds
                    s.lastReleaseNanos = s.startedNanos;
                }
                if (now - s.lastReleaseNanos >= bound && s.path == p && s.opens == s.seenOpens) {
                    s.lastReleaseNanos = now;
                    try {
                        release(s, p, now - s.startedNanos);
                    } catch (RuntimeException e) {
                        // the watchdog must outlive any one round: the next one tries again
                        LOG.error("Releasing the open of {} failed: {}", p, e.toString());
                    }
                }
            }
            if (!busy && total == lastTotal) {
                idle = true;
                if (!anyBusy()) { // an open that began after the scan saw idle == false, or will unpark us
                    LockSupport.park(this);
                }
                idle = false;
                lastTotal = -1;
            } else {
                lastTotal = total;
                LockSupport.parkNanos(this, Math.max(TimeUnit.MILLISECONDS.toNanos(5), bound / 2));
            }
        }
    }

    private boolean anyBusy() {
        for (Slot s : slots) {
            if (s.path != null) {
                return true;
            }
        }
        return false;
    }

    /** One release round for the open of {@code file} by {@code s}'s thread (see the class comment). */
    private void release(Slot s, Path file, long blockedNanos) {
        LOG.debug("The open of {} has not returned after {} ms; releasing it", file, blockedNanos / 1_000_000);
        try {
            Object mode = Files.getAttribute(file, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            if (mode instanceof Integer m && (m & 0170000) == 0010000) { // S_IFIFO
                try (FileChannel w = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                        LinkOption.NOFOLLOW_LINKS)) {
                    // opened read-write: a FIFO's waiting reader returns; nothing is written
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone or swapped again: the signal below makes the open look again
        }
        for (int i = 0; i < 20 && s.path == file; i++) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // a released reader returns within moments
        }
        if (s.path != file) {
            return; // it returned: no signal needed
        }
        if (s.tid < 0) {
            warnOnce(file, "this system gives no thread id to signal");
            return;
        }
        try {
            // only while the thread is still ours: a thread id is never signalled once it could name another process
            Process k = new ProcessBuilder("/bin/sh", "-c", "[ -d \"/proc/$1/task/$2\" ] && kill -s PIPE \"$2\"",
                    "kiln-open-release", Long.toString(ProcessHandle.current().pid()), Long.toString(s.tid))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!k.waitFor(5, TimeUnit.SECONDS)) {
                k.destroyForcibly();
            }
        } catch (IOException e) {
            warnOnce(file, "cannot run /bin/sh to signal it: " + e.getMessage());
        } catch (InterruptedException e) {
            // nobody interrupts the watchdog; the next round signals again if need be
        }
    }

    private void warnOnce(Path file, String why) {
        if (!warned) {
            warned = true;
            LOG.warn("The open of {} is blocked (a FIFO swapped in?) and only a writer can release it: {}", file, why);
        }
    }
}
