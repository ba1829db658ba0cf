package dev.kiln.ui.util;

import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.Tooltip;
import javafx.scene.text.Text;

/**
 * A table cell that is never cut off without a way to read it: its column grows to the cell's text (sized to its
 * content, up to {@link #GROW_LIMIT} px), and a text wider than that shows in full in a tooltip (the cell then ends
 * in "…"). A page's plain columns get it by {@link #install}; cells of their own (a coloured state, a severity word)
 * extend it, set their text in {@link #updateItem} after calling it, and keep both behaviours.
 */
public class FullTextCell<S, T> extends TableCell<S, T> {
    /** A column grows to its widest cell's text up to this width; wider text is for the tooltip. */
    public static final double GROW_LIMIT = 320;
    private String measured; // the text last measured, and its width
    private double measuredWidth;

    /** Gives {@code column} this cell when it has the default one (columns with cells of their own keep them). */
    public static <S, T> void install(TableColumn<S, T> column) {
        if ((Object) column.getCellFactory() == TableColumn.DEFAULT_CELL_FACTORY) {
            column.setCellFactory(c -> new FullTextCell<>());
        }
        column.getColumns().forEach(FullTextCell::install);
    }

    @Override
    protected void updateItem(T item, boolean empty) {
        super.updateItem(item, empty);
        if (empty || item == null) {
            setText(null);
            setGraphic(null);
        } else if (item instanceof javafx.scene.Node n) {
            setText(null);
            setGraphic(n);
        } else {
            setText(item.toString());
            setGraphic(null);
        }
    }

    @Override
    protected void layoutChildren() {
        super.layoutChildren();
        if (tooltipWhenCut(this)) {
            grow(getText()); // the column takes the text's width in its next layout (the tooltip holds it until then)
        }
    }

    /**
     * Gives {@code cell} (laid out) a tooltip with its full text while its text shows cut, and takes it away when the
     * text fits again: for cells of their own (coloured state cells) that are held to the same rule.
     *
     * @return whether the text shows cut
     */
    public static boolean tooltipWhenCut(TableCell<?, ?> cell) {
        String full = cell.getText();
        boolean cut = false;
        if (full != null && !full.isEmpty()) {
            for (javafx.scene.Node n : cell.getChildrenUnmodifiable()) {
                if (n instanceof Text t && !full.equals(t.getText())) {
                    cut = true;
                }
            }
        }
        if (cut && (cell.getTooltip() == null || !full.equals(cell.getTooltip().getText()))) {
            cell.setTooltip(new Tooltip(full));
        } else if (!cut && cell.getTooltip() != null) {
            cell.setTooltip(null);
        }
        return cut;
    }

    /**
     * Widens this cell's column to {@code text} when that fits under {@link #GROW_LIMIT} and the column's maximum:
     * a column only grows (a layout that moves back and forth under the mouse is worse than a wide column), and not
     * the one that takes the table's remaining width, which the resize policy sizes.
     */
    private void grow(String text) {
        TableColumn<S, T> column = getTableColumn();
        if (column == null || getTableView() == null || isLastLeaf(column)) {
            return;
        }
        if (!text.equals(measured)) { // a long text stays cut in every layout: measured once
            Text measure = new Text(text);
            measure.setFont(getFont());
            measured = text;
            measuredWidth = measure.getLayoutBounds().getWidth();
        }
        double needed = Math.ceil(measuredWidth + snappedLeftInset() + snappedRightInset()
                + (getGraphic() == null ? 0 : getGraphic().prefWidth(-1) + getGraphicTextGap())) + 2;
        if (needed > GROW_LIMIT || needed > column.getMaxWidth() || needed <= column.getWidth()) {
            return;
        }
        column.setMinWidth(Math.max(column.getMinWidth(), needed));
        column.setPrefWidth(Math.max(column.getPrefWidth(), needed));
    }

    private boolean isLastLeaf(TableColumn<S, T> column) {
        var leaves = getTableView().getVisibleLeafColumns();
        return !leaves.isEmpty() && leaves.get(leaves.size() - 1) == column;
    }
}
