package dev.kiln.core.seed;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One warm of a target at a time. A file lock keeps other processes out; it is held per JVM, not per thread, so
 * an in-process lock per lock file keeps this process's other threads out too.
 *
 * <p>Concurrency: the file lock serializes processes; {@code LOCAL} (one {@link ReentrantLock} per lock file,
 * process-wide) serializes this process's threads, since {@link FileLock} is per JVM. A lock is taken and released
 * on the same thread (try-with-resources).
 */
final class TargetLock implements AutoCloseable {
    private static final ConcurrentHashMap<Path, ReentrantLock> LOCAL = new ConcurrentHashMap<>();
    private static final long POLL_MILLIS = 100;

    private final ReentrantLock local;
    private final FileChannel channel;
    private final FileLock fileLock;

    private TargetLock(ReentrantLock local, FileChannel channel, FileLock fileLock) {
        this.local = local;
        this.channel = channel;
        this.fileLock = fileLock;
    }

    /** Waits for the lock; empty when {@code cancel} fires first. */
    static Optional<TargetLock> acquire(Path lockFile, Cancellation cancel) throws IOException, InterruptedException {
        ReentrantLock local = LOCAL.computeIfAbsent(lockFile.toAbsolutePath().normalize(), p -> new ReentrantLock());
        while (!local.tryLock(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
            if (cancel.isCancelled()) {
                return Optional.empty();
            }
        }
        FileChannel ch = null;
        try {
            ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock fl;
            while ((fl = ch.tryLock()) == null) {
                if (cancel.isCancelled()) {
                    ch.close();
                    local.unlock();
                    return Optional.empty();
                }
                Thread.sleep(POLL_MILLIS);
            }
            return Optional.of(new TargetLock(local, ch, fl));
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (ch != null) {
                ch.close();
            }
            local.unlock();
            throw e;
        }
    }

    /** Takes the lock only if nobody holds it now; empty otherwise. */
    static Optional<TargetLock> tryAcquire(Path lockFile) throws IOException {
        ReentrantLock local = LOCAL.computeIfAbsent(lockFile.toAbsolutePath().normalize(), p -> new ReentrantLock());
        if (!local.tryLock()) {
            return Optional.empty();
        }
        FileChannel ch = null;
        try {
            ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock fl = ch.tryLock();
            if (fl == null) {
                ch.close();
                local.unlock();
                return Optional.empty();
            }
            return Optional.of(new TargetLock(local, ch, fl));
        } catch (IOException | RuntimeException e) {
            if (ch != null) {
                ch.close();
            }
            local.unlock();
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            fileLock.release();
            channel.close();
        } finally {
            local.unlock();
        }
    }
}
