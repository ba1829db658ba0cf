package dev.kiln.ui.util;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javafx.collections.ModifiableObservableListBase;

/**
 * A table's rows, where a row that changed in place (the same file, the same daemon) is announced as an update of
 * its index, not as a replacement. A {@code TableView} takes a replacement as "everything may have moved" and
 * rebuilds every visible row and cell; an update (or a lone removal and addition) only makes it lay the rows out
 * again, and just the cells whose value differs are filled anew.
 *
 * <p>Concurrency: FX thread only, as any list a table shows.
 *
 * @param <T> a row
 */
public class InPlaceList<T> extends ModifiableObservableListBase<T> {
    private final List<T> rows = new ArrayList<>();

    /** Puts {@code row} at {@code index} in place of the row there (the same thing, changed): one update change. */
    public void update(int index, T row) {
        beginChange();
        rows.set(index, row);
        nextUpdate(index);
        endChange();
    }

    /** As {@link #update(int, Object)} for several indexes, from {@code from}'s same indexes, in one change. */
    public void update(int[] indexes, List<T> from) {
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

    /**
     * Makes the list {@code next} in one change, matching rows by {@code key}: a row whose key stays where it was
     * relative to the others is updated in place (and not touched at all when it is the same object), the fewest
     * rows that moved are removed and added at their new place, new keys are added and gone ones removed. A daemon
     * that changed its verdict thus moves alone; the rows it passes are not replaced.
     *
     * @return whether anything changed
     */
    public boolean apply(List<T> next, Function<? super T, ?> key) {
        if (same(next)) {
            return false; // the usual poll: every row the same object, in its place; no map, no change
        }
        if (rows.isEmpty() || next.isEmpty()) {
            if (rows.isEmpty() && next.isEmpty()) {
                return false;
            }
            setAll(next);
            return true;
        }
        Map<Object, Integer> was = new HashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            was.put(key.apply(rows.get(i)), i);
        }
        int[] from = new int[next.size()]; // each new row's old index, -1 when it is new
        for (int j = 0; j < next.size(); j++) {
            Integer i = was.get(key.apply(next.get(j)));
            from[j] = i == null ? -1 : i;
        }
        boolean[] stays = stays(from);
        boolean[] kept = new boolean[rows.size()];
        boolean changed = false;
        for (int j = 0; j < next.size(); j++) {
            if (stays[j]) {
                kept[from[j]] = true;
                changed |= rows.get(from[j]) != next.get(j);
            } else {
                changed = true;
            }
        }
        for (boolean k : kept) {
            changed |= !k;
        }
        if (!changed) {
            return false;
        }
        beginChange();
        try {
            for (int i = rows.size() - 1; i >= 0; i--) { // from the end: the indexes before stay valid
                if (!kept[i]) {
                    nextRemove(i, rows.remove(i));
                }
            }
            for (int j = 0; j < next.size(); j++) { // in order: every index before j is final
                if (!stays[j]) {
                    rows.add(j, next.get(j));
                    nextAdd(j, j + 1);
                }
            }
            for (int j = 0; j < next.size(); j++) {
                if (stays[j] && rows.get(j) != next.get(j)) {
                    rows.set(j, next.get(j));
                    nextUpdate(j);
                }
            }
        } finally {
            endChange();
        }
        return true;
    }

    private boolean same(List<T> next) {
        if (next.size() != rows.size()) {
            return false;
        }
        for (int i = 0; i < next.size(); i++) {
            if (next.get(i) != rows.get(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Which new rows stay in place: the longest run of old indexes that increases (their order among themselves is
     * kept), so that only the others move. O(n log n).
     */
    static boolean[] stays(int[] from) {
        int n = from.length;
        int[] tails = new int[n]; // tails[k]: the position in from of the smallest end of an increasing run of k + 1
        int[] before = new int[n];
        int length = 0;
        for (int j = 0; j < n; j++) {
            if (from[j] < 0) {
                continue;
            }
            int lo = 0;
            int hi = length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (from[tails[mid]] < from[j]) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            before[j] = lo > 0 ? tails[lo - 1] : -1;
            tails[lo] = j;
            if (lo == length) {
                length++;
            }
        }
        boolean[] stays = new boolean[n];
        for (int j = length > 0 ? tails[length - 1] : -1; j >= 0; j = before[j]) {
            stays[j] = true;
        }
        return stays;
    }

    /** All rows anew: one replacement, not one change per row. */
    @Override
    public boolean setAll(Collection<? extends T> all) {
        beginChange();
        try {
            List<T> removed = new ArrayList<>(rows);
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
    public T get(int index) {
        return rows.get(index);
    }

    @Override
    public int size() {
        return rows.size();
    }

    @Override
    protected void doAdd(int index, T element) {
        rows.add(index, element);
    }

    @Override
    protected T doSet(int index, T element) {
        return rows.set(index, element);
    }

    @Override
    protected T doRemove(int index) {
        return rows.remove(index);
    }
}
