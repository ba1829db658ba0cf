package dev.kiln.core.startup;

/** A monotonic nanosecond source, injected so timing logic can be tested without waiting. */
@FunctionalInterface
public interface Ticker {

    /** Nanoseconds since an arbitrary origin; only differences mean anything. */
    long read();

    /** {@link System#nanoTime()}. */
    static Ticker system() {
        return System::nanoTime;
    }
}
