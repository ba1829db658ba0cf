package dev.kiln.ui.seeds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.Kiln;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.util.Background;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Seeds page driving a real uv warm of the demo target. */
class SeedsViewModelTest {
    @TempDir
    Path tmp;

    @Test
    void demoTarget_planWarmThenUnchanged() {
        new DemoWorkspace().write(tmp, 10, 1, false);
        EventBus bus = new EventBus();
        List<KilnEvent> seen = new ArrayList<>();
        bus.subscribe(seen::add);
        SeedsViewModel vm = new SeedsViewModel(Kiln.open(tmp, bus, Clock.systemUTC()), Background.inline());

        vm.refresh();
        assertThat(vm.seeds()).singleElement().satisfies(s -> {
            assertThat(s.target()).isEqualTo("demo");
            assertThat(SeedsView.state(s)).isEqualTo("none");
        });

        vm.plan("demo");
        assertThat(vm.messageProperty().get()).startsWith("demo: a warm is needed").contains("uv sync --frozen");

        vm.warm("demo");
        assertThat(vm.errorProperty().get()).isEmpty();
        assertThat(vm.messageProperty().get()).startsWith("demo: warmed");
        vm.accept(seen);
        assertThat(vm.output().get(0)).startsWith("$ ").contains("--no-build");
        assertThat(vm.seeds()).singleElement().satisfies(s -> assertThat(SeedsView.state(s)).isEqualTo("current"));

        vm.warm("demo");
        assertThat(vm.messageProperty().get()).startsWith("demo: unchanged");
        assertThat(vm.history()).extracting(r -> r.outcome()).containsExactly(WarmOutcome.UNCHANGED, WarmOutcome.WARMED);
        assertThat(vm.warmingProperty().get()).isFalse();
    }
}
