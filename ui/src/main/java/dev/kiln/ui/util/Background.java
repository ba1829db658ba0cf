package dev.kiln.ui.util;

import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * Runs work off the FX thread and hands the result back on it. View models take one of these, so their tests
 * run the work inline ({@link #inline()}) and need no window.
 */
public interface Background {

    /**
     * Runs {@code work}; then {@code onResult} or {@code onError} on the UI thread. The handle interrupts the work
     * (for work that ends on interruption, such as a startup probe).
     */
    <T> Cancellable run(Callable<T> work, Consumer<? super T> onResult, Consumer<? super Throwable> onError);

    /** Stops running work; a no-op once it has finished. */
    @FunctionalInterface
    interface Cancellable {
        void cancel();
    }

    /** Runs everything on the calling thread: for tests. */
    static Background inline() {
        return new Background() {
            @Override
            public <T> Cancellable run(Callable<T> work, Consumer<? super T> onResult, Consumer<? super Throwable> onError) {
                T value;
                try {
                    value = work.call();
                } catch (Exception e) {
                    onError.accept(e);
                    return () -> { };
                }
                onResult.accept(value);
                return () -> { };
            }
        };
    }
}
