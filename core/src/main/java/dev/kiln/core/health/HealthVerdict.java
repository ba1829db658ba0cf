package dev.kiln.core.health;

import java.util.List;
import java.util.Objects;

/**
 * A health verdict (an immutable value): the worst of its reasons' states, {@link HealthState#HEALTHY} when there is
 * none.
 *
 * @param state the verdict
 * @param reasons every reason, worst first (in the order of {@link HealthRules}' table within one state)
 */
public record HealthVerdict(HealthState state, List<HealthReason> reasons) {
    public HealthVerdict {
        Objects.requireNonNull(state, "state");
        reasons = List.copyOf(reasons);
        HealthState worst = reasons.stream().map(HealthReason::state).reduce(HealthState.HEALTHY, HealthState::worst);
        if (worst != state) {
            throw new IllegalArgumentException("a verdict is the worst of its reasons: " + worst + ", not " + state);
        }
    }

    /** The verdict of these reasons, sorted worst first (stable within one state). */
    public static HealthVerdict of(List<HealthReason> reasons) {
        List<HealthReason> sorted = reasons.stream()
                .sorted(java.util.Comparator.comparing(HealthReason::state).reversed()).toList();
        return new HealthVerdict(sorted.stream().map(HealthReason::state).reduce(HealthState.HEALTHY, HealthState::worst),
                sorted);
    }

    /** No reason: healthy. */
    public static HealthVerdict healthy() {
        return new HealthVerdict(HealthState.HEALTHY, List.of());
    }

    /** What a client judges a daemon it cannot ask: failing, reason {@code unreachable} with why. */
    public static HealthVerdict unreachable(String why) {
        return of(List.of(new HealthReason(HealthRules.UNREACHABLE, HealthState.FAILING, why)));
    }

    /** Whether a reason of this code is among the reasons. */
    public boolean has(String code) {
        return reasons.stream().anyMatch(r -> r.code().equals(code));
    }

    /** The first reason's message, or {@code "healthy"}: one line for a card or a row. */
    public String headline() {
        return reasons.isEmpty() ? "healthy" : reasons.get(0).message()
                + (reasons.size() > 1 ? " (+" + (reasons.size() - 1) + " more)" : "");
    }
}
