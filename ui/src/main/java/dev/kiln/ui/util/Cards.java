package dev.kiln.ui.util;

import javafx.beans.value.ObservableStringValue;
import javafx.scene.control.Label;
import javafx.scene.layout.VBox;

/** The metric card every page uses: a big value over a small label. */
public final class Cards {
    private Cards() {
    }

    /** A card showing {@code value} over {@code label}; {@code id} (may be null) goes on the value label. */
    public static VBox card(String label, ObservableStringValue value, String id) {
        Label v = new Label();
        v.textProperty().bind(value);
        v.getStyleClass().add("metric-value");
        if (id != null) {
            v.setId(id);
        }
        Label l = new Label(label);
        l.getStyleClass().add("metric-label");
        VBox card = new VBox(2, v, l);
        card.getStyleClass().add("metric-card");
        card.setMinWidth(120);
        return card;
    }
}
