package dev.kiln.ui;

import dev.kiln.ui.util.Background;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A {@link Background} whose work runs on its own threads, as in the console, and whose results wait in a queue
 * until the test thread — standing in for the FX thread — {@link #runUntil runs them}. Lets a test act between
 * starting work and seeing its result (a cancel), with no window.
 */
public final class QueueBackground implements Background, AutoCloseable {
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "test-bg");
        t.setDaemon(true);
        return t;
    });
    private final LinkedBlockingQueue<Runnable> ui = new LinkedBlockingQueue<>();

    @Override
    public <T> Cancellable run(Callable<T> work, Consumer<? super T> onResult, Consumer<? super Throwable> onError) {
        java.util.concurrent.Future<?> f = pool.submit(() -> {
            try {
                T v = work.call();
                ui.add(() -> onResult.accept(v));
            } catch (Throwable e) {
                ui.add(() -> onError.accept(e));
            }
        });
        return () -> f.cancel(true);
    }

    /**
     * Runs queued results on this thread until {@code done} holds; fails after {@code limit} (a guard against a
     * hang, not a timing assertion).
     */
    public void runUntil(BooleanSupplier done, Duration limit) throws InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        while (!done.getAsBoolean()) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("still not done after " + limit);
            }
            Runnable r = ui.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)), TimeUnit.NANOSECONDS);
            if (r != null) {
                r.run();
            }
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
