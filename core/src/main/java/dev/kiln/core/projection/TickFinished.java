package dev.kiln.core.projection;

import dev.kiln.core.telemetry.KilnEvent;
import java.time.Instant;

/** Published after every projection tick, changed or not. */
public record TickFinished(Instant at, TickResult result) implements KilnEvent {

    @Override
    public String summary() {
        TickResult r = result;
        return String.format("projection tick (%s): revision %d%s, %d contracts (%d parsed, %d reused), %d failed, %.1f ms%s",
                r.reason().jsonName(), r.revision(), r.changed() ? " changed" : " unchanged", r.stats().enumerated(),
                r.stats().parsed(), r.stats().reused(), r.failures(), r.durationMillis(),
                r.writeError() == null ? "" : "; state.json NOT written: " + r.writeError());
    }
}
