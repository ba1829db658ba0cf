package dev.kiln.ui.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.telemetry.KilnEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventsViewModelTest {

    record CacheHit(Instant at, String summary) implements KilnEvent {
    }

    record TickFinished(Instant at, String summary) implements KilnEvent {
    }

    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

    @Test
    void accept_newestFirst_kindInWords() {
        EventsViewModel vm = new EventsViewModel();

        vm.accept(List.of(new TickFinished(T0, "rev 1"), new CacheHit(T0.plusSeconds(1), "hit a")));
        vm.accept(List.of(new TickFinished(T0.plusSeconds(2), "rev 2")));

        assertThat(vm.rows()).extracting(EventRow::summary).containsExactly("rev 2", "hit a", "rev 1");
        assertThat(vm.rows().get(0).kind()).isEqualTo("tick finished");
        assertThat(vm.kinds()).containsExactly("cache hit", "tick finished");
        assertThat(vm.receivedProperty().get()).isEqualTo(3);
    }

    @Test
    void accept_beyondCapacity_keepsNewest() {
        EventsViewModel vm = new EventsViewModel();
        List<KilnEvent> batch = new ArrayList<>();
        for (int i = 0; i < EventsViewModel.CAPACITY + 500; i++) {
            batch.add(new TickFinished(T0.plusMillis(i), "rev " + i));
        }

        vm.accept(batch.subList(0, 1000));
        vm.accept(batch.subList(1000, batch.size()));

        assertThat(vm.rows()).hasSize(EventsViewModel.CAPACITY);
        assertThat(vm.rows().get(0).summary()).isEqualTo("rev " + (EventsViewModel.CAPACITY + 499));
        assertThat(vm.rows().get(EventsViewModel.CAPACITY - 1).summary()).isEqualTo("rev 500");
    }

    @Test
    void paused_countsButDoesNotShow() {
        EventsViewModel vm = new EventsViewModel();
        vm.pausedProperty().set(true);

        vm.accept(List.of(new TickFinished(T0, "rev 1")));

        assertThat(vm.rows()).isEmpty();
        assertThat(vm.receivedProperty().get()).isEqualTo(1);
    }

    @Test
    void filter_matchesKindOrText() {
        EventsViewModel vm = new EventsViewModel();
        vm.accept(List.of(new TickFinished(T0, "rev 1"), new CacheHit(T0, "hit a")));

        vm.filterProperty().set("cache");

        assertThat(vm.shownRows()).extracting(EventRow::summary).containsExactly("hit a");
    }
}
