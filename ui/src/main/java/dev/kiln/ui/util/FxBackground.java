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
    private final ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "kiln-ui-bg-" + counter.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    @Override
    public <T> void run(Callable<T> work, Consumer<? super T> onResult, Consumer<? super Throwable> onError) {
        pool.execute(() -> {
            try {
                T value = work.call();
                Platform.runLater(() -> onResult.accept(value));
            } catch (Throwable e) {
                LOG.warn("Background work failed", e);
                Platform.runLater(() -> onError.accept(e));
            }
        });
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
