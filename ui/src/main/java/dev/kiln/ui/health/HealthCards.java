package dev.kiln.ui.health;

import javafx.beans.value.ObservableValue;
import javafx.scene.control.Label;
import javafx.scene.layout.VBox;

/**
 * Gives a stat card ({@code Cards.card}) its state: a style class per state (colours from theme variables only, in
 * kiln.css), the state's icon and word above the number (never colour alone), and the reason under it.
 */
public final class HealthCards {
    private HealthCards() {
    }

    /** Decorates {@code card} with {@code state}; {@code id} (may be null) prefixes the added labels' ids. */
    public static VBox decorate(VBox card, ObservableValue<CardState> state, String id) {
        Label badge = new Label();
        badge.getStyleClass().add("card-state");
        Label reason = new Label();
        reason.getStyleClass().add("card-reason");
        reason.setWrapText(true); // up to two lines under the number, the whole reason in the tooltip
        reason.setMaxWidth(Double.MAX_VALUE);
        reason.setMinWidth(0);
        reason.setPrefWidth(0); // the reason never widens its card: the cards keep one width, the numbers stay whole
        reason.setMaxHeight(30);
        javafx.scene.control.Tooltip tip = new javafx.scene.control.Tooltip();
        tip.setWrapText(true);
        tip.setMaxWidth(480);
        if (id != null) {
            badge.setId(id + "-state");
            reason.setId(id + "-reason");
        }
        card.getChildren().add(0, badge);
        card.getChildren().add(reason);
        Runnable show = () -> {
            CardState s = state.getValue();
            card.getStyleClass().removeAll("card-healthy", "card-degraded", "card-failing");
            card.getStyleClass().add(s.styleClass());
            badge.setText(s.icon() + " " + s.word());
            reason.setText(s.reason().isEmpty() ? " " : s.reason()); // a blank line keeps the cards one height
            tip.setText(s.reason());
            reason.setTooltip(s.reason().isEmpty() ? null : tip);
        };
        state.addListener((o, a, b) -> show.run());
        show.run();
        return card;
    }
}
