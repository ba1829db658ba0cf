package dev.kiln.ui.health;

/**
 * One active rule in the Alerts panel (an immutable value).
 *
 * @param name the rule's name
 * @param severity {@code warning} or {@code critical}
 * @param firing whether it fires (else pending)
 * @param since {@code firing since 10:42:07 (3 min 4 s ago)} or {@code pending since …}
 * @param summary what it means
 * @param rule its expression and duration ({@code kiln_projection_contract_failures > 0 for 0s}) with the value now
 */
public record AlertRow(String name, String severity, boolean firing, String since, String summary, String rule) {
}
