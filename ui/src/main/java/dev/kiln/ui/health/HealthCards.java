package dev.kiln.ui.health;

import javafx.beans.value.ObservableValue;
import javafx.scene.control.Label;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * Gives a stat card ({@code Cards.card}) its state: a style class per state (colours from theme variables only, in
 * kiln.css), the state's icon and word above the number (never colour alone), and the reason under it.
 */
public final class HealthCards {
    /** Longer reasons are shortened to their head under the number. */
    static final int LINE = 64;

    private HealthCards() {
    }

    /**
     * The reason as the card's line: whole when short and made of words that wrap; else its head (before its first
     * {@code ": "}: "1 contract failed", "watch degraded") with any "(+N more)" kept, ending in "…" when cut; a path
     * or other long word never lands on the card, where it could only be cut.
     */
    static String line(String reason) {
        String more = "";
        String r = reason;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(" \\(\\+\\d+ more\\)$").matcher(r);
        if (m.find()) {
            more = m.group();
            r = r.substring(0, m.start());
        }
        boolean longWord = java.util.Arrays.stream(r.split("\\s+")).anyMatch(w -> w.length() > 22);
        if (r.length() <= LINE && !longWord) {
            return r + more;
        }
        int colon = r.indexOf(": ");
        String head = colon > 0 ? r.substring(0, colon) : r;
        if (head.length() > LINE || java.util.Arrays.stream(head.split("\\s+")).anyMatch(w -> w.length() > 22)) {
            StringBuilder b = new StringBuilder();
            for (String w : head.split("\\s+")) {
                if (w.length() > 22 || b.length() + w.length() + 1 > LINE - 1) {
                    break;
                }
                b.append(b.length() == 0 ? "" : " ").append(w);
            }
            head = b.length() == 0 ? head.substring(0, Math.min(20, head.length())) : b.toString();
        }
        return head + "\u00a0…" + more; // a no-break space: the "…" never stands alone on a line
    }

    /** Decorates {@code card} with {@code state}; {@code id} (may be null) prefixes the added labels' ids. */
    public static VBox decorate(VBox card, ObservableValue<CardState> state, String id) {
        Label badge = new Label();
        badge.getStyleClass().add("card-state");
        Label reason = new Label();
        reason.getStyleClass().add("card-reason");
        // Wrapped in full, never cut: the card grows to the lines it needs (the row of cards keeps one height); a long
        // reason is shortened to its head under the number and told whole, with every other reason, in the tooltip.
        reason.setWrapText(true);
        reason.setMaxWidth(Double.MAX_VALUE);
        reason.setMinWidth(0);
        reason.setPrefWidth(0); // the reason never widens its card: the cards keep one width, the numbers stay whole
        reason.setMinHeight(Region.USE_PREF_SIZE);
        card.setMinHeight(Region.USE_PREF_SIZE);
        javafx.scene.control.Tooltip tip = new javafx.scene.control.Tooltip();
        tip.setWrapText(true);
        tip.setMaxWidth(520);
        tip.setShowDuration(javafx.util.Duration.seconds(30));
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
            reason.setText(s.reason().isEmpty() ? " " : line(s.reason())); // a blank line keeps the cards one height
            tip.setText(s.detail());
            if (s.reason().isEmpty()) {
                javafx.scene.control.Tooltip.uninstall(card, tip);
            } else {
                javafx.scene.control.Tooltip.install(card, tip); // the whole card tells it, not only its small line
            }
        };
        state.addListener((o, a, b) -> show.run());
        // held by the card: a binding made for it (the Fleet page's) is otherwise only weakly observed, and collected
        card.getProperties().put(HealthCards.class, state);
        show.run();
        return card;
    }
}
