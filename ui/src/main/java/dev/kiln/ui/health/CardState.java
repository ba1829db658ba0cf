package dev.kiln.ui.health;

import dev.kiln.core.health.HealthState;

/**
 * How a stat card shows state (an immutable value): the state, its word and icon (never colour alone), and the
 * reason line under the number.
 *
 * @param state healthy, degraded or failing
 * @param reason the first reason that concerns the card, or an alert that fires on it; empty when healthy
 */
public record CardState(HealthState state, String reason) {
    public static final CardState UNKNOWN = new CardState(HealthState.HEALTHY, "");

    /** {@code OK}, {@code DEGRADED}, {@code FAILING}: the word beside the colour. */
    public String word() {
        return switch (state) {
            case HEALTHY -> "OK";
            case DEGRADED -> "DEGRADED";
            case FAILING -> "FAILING";
        };
    }

    /** ✔, ▲ or ✖: the icon beside the word. */
    public String icon() {
        return switch (state) {
            case HEALTHY -> "✔";
            case DEGRADED -> "▲";
            case FAILING -> "✖";
        };
    }

    /** The card's style class: {@code card-healthy}, {@code card-degraded}, {@code card-failing}. */
    public String styleClass() {
        return "card-" + state.wireName();
    }
}
