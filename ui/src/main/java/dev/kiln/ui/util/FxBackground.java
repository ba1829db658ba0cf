package dev.kiln.ui.util;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javafx.application.Platform;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one place where background results hop onto the FX thread. Daemon threads: closing the window ends them. */
public final class FxBackground implements Background, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FxBackground.class);
    private final AtomicInteger counter = new AtomicInteger();
    // Cached: a long probe or warm must not hold up a quick projection behind it.
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "kiln-ui-bg-" + counter.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    @Override
    public <T> Cancellable run(Callable<T> work, Consumer<? super T> onResult, Consumer<? super Throwable> onError) {
        java.util.concurrent.Future<?> f = pool.submit(() -> {
            try {
                T value = work.call();
                Platform.runLater(() -> onResult.accept(value));
            } catch (Throwable e) {
                LOG.warn("Background work failed", e);
                Platform.runLater(() -> onError.accept(e));
            }
        });
        return () -> f.cancel(true);
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
