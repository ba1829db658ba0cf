package dev.kiln.ui.startup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.Kiln;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.util.Background;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Startup page probing the demo workspace's real (bundled, stdlib-only) Python MCP servers. */
class StartupViewModelTest {
    @TempDir
    Path tmp;

    @Test
    void probe_demoServers_lanesFollowTheEventsAndTheVerdictCountsThem() {
        new DemoWorkspace().write(tmp, 10, 1, false);
        EventBus bus = new EventBus();
        List<KilnEvent> seen = new CopyOnWriteArrayList<>();
        bus.subscribe(seen::add);
        StartupViewModel vm = new StartupViewModel(Kiln.open(tmp, bus, Clock.systemUTC()), Background.inline());

        vm.load();
        assertThat(vm.servers()).extracting(s -> s.name()).containsExactly("demo-light", "demo-stdlib", "demo-import-graph");
        assertThat(vm.lanes()).hasSize(3).allSatisfy(l -> assertThat(l.spawnMs()).isNull());

        vm.timeoutSecondsProperty().set("60");
        vm.probe();
        vm.accept(new ArrayList<>(seen));

        assertThat(vm.errorProperty().get()).isEmpty();
        assertThat(vm.reportProperty().get().failed()).isZero();
        assertThat(vm.verdictProperty().get()).startsWith("3 servers · 3 ok · 0 over timeout");
        assertThat(vm.lanes()).allSatisfy(l -> {
            assertThat(l.outcome()).isEqualTo("ok");
            assertThat(l.spawnMs()).isNotNull();
            assertThat(l.initializedMs()).isGreaterThan(l.spawnMs());
            assertThat(l.toolsMs()).isGreaterThanOrEqualTo(l.initializedMs());
            assertThat(l.tools()).isPositive();
            assertThat(l.timeoutMs()).isEqualTo(60_000);
            assertThat(l.inTime()).isTrue();
        });
        assertThat(vm.configLinesProperty().get()).contains("startup_timeout_sec");
        assertThat(tmp.resolve("observer/probes")).isDirectoryContaining(p -> p.toString().endsWith(".json"));
    }

    @Test
    void probe_badTimeout_isAClearErrorAndStartsNothing() {
        new DemoWorkspace().write(tmp, 10, 1, false);
        StartupViewModel vm = new StartupViewModel(Kiln.open(tmp, new EventBus(), Clock.systemUTC()), Background.inline());
        vm.load();

        vm.timeoutSecondsProperty().set("soon");
        vm.probe();

        assertThat(vm.errorProperty().get()).isEqualTo("Timeout: 'soon' is not a number of seconds");
        assertThat(vm.probingProperty().get()).isFalse();
        assertThat(Files.exists(tmp.resolve("observer/probes"))).isFalse();
    }

    @Test
    void load_malformedServersJson_namesTheFile() throws Exception {
        new DemoWorkspace().write(tmp, 10, 1, false);
        Files.writeString(tmp.resolve("servers.json"), "{\"mcpServers\": {\"x\": {\"args\": 3}}}");
        StartupViewModel vm = new StartupViewModel(Kiln.open(tmp, new EventBus(), Clock.systemUTC()), Background.inline());

        vm.load();

        assertThat(vm.errorProperty().get()).contains("servers.json").contains("'x'");
        assertThat(vm.servers()).isEmpty();
    }

    @Test
    void chartScale_coversTheSlowestStepButNeverPastTheTimeout() {
        List<Lane> lanes = List.of(Lane.waiting("a", 30_000).spawned(5).initialized(400), Lane.waiting("b", 30_000).spawned(6));
        assertThat(TimelineChart.scaleMs(lanes)).isEqualTo(1000);
        List<Lane> slow = List.of(Lane.waiting("a", 2_000).spawned(5).initialized(5_000));
        assertThat(TimelineChart.scaleMs(slow)).isEqualTo(2_100);
        assertThat(TimelineChart.tail(Lane.waiting("a", 30_000).spawned(0).initialized(300))).isEqualTo("300 ms · ×100");
    }
}
