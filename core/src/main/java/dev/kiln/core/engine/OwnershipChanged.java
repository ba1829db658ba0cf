package dev.kiln.core.engine;

import dev.kiln.core.telemetry.KilnEvent;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * Who writes the workspace changed, as this process sees it (published by the daemon package's
 * {@code WorkspaceOwnership}): it owns the workspace now, follows another's {@code kiln serve}, found it gone
 * ({@link Mode#VACANT}: take it over), or settled without a watch. A console reads it here, beside the engine, so that
 * it never depends on the daemon.
 *
 * @param at when
 * @param from the mode before
 * @param mode the mode now
 * @param text what to tell the user (the watch line)
 * @param apiUrl where the owning daemon's API listens (this process's or the followed one), or empty
 */
public record OwnershipChanged(Instant at, Mode from, Mode mode, String text, String apiUrl) implements KilnEvent {
    /** Who writes the workspace, from this process's point of view. */
    public enum Mode {
        /** Not started: nothing runs; the own projector answers reads. */
        IDLE,
        /** This process's daemon owns the workspace. */
        OWN,
        /** Another process's {@code kiln serve} owns it; this process follows its revisions read-only. */
        FOLLOW,
        /** The followed daemon stopped; nobody owns the workspace until this process takes it over. */
        VACANT,
        /** No watch: ticks run when asked (read-only when another process owns the workspace). */
        UNWATCHED,
        /** Closed: nothing runs any more. */
        CLOSED
    }

    public OwnershipChanged {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(apiUrl, "apiUrl");
    }

    @Override
    public String summary() {
        return "workspace " + from.name().toLowerCase(Locale.ROOT) + " → " + mode.name().toLowerCase(Locale.ROOT) + ": " + text;
    }
}
