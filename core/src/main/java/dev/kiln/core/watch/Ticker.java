package dev.kiln.core.watch;

/**
 * A monotonic time source in nanoseconds, injected so pacing logic is tested with a fake clock and no sleeps.
 * Only differences between two readings mean anything.
 */
@FunctionalInterface
public interface Ticker {

    /** Nanoseconds from an arbitrary, fixed origin; never goes backwards. */
    long read();

    /** The JVM's {@link System#nanoTime()}. */
    static Ticker system() {
        return System::nanoTime;
    }
}
