package dev.kiln.core.watch;

import dev.kiln.core.telemetry.KilnEvent;
import java.time.Instant;

/**
 * The watch went live or degraded.
 *
 * @param at when
 * @param status the new status
 */
public record WatchChanged(Instant at, WatchStatus status) implements KilnEvent {
    @Override
    public String summary() {
        return "watch " + status;
    }
}
