package dev.kiln.ui.shell;

import dev.kiln.ui.util.FullTextCell;
import java.util.LinkedHashSet;
import java.util.Set;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.ButtonBase;
import javafx.scene.control.ComboBoxBase;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.Region;

/**
 * The frame a page is shown in: the page fills the window while it fits, and scrolls (either way) once the window is
 * smaller than its minimum, instead of squeezing text into "…". When a page is framed, its buttons get at least their
 * preferred width (a button is never "…") and its tables' plain columns show their full text in a tooltip when
 * narrower than it ({@link FullTextCell}).
 *
 * <p>{@link #lookupAll} and {@link #lookup} also search the page before the frame is first laid out (a scroll pane's
 * content is in its skin's children only from then on): callers that walk a page's buttons (the replay's read-only
 * switch) find them from the start.
 */
final class PageScroll extends ScrollPane {

    PageScroll(Node page) {
        super(page);
        setFitToWidth(true);
        setFitToHeight(true);
        getStyleClass().addAll("kiln-page-scroll", "edge-to-edge");
        setHbarPolicy(ScrollBarPolicy.AS_NEEDED);
        setVbarPolicy(ScrollBarPolicy.AS_NEEDED);
        nothingCutOff(page);
    }

    /** Buttons at their preferred width, plain table columns with the full text in a tooltip. */
    @SuppressWarnings("unchecked")
    static void nothingCutOff(Node node) {
        if (node instanceof ButtonBase b && b.getMinWidth() == Region.USE_COMPUTED_SIZE) {
            b.setMinWidth(Region.USE_PREF_SIZE);
        }
        if (node instanceof ComboBoxBase<?> c && c.getMinWidth() == Region.USE_COMPUTED_SIZE) {
            c.setMinWidth(Region.USE_PREF_SIZE);
        }
        if (node instanceof TableView<?> t) {
            for (TableColumn<?, ?> c : t.getColumns()) {
                FullTextCell.install((TableColumn<Object, Object>) c);
            }
            // A column is never narrower than its header's text (measured once the skin and its CSS are there).
            t.skinProperty().addListener((o, a, skin) -> javafx.application.Platform.runLater(() -> headersFit(t)));
            if (t.getSkin() != null) {
                headersFit(t);
            }
        }
        if (node instanceof ScrollPane sp && sp.getContent() != null) {
            nothingCutOff(sp.getContent());
        }
        if (node instanceof javafx.scene.control.TabPane tp) {
            tp.getTabs().forEach(tab -> {
                if (tab.getContent() != null) {
                    nothingCutOff(tab.getContent());
                }
            });
        }
        if (node instanceof javafx.scene.control.SplitPane sp) {
            sp.getItems().forEach(PageScroll::nothingCutOff);
        }
        if (node instanceof Parent p) {
            p.getChildrenUnmodifiable().forEach(PageScroll::nothingCutOff);
        }
    }

    /** Sets each column's minimum width to what its header's text needs. */
    static void headersFit(TableView<?> table) {
        for (Node n : table.lookupAll(".column-header")) {
            if (n instanceof javafx.scene.control.skin.TableColumnHeader h && h.getTableColumn() != null
                    && h.getTableColumn().getColumns().isEmpty()) {
                for (Node c : h.getChildrenUnmodifiable()) {
                    if (c instanceof javafx.scene.control.Label l && l.getText() != null && !l.getText().isEmpty()) {
                        javafx.scene.text.Text measure = new javafx.scene.text.Text(l.getText());
                        measure.setFont(l.getFont());
                        double needed = Math.ceil(measure.getLayoutBounds().getWidth()) + l.snappedLeftInset()
                                + l.snappedRightInset() + h.snappedLeftInset() + h.snappedRightInset() + 14; // the sort arrow's room
                        javafx.scene.control.TableColumnBase<?, ?> col = h.getTableColumn();
                        if (col.getMinWidth() < needed) {
                            col.setMinWidth(needed);
                        }
                        if (col.getPrefWidth() < needed) {
                            col.setPrefWidth(needed);
                        }
                    }
                }
            }
        }
    }

    @Override
    public Set<Node> lookupAll(String selector) {
        Set<Node> all = new LinkedHashSet<>(super.lookupAll(selector));
        if (getContent() != null) {
            all.addAll(getContent().lookupAll(selector));
        }
        return all;
    }

    @Override
    public Node lookup(String selector) {
        Node n = super.lookup(selector);
        return n != null || getContent() == null ? n : getContent().lookup(selector);
    }
}
