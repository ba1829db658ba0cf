package dev.kiln.core.alert;

import dev.kiln.core.telemetry.KilnEvent;
import java.time.Instant;

/**
 * A firing rule stopped holding.
 *
 * @param at when it was seen resolved
 * @param rule the rule
 * @param firedAt when it had fired
 */
public record AlertResolved(Instant at, AlertRule rule, Instant firedAt) implements KilnEvent {
    @Override
    public String summary() {
        return "alert " + rule.name() + " resolved (firing since " + firedAt + ")";
    }
}
