package dev.kiln.ui.health;

import javafx.beans.binding.Bindings;
import javafx.collections.ListChangeListener;
import javafx.scene.control.Button;
import javafx.scene.control.Tooltip;

/**
 * The console's alert badge, in its navigation: how many alert rules fire now, as an icon and a count coloured by the
 * worst severity (✖ critical, ▲ warning; the word in the tooltip); hidden while none fires. Clicking it opens the
 * Alerts panel ({@code open}). The notification of a rule that starts firing is the shell's (once per firing).
 *
 * <p>Concurrency: FX thread only.
 */
public final class AlertBadge extends Button {
    public AlertBadge(HealthViewModel health, Runnable open) {
        setId("alert-badge");
        getStyleClass().addAll("kiln-nav", "alert-badge");
        setMaxWidth(Double.MAX_VALUE);
        setFocusTraversable(true);
        Tooltip tip = new Tooltip();
        tip.setWrapText(true);
        tip.setMaxWidth(420);
        setTooltip(tip);
        setOnAction(e -> open.run());
        Runnable show = () -> {
            int n = health.firingProperty().get();
            boolean critical = health.alerts().stream().anyMatch(r -> r.firing() && r.severity().equals("critical"));
            setText((critical ? "✖  " : "▲  ") + n + (n == 1 ? " alert firing" : " alerts firing"));
            getStyleClass().removeAll("alert-badge-critical", "alert-badge-warning");
            getStyleClass().add(critical ? "alert-badge-critical" : "alert-badge-warning");
            tip.setText(String.join("\n", health.alerts().stream().filter(AlertRow::firing)
                    .map(r -> r.severity().toUpperCase(java.util.Locale.ROOT) + " " + r.name() + ": " + r.summary()).toList())
                    + "\n\nClick: the Alerts panel (Projection page)");
        };
        managedProperty().bind(Bindings.greaterThan(health.firingProperty(), 0));
        visibleProperty().bind(managedProperty());
        health.firingProperty().addListener((o, a, b) -> show.run());
        health.alerts().addListener((ListChangeListener<AlertRow>) c -> show.run());
        show.run();
    }
}
