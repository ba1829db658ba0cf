package dev.kiln.ui.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import javafx.collections.ListChangeListener;
import javafx.collections.transformation.FilteredList;
import org.junit.jupiter.api.Test;

/**
 * The Contracts rows announce an edited row as an update of its index (a table then refills that row alone), never
 * as a replacement (which makes a table rebuild every visible row), also through the page's filtered view.
 */
class RowListTest {
    private static ContractRow row(String file, String title) {
        return new ContractRow(file, "", "", "ok", "pending", title, "", "", "cached", false);
    }

    @Test
    void update_sameFileEdited_isOneUpdateChangeThroughTheFilter() {
        RowList rows = new RowList();
        rows.setAll(List.of(row("a", "1"), row("b", "1"), row("c", "1")));
        FilteredList<ContractRow> shown = new FilteredList<>(rows, r -> true);
        List<String> seen = new ArrayList<>();
        shown.addListener((ListChangeListener<ContractRow>) c -> {
            while (c.next()) {
                seen.add((c.wasUpdated() ? "updated " : c.wasReplaced() ? "replaced " : c.wasAdded() ? "added " : "removed ")
                        + c.getFrom() + ".." + c.getTo());
            }
        });

        List<ContractRow> next = List.of(row("a", "1"), row("b", "2"), row("c", "2"));
        rows.update(new int[] {1, 2}, next);

        assertThat(seen).containsExactly("updated 1..3");
        assertThat(shown).containsExactlyElementsOf(next);
    }

    @Test
    void setAll_otherFiles_isOneReplacement_andClearEmpties() {
        RowList rows = new RowList();
        rows.setAll(List.of(row("a", "1"), row("b", "1")));
        List<String> seen = new ArrayList<>();
        rows.addListener((ListChangeListener<ContractRow>) c -> {
            while (c.next()) {
                seen.add((c.wasReplaced() ? "replaced " : c.wasAdded() ? "added " : "removed ") + c.getRemovedSize() + "->" + c.getAddedSize());
            }
        });

        rows.setAll(List.of(row("c", "1"), row("d", "1"), row("e", "1")));
        rows.clear();

        assertThat(seen).containsExactly("replaced 2->3", "removed 3->0");
        assertThat(rows).isEmpty();
    }
}
