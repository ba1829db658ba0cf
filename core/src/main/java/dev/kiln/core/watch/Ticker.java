package dev.kiln.core.watch;

/**
 * The watch package's former ticker, kept only so that code written against it still compiles.
 *
 * @deprecated use {@link dev.kiln.core.telemetry.Ticker}; pending merge: {@code ProjectionLoop} and the daemon
 *     still take this type, and it goes once they take the telemetry ticker.
 */
@Deprecated(forRemoval = true)
@FunctionalInterface
public interface Ticker extends dev.kiln.core.telemetry.Ticker {

    /** The JVM's {@link System#nanoTime()}. */
    static Ticker system() {
        return System::nanoTime;
    }
}
