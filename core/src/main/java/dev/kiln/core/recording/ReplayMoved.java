package dev.kiln.core.recording;

import dev.kiln.core.telemetry.KilnEvent;
import java.time.Instant;
import java.util.List;

/**
 * A replay's position moved: by playing or stepping to the next change ({@code jumped} false: every event on the way
 * was published), or by a seek ({@code jumped} true: the pages' state is that of {@code position}; {@code recent}
 * holds the events recorded shortly before it, oldest first, so an event list can show what led there instead of
 * what it showed before the jump).
 *
 * @param at when, by the replay's clock (the position)
 * @param position the replay's position in recorded time
 * @param start the recording's first frame
 * @param end its last whole frame
 * @param playing whether it is playing
 * @param speed the playing speed (1: recorded time)
 */
public record ReplayMoved(Instant at, Instant position, Instant start, Instant end, boolean playing, double speed,
        boolean jumped, List<KilnEvent> recent) implements KilnEvent {

    public ReplayMoved {
        recent = List.copyOf(recent);
    }

    @Override
    public String summary() {
        return "replay " + (jumped ? "moved to " : "at ") + position + (playing ? " (playing at " + speed + "x)" : " (paused)");
    }
}
