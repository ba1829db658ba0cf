package dev.kiln.core.alert;

import dev.kiln.core.telemetry.KilnEvent;
import java.time.Instant;

/** A rule fired: published once per firing, when it starts (so a notification is raised once, not every tick). */
public record AlertFired(Instant at, Alert alert) implements KilnEvent {
    @Override
    public String summary() {
        return "alert " + alert.rule().name() + " firing: " + alert.rule().summary() + " ("
                + alert.rule().metric() + " = " + AlertRule.number(alert.value()) + ")";
    }
}
