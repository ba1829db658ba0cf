package dev.kiln.core.contract;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Opens a contract file for reading ({@code O_RDONLY|O_NOFOLLOW}) with a bound on how long {@code open(2)} may take.
 *
 * <p>Why: a FIFO renamed over a contract between the caller's {@code lstat} and the open makes {@code open(2)} block
 * until a writer appears, possibly forever, and Java 17 has no {@code O_NONBLOCK} open. Nothing pure-Java closes that
 * window, so the open runs on a small pool of daemon threads and the caller waits at most {@link #TIMEOUT_MILLIS}; a
 * thread still stuck after that is abandoned (it closes what it opens if the open ever returns) and the read is
 * reported as refused. The read itself needs no such guard: the caller reads with positional reads ({@code pread}),
 * which fail at once ({@code ESPIPE}) on a FIFO or socket that did open.
 *
 * <p>Concurrency: any thread may call {@link #open}. At most {@link #MAX_STUCK} threads may be stuck at once; past
 * that an open is refused at once rather than queued behind them (a reported failure, never a hang).
 */
final class BoundedOpen {
    /** How long one open may take before it is given up. A regular file opens in microseconds. */
    static final long TIMEOUT_MILLIS = 2_000;
    static final int MAX_STUCK = 32;

    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final ThreadPoolExecutor OPENERS = new ThreadPoolExecutor(0, MAX_STUCK + 2, 10, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "kiln-contract-open-" + THREADS.incrementAndGet());
                t.setDaemon(true);
                return t;
            });

    private BoundedOpen() {
    }

    /** Thrown when the open did not finish in time, or too many earlier opens are still stuck. */
    static final class Stuck extends IOException {
        private static final long serialVersionUID = 1L;

        Stuck(String message) {
            super(message);
        }
    }

    /** Opens {@code file} for reading, never following a final symlink, waiting at most {@code timeoutMillis}. */
    static FileChannel open(Path file, long timeoutMillis) throws IOException {
        CompletableFuture<FileChannel> opened = new CompletableFuture<>();
        try {
            OPENERS.execute(() -> {
                try {
                    FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
                    if (!opened.complete(ch)) {
                        ch.close(); // the caller gave up on it
                    }
                } catch (Throwable t) {
                    opened.completeExceptionally(t);
                }
            });
        } catch (RejectedExecutionException e) {
            throw new Stuck("not opened: " + MAX_STUCK + " earlier opens of special files are still blocked");
        }
        try {
            return opened.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            if (opened.cancel(false)) {
                throw new Stuck("open did not return within " + timeoutMillis + " ms (a FIFO or device?); given up");
            }
            return join(opened); // finished just now
        } catch (InterruptedException e) {
            if (!opened.cancel(false)) {
                closeQuietly(opened);
            }
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while opening");
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
    }

    private static FileChannel join(CompletableFuture<FileChannel> f) throws IOException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            throw unwrap(e);
        } catch (InterruptedException | CancellationException e) {
            throw new IllegalStateException("a completed future neither blocks nor is cancelled", e);
        }
    }

    private static void closeQuietly(CompletableFuture<FileChannel> f) {
        try {
            f.get().close();
        } catch (Exception ignored) {
            // it failed to open: nothing to close
        }
    }

    private static IOException unwrap(ExecutionException e) {
        Throwable c = e.getCause();
        if (c instanceof IOException io) {
            return io;
        }
        if (c instanceof RuntimeException r) {
            throw r;
        }
        if (c instanceof Error err) {
            throw err;
        }
        return new IOException(c);
    }
}
