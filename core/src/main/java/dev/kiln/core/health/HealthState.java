package dev.kiln.core.health;

import java.util.Locale;

/** How a daemon is, worst last: the verdict is the worst of its reasons' states. */
public enum HealthState {
    HEALTHY,
    DEGRADED,
    FAILING;

    /** {@code healthy}, {@code degraded}, {@code failing}: the wire's and the metrics' label. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The state of a {@link #wireName()}. */
    public static HealthState ofWireName(String name) {
        for (HealthState s : values()) {
            if (s.wireName().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("not a health state: \"" + name + "\" (healthy, degraded or failing)");
    }

    /** The worse of the two. */
    public HealthState worst(HealthState other) {
        return compareTo(other) >= 0 ? this : other;
    }

    /** {@code kiln status}'s exit code: 0 healthy, 1 degraded, 2 failing (and unreachable, which is failing). */
    public int exitCode() {
        return ordinal();
    }
}
