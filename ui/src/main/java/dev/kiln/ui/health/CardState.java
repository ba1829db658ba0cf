package dev.kiln.ui.health;

import dev.kiln.core.health.HealthState;

/**
 * How a stat card shows state (an immutable value): the state, its word and icon (never colour alone), and the
 * reason line under the number.
 *
 * @param state healthy, degraded or failing
 * @param reason the first reason that concerns the card, or an alert that fires on it; empty when healthy
 * @param detail the whole story for the card's tooltip (every reason, every daemon); the reason when there is no more
 */
public record CardState(HealthState state, String reason, String detail) {
    public static final CardState UNKNOWN = new CardState(HealthState.HEALTHY, "");

    /** A card whose tooltip says its reason and no more. */
    public CardState(HealthState state, String reason) {
        this(state, reason, reason);
    }

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
