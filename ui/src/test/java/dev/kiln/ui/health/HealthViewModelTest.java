package dev.kiln.ui.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.alert.AlertFired;
import dev.kiln.core.alert.AlertRules;
import dev.kiln.core.demo.DemoSummary;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.health.HealthState;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import dev.kiln.ui.EngineTestBase;
import dev.kiln.ui.util.Background;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cards' view model, without a window, over a real engine: a broken contract colours the Failures card failing
 * with its reason, fires its rule and notifies once however often it is asked; fixed, the card is healthy again and
 * the rule resolved, while the stale demo seed keeps the verdict degraded.
 */
@KernelTest
@ProcessTest
abstract class HealthViewModelTest extends EngineTestBase {
    @TempDir
    Path tmp;

    @Test
    void brokenContract_failingCardAndAlertOnce_fixed_healthyCardAndResolved() throws Exception {
        DemoSummary demo = new DemoWorkspace().write(tmp, 8, 4, false); // one malformed contract, one never-warmed target
        Engine engine = engine(tmp);
        if (!engine.remote()) {
            engine.projection().start(false);
        }
        List<AlertFired> fired = new ArrayList<>();
        HealthViewModel vm = new HealthViewModel(engine, Background.inline(), AlertRules.defaults());
        vm.setFiredListener(fired::add);

        vm.refresh();
        assertThat(vm.verdictProperty().get().state()).isEqualTo(HealthState.FAILING);
        CardState failures = vm.cardProperty(HealthViewModel.Card.FAILURES).get();
        assertThat(failures.state()).isEqualTo(HealthState.FAILING);
        assertThat(failures.word()).isEqualTo("FAILING");
        assertThat(failures.icon()).isEqualTo("✖");
        assertThat(failures.reason()).startsWith("1 contract failed: ").contains("contract.json");
        assertThat(vm.cardProperty(HealthViewModel.Card.HEALTH).get().state()).isEqualTo(HealthState.FAILING);
        assertThat(vm.cardProperty(HealthViewModel.Card.AGE).get().state()).isEqualTo(HealthState.HEALTHY);
        assertThat(vm.alerts()).filteredOn(AlertRow::firing).extracting(AlertRow::name)
                .contains("KilnContractFailures", "KilnSeedStale");
        assertThat(vm.alerts()).filteredOn(r -> r.name().equals("KilnContractFailures")).singleElement()
                .satisfies(r -> assertThat(r.since()).startsWith("firing since "));
        assertThat(vm.firingProperty().get()).isEqualTo(2);

        for (int i = 0; i < 3; i++) {
            vm.refresh(); // asked again and again while it fires: one notification per rule
        }
        assertThat(fired).extracting(f -> f.alert().rule().name())
                .containsExactlyInAnyOrder("KilnContractFailures", "KilnSeedStale");

        Path malformed = Files.exists(tmp.resolve(demo.malformed())) ? tmp.resolve(demo.malformed())
                : tmp.resolve("tasks").resolve(demo.malformed());
        Files.delete(malformed);
        engine.projection().projectNow();
        dev.kiln.testkit.Await.await("the fixed workspace judged", () -> {
            vm.refresh();
            return vm.cardProperty(HealthViewModel.Card.FAILURES).get().state() == HealthState.HEALTHY;
        });
        assertThat(vm.cardProperty(HealthViewModel.Card.FAILURES).get().reason()).isEmpty();
        assertThat(vm.verdictProperty().get().state()).as("the demo's seed is still stale").isEqualTo(HealthState.DEGRADED);
        assertThat(vm.cardProperty(HealthViewModel.Card.HEALTH).get().word()).isEqualTo("DEGRADED");
        assertThat(vm.alerts()).extracting(AlertRow::name).containsExactly("KilnSeedStale");
        assertThat(fired).as("resolving notifies nothing more").hasSize(2);
        assertThat(vm.lastResolvedProperty().get()).startsWith("KilnContractFailures resolved at ");
    }
}
