package dev.kiln.ui.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import javafx.collections.ListChangeListener;
import org.junit.jupiter.api.Test;

/**
 * Keyed rows reach the list in one change: the rows that keep their order stay (updated only when their object
 * changed), the fewest others move, and replaying the change on a copy of the old list gives the new one.
 */
class InPlaceListTest {
    /** A row: its key and a version (a new object for a changed row). */
    private record Row(String key, int version) {
    }

    @Test
    void apply_oneRowMoves_isOneRemovalAndOneAddition_andTheOthersAreNotTouched() {
        InPlaceList<Row> rows = new InPlaceList<>();
        List<Row> old = List.of(new Row("a", 0), new Row("b", 0), new Row("c", 0), new Row("d", 0));
        rows.setAll(old);
        List<String> seen = new ArrayList<>();
        rows.addListener((ListChangeListener<Row>) c -> {
            while (c.next()) {
                seen.add((c.wasReplaced() ? "replaced " : c.wasUpdated() ? "updated " : c.wasAdded() ? "added " : "removed ")
                        + c.getFrom() + ".." + c.getTo());
            }
        });
        Row movedUp = new Row("c", 1);
        assertThat(rows.apply(List.of(movedUp, old.get(0), old.get(1), old.get(3)), Row::key)).isTrue();
        assertThat(seen).containsExactlyInAnyOrder("added 0..1", "removed 3..3");
        assertThat(rows).containsExactly(movedUp, old.get(0), old.get(1), old.get(3));
        assertThat(rows.get(1)).isSameAs(old.get(0));

        seen.clear();
        assertThat(rows.apply(List.copyOf(rows), Row::key)).as("the same objects: no change").isFalse();
        assertThat(seen).isEmpty();
    }

    @Test
    void apply_anyChange_replayedOnTheOldList_givesTheNewOne_andNeverMovesARowThatKeptItsOrder() {
        Random random = new Random(29);
        for (int round = 0; round < 500; round++) {
            InPlaceList<Row> rows = new InPlaceList<>();
            List<Row> old = new ArrayList<>();
            for (int i = 0; i < random.nextInt(8); i++) {
                old.add(new Row("k" + i, 0));
            }
            rows.setAll(old);
            List<Row> next = new ArrayList<>();
            for (Row r : old) {
                if (random.nextInt(5) > 0) {
                    next.add(random.nextInt(3) == 0 ? new Row(r.key(), 1) : r);
                }
            }
            for (int i = 0; i < random.nextInt(3); i++) {
                next.add(new Row("n" + i, 0));
            }
            Collections.shuffle(next.subList(0, Math.min(next.size(), random.nextInt(4))), random);
            List<Row> replay = new ArrayList<>(old);
            rows.addListener((ListChangeListener<Row>) c -> {
                while (c.next()) {
                    if (c.wasPermutated()) {
                        throw new AssertionError("no permutation expected");
                    }
                    if (c.wasUpdated()) {
                        for (int i = c.getFrom(); i < c.getTo(); i++) {
                            replay.set(i, c.getList().get(i));
                        }
                        continue;
                    }
                    replay.subList(c.getFrom(), c.getFrom() + c.getRemovedSize()).clear();
                    replay.addAll(c.getFrom(), c.getAddedSubList());
                }
            });
            rows.apply(next, Row::key);
            assertThat(rows).as("round " + round).containsExactlyElementsOf(next);
            assertThat(replay).as("round " + round + ": the change, replayed").containsExactlyElementsOf(next);
        }
    }

    @Test
    void stays_isALongestIncreasingRunOfOldIndexes() {
        assertThat(InPlaceList.stays(new int[] {2, 0, 1})).containsExactly(false, true, true);
        assertThat(InPlaceList.stays(new int[] {0, 1, 2})).containsExactly(true, true, true);
        boolean[] one = InPlaceList.stays(new int[] {-1, 1, -1, 0}); // either old row stays, the new ones move
        assertThat(one[0] || one[2]).isFalse();
        assertThat(one[1] ^ one[3]).isTrue();
        assertThat(InPlaceList.stays(new int[] {})).isEmpty();
    }
}
