package dev.kiln.ui.seeds;

import java.util.function.Function;
import javafx.scene.control.TableCell;
import javafx.scene.control.Tooltip;

/**
 * A seed's store state in a table (a target's or a server's): glyph and word, coloured by the theme's variables through
 * the state's style class; the reason, when there is one, as a tooltip that also holds the cell's whole text, and the
 * whole text as a tooltip whenever a narrow column cuts it.
 */
final class StoreCell<R> extends TableCell<R, R> {
    private final Function<R, StoreState> state;
    private final Function<R, String> text;
    private final Function<R, String> reason;

    /** @param reason the state's reason, empty for none */
    StoreCell(Function<R, StoreState> state, Function<R, String> text, Function<R, String> reason) {
        this.state = state;
        this.text = text;
        this.reason = reason;
    }

    @Override
    protected void updateItem(R item, boolean empty) {
        super.updateItem(item, empty);
        for (StoreState s : StoreState.values()) {
            getStyleClass().remove(s.styleClass());
        }
        if (empty || item == null) {
            setText(null);
            setTooltip(null);
            return;
        }
        String shown = text.apply(item);
        String why = reason.apply(item);
        setText(shown);
        getStyleClass().add(state.apply(item).styleClass());
        if (why.isEmpty()) {
            setTooltip(null);
        } else {
            Tooltip t = new Tooltip(shown + "\n" + why);
            t.setWrapText(true);
            t.setMaxWidth(520);
            setTooltip(t);
        }
    }

    @Override
    protected void layoutChildren() {
        super.layoutChildren();
        if (getTooltip() == null) {
            dev.kiln.ui.util.FullTextCell.tooltipWhenCut(this); // "▼ in the store · pulled · 1.2 MiB" reads whole
        }
    }
}
