package dev.kiln.ui.util;

import javafx.beans.property.StringProperty;
import javafx.scene.control.Label;
import javafx.scene.layout.Region;
import javafx.scene.text.Text;

/**
 * A label for text that changes often (an age that ticks every second, the last tick's figures) in a slot that
 * keeps its size, so a new text lays out the label alone and not the page around it. In a page of tables and
 * charts that layout was most of a pulse: 5–10 ms for one card's "3 s ago" ({@code kiln bench ui}).
 *
 * <p>The label is unmanaged, which makes it a layout root: its own layout requests stop at it. The slot grows when a
 * text needs more room than any before it (then the page is laid out once) and never shrinks, so changing numbers
 * do not make a row of cards jitter either.
 */
public final class SteadyLabel extends Region {
    private final Label label = new Label();
    private final Text measure = new Text();
    private double widest;

    public SteadyLabel() {
        label.setManaged(false);
        getChildren().add(label);
        label.textProperty().addListener((o, was, now) -> fit(now));
    }

    /** The label itself: style it, give it its id, bind its text. */
    public Label label() {
        return label;
    }

    public StringProperty textProperty() {
        return label.textProperty();
    }

    /** Asks the page for room only when {@code text} is wider than any text before it. */
    private void fit(String text) {
        measure.setFont(label.getFont());
        measure.setText(text == null ? "" : text);
        double needed = Math.ceil(measure.getLayoutBounds().getWidth()) + label.snappedLeftInset() + label.snappedRightInset() + 1;
        if (needed > widest) {
            widest = needed;
            requestLayout();
        }
    }

    @Override
    protected double computePrefWidth(double height) {
        widest = Math.max(widest, label.prefWidth(-1));
        return snappedLeftInset() + widest + snappedRightInset();
    }

    @Override
    protected double computeMinWidth(double height) {
        return snappedLeftInset() + label.minWidth(-1) + snappedRightInset();
    }

    @Override
    protected double computePrefHeight(double width) {
        return snappedTopInset() + label.prefHeight(-1) + snappedBottomInset();
    }

    @Override
    protected double computeMinHeight(double width) {
        return computePrefHeight(width);
    }

    @Override
    protected void layoutChildren() {
        label.resizeRelocate(snappedLeftInset(), snappedTopInset(), getWidth() - snappedLeftInset() - snappedRightInset(),
                getHeight() - snappedTopInset() - snappedBottomInset());
    }
}
