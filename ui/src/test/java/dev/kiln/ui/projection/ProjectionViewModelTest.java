package dev.kiln.ui.projection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.Kiln;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.util.Background;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProjectionViewModelTest {
    @TempDir
    Path tmp;

    @Test
    void ticks_fromEvents_showLastAndCountReasons() {
        new DemoWorkspace().write(tmp, 40, 2, false);
        EventBus bus = new EventBus();
        List<KilnEvent> seen = new ArrayList<>();
        bus.subscribe(seen::add);
        Kiln kiln = Kiln.open(tmp, bus, Clock.systemUTC());
        ProjectionViewModel vm = new ProjectionViewModel(kiln, Background.inline());

        kiln.projector().tick(WakeReason.STARTUP);
        vm.projectNow();
        vm.accept(seen);

        assertThat(vm.history()).hasSize(2);
        assertThat(vm.history().get(0).reason()).isEqualTo(WakeReason.MANUAL);
        assertThat(vm.lastProperty().get().revision()).isEqualTo(1); // the second tick changed nothing
        assertThat(vm.lastProperty().get().stats().reused()).isEqualTo(39);
        assertThat(vm.reasonsProperty().get()).isEqualTo("2 ticks: 1 startup, 1 manual");
        assertThat(vm.errorProperty().get()).isEmpty();
    }
}
