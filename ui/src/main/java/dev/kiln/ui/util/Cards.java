package dev.kiln.ui.util;

import javafx.beans.value.ObservableStringValue;
import javafx.scene.control.Label;
import javafx.scene.layout.VBox;

/** The metric card every page uses: a big value over a small label. */
public final class Cards {
    private Cards() {
    }

    /**
     * A card showing {@code value} over {@code label}; {@code id} (may be null) goes on the value label. The value
     * changes without laying out the page ({@link SteadyLabel}).
     */
    public static VBox card(String label, ObservableStringValue value, String id) {
        SteadyLabel slot = new SteadyLabel();
        Label v = slot.label();
        v.textProperty().bind(value);
        v.getStyleClass().add("metric-value");
        v.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE); // a figure is never "…": the row scrolls first
        if (id != null) {
            v.setId(id);
        }
        Label l = new Label(label);
        l.getStyleClass().add("metric-label");
        l.setWrapText(true); // a long name takes two lines rather than an ellipsis
        l.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
        VBox card = new VBox(2, slot, l);
        card.getStyleClass().add("metric-card");
        card.setMinWidth(120);
        return card;
    }
}
