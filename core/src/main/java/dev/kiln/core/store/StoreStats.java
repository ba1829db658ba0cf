package dev.kiln.core.store;

/**
 * The store's counters since this process started, as an immutable value (for {@code /metrics} and the console).
 *
 * @param pushes pushes that wrote an object
 * @param pushesSkipped pushes that found the key already stored
 * @param pulls pulls that installed an object
 * @param bytesSent object bytes uploaded
 * @param bytesReceived object bytes downloaded
 * @param failures pushes and pulls that failed
 */
public record StoreStats(long pushes, long pushesSkipped, long pulls, long bytesSent, long bytesReceived, long failures) {
    public static final StoreStats EMPTY = new StoreStats(0, 0, 0, 0, 0, 0);
}
