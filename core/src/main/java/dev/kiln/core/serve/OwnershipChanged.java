package dev.kiln.core.serve;

import dev.kiln.core.telemetry.KilnEvent;
import java.time.Instant;

/**
 * {@link WorkspaceOwnership} changed mode: this process owns the workspace now, follows another's
 * {@code kiln serve}, found it gone ({@link WorkspaceOwnership.Mode#VACANT}: take it over), or settled without a watch.
 *
 * @param at when
 * @param from the mode before
 * @param state the state now
 */
public record OwnershipChanged(Instant at, WorkspaceOwnership.Mode from, WorkspaceOwnership.State state) implements KilnEvent {
    /** The mode now. */
    public WorkspaceOwnership.Mode mode() {
        return state.mode();
    }

    @Override
    public String summary() {
        return "workspace " + from.name().toLowerCase(java.util.Locale.ROOT) + " → "
                + state.mode().name().toLowerCase(java.util.Locale.ROOT) + ": " + state.text();
    }
}
