package dev.kiln.core.health;

import java.util.Objects;

/**
 * One reason of a verdict (an immutable value).
 *
 * @param code what it is, lower_snake ({@code contract_failures}, {@code unreachable}…: {@link HealthRules}' table)
 * @param state the state this reason makes
 * @param message one line for an operator: what, where, and what to do when it says
 */
public record HealthReason(String code, HealthState state, String message) {
    public HealthReason {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(message, "message");
        if (!code.matches("[a-z][a-z0-9_]*")) {
            throw new IllegalArgumentException("a reason code is lower_snake: " + code);
        }
    }
}
