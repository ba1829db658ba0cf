package dev.kiln.ui.util;

import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.Tooltip;
import javafx.scene.text.Text;

/**
 * A plain table cell that shows its full text in a tooltip whenever the column is narrower than the text (the cell
 * then ends in "…"): nothing in a table is cut off without a way to read it.
 */
public final class FullTextCell<S, T> extends TableCell<S, T> {

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
        tooltipWhenCut(this);
    }

    /**
     * Gives {@code cell} (laid out) a tooltip with its full text while its text shows cut, and takes it away when the
     * text fits again: for cells of their own (coloured state cells) that are held to the same rule.
     */
    public static void tooltipWhenCut(TableCell<?, ?> cell) {
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
    }
}
