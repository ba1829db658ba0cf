package dev.kiln.core.telemetry;

/**
 * Kiln's one monotonic time source in nanoseconds, injected wherever an engine measures or paces time, so that
 * logic is tested with a fake ticker and no sleeps. Only differences between two readings mean anything.
 *
 * <p>Concurrency: implementations must be safe to read from any thread; {@link #systemTicker()} is.
 */
@FunctionalInterface
public interface Ticker {

    /** Nanoseconds from an arbitrary, fixed origin; never goes backwards. */
    long read();

    /** The JVM's {@link System#nanoTime()}. */
    static Ticker systemTicker() {
        return System::nanoTime;
    }
}
