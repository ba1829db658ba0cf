package dev.kiln.ui.contracts;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javafx.collections.ModifiableObservableListBase;

/**
 * The Contracts page's rows, where a row that changed in place (the same file, edited) is announced as an update of
 * its index, not as a replacement. A table takes a replacement as "everything may have moved": it rebuilt every
 * visible row and cell, each tick (while a replay plays at 60x, every pulse); an update only makes it lay the rows
 * out again, and just the cells whose value differs are filled anew.
 *
 * <p>Concurrency: FX thread only, as any list a table shows.
 */
final class RowList extends ModifiableObservableListBase<ContractRow> {
    private final List<ContractRow> rows = new ArrayList<>();

    /** Puts {@code row} at {@code index} in place of the row of the same file: one update change. */
    void update(int index, ContractRow row) {
        beginChange();
        rows.set(index, row);
        nextUpdate(index);
        endChange();
    }

    /** As {@link #update(int, ContractRow)} for several indexes, in one change. */
    void update(int[] indexes, List<ContractRow> from) {
        if (indexes.length == 0) {
            return;
        }
        beginChange();
        for (int i : indexes) {
            rows.set(i, from.get(i));
            nextUpdate(i);
        }
        endChange();
    }

    /** All rows anew (other files): one replacement, not one change per row. */
    @Override
    public boolean setAll(Collection<? extends ContractRow> all) {
        beginChange();
        try {
            List<ContractRow> removed = new ArrayList<>(rows);
            rows.clear();
            rows.addAll(all);
            if (!removed.isEmpty()) {
                nextRemove(0, removed);
            }
            if (!rows.isEmpty()) {
                nextAdd(0, rows.size());
            }
        } finally {
            endChange();
        }
        return true;
    }

    @Override
    public void clear() {
        setAll(List.of());
    }

    @Override
    public ContractRow get(int index) {
        return rows.get(index);
    }

    @Override
    public int size() {
        return rows.size();
    }

    @Override
    protected void doAdd(int index, ContractRow element) {
        rows.add(index, element);
    }

    @Override
    protected ContractRow doSet(int index, ContractRow element) {
        return rows.set(index, element);
    }

    @Override
    protected ContractRow doRemove(int index) {
        return rows.remove(index);
    }
}
