package dev.kiln.core.serve.client;

import dev.kiln.core.telemetry.KilnEvent;
import java.time.Instant;

/**
 * Following another process's {@code kiln serve} started, was interrupted, or ended because it stopped.
 *
 * @param at when
 * @param following whether its revisions are arriving now
 * @param ended whether the daemon is gone (no process holds the workspace's lock any more)
 * @param text what to tell the user
 */
public record FollowChanged(Instant at, boolean following, boolean ended, String text) implements KilnEvent {
    @Override
    public String summary() {
        return text;
    }
}
