package dev.kiln.core.telemetry;

import java.time.Instant;

/**
 * A typed event published by a core capability (tick finished, cache hit, warm progress, probe step…).
 *
 * <p>Each capability declares its own small records implementing this interface, so the console can
 * switch on the type it cares about and ignore the rest.
 */
public interface KilnEvent {

    /** When the event happened, from the publisher's injected clock. */
    Instant at();

    /** A one-line, human-readable summary for logs and the console's event list. */
    String summary();
}
