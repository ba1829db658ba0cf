package dev.kiln.core.alert;

import java.time.Instant;

/**
 * A rule that is active now (an immutable value).
 *
 * @param rule the rule
 * @param firing whether it fires (else pending: active for less than its duration)
 * @param since when it became active (pending) or when it fired (firing)
 * @param value the value that made it active, at the last evaluation
 */
public record Alert(AlertRule rule, boolean firing, Instant since, double value) {
}
