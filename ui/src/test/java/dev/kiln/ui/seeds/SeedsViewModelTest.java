package dev.kiln.ui.seeds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.testkit.ProcessTest;
import dev.kiln.ui.EngineTestBase;
import dev.kiln.ui.QueueBackground;
import dev.kiln.ui.util.Background;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Seeds page driving real uv warms of the demo target (and copies of it), through the engine the subclass supplies. */
@ProcessTest
abstract class SeedsViewModelTest extends EngineTestBase {
    @TempDir
    Path tmp;

    /** The demo workspace with {@code extra} more targets, copies of the demo one (same lockfile). */
    private void workspace(String... extra) throws Exception {
        new DemoWorkspace().write(tmp, 10, 1, false);
        Path demo = tmp.resolve("targets/demo");
        for (String name : extra) {
            Path copy = Files.createDirectories(tmp.resolve("targets").resolve(name));
            try (Stream<Path> files = Files.list(demo)) {
                for (Path f : files.toList()) {
                    Files.copy(f, copy.resolve(f.getFileName()));
                }
            }
        }
    }

    private static TargetRow row(SeedsViewModel vm, String target) {
        return vm.rows().stream().filter(r -> r.target().equals(target)).findFirst().orElseThrow();
    }

    @Test
    void demoTarget_planWarmThenUnchanged() throws Exception {
        workspace();
        Engine engine = engine(tmp);
        List<KilnEvent> seen = recording(engine);
        SeedsViewModel vm = new SeedsViewModel(engine, Background.inline());

        vm.refresh();
        assertThat(vm.rows()).singleElement().satisfies(r -> {
            assertThat(r.target()).isEqualTo("demo");
            assertThat(r.state()).isEqualTo(SeedState.NEVER);
            assertThat(r.lockfile()).hasSize(12);
            assertThat(r.size()).isEqualTo("–");
        });
        assertThat(vm.uvProblemProperty().get()).isEmpty();
        assertThat(vm.anyWantsWarmProperty().get()).isTrue();

        vm.plan("demo");
        assertThat(vm.messageProperty().get()).startsWith("demo: a warm is needed").contains("uv sync --frozen");

        vm.warm("demo");
        assertThat(vm.errorProperty().get()).isEmpty();
        assertThat(vm.messageProperty().get()).startsWith("demo: warmed");
        pump(seen, vm::accept);
        assertThat(vm.output().get(0)).startsWith("$ ").contains("--no-build");
        assertThat(vm.rows()).singleElement().satisfies(r -> {
            assertThat(r.state()).isEqualTo(SeedState.FRESH);
            assertThat(r.seeded()).isEqualTo(r.lockfile());
            assertThat(r.size()).contains("wheels");
            assertThat(r.lastWarm()).contains("warmed · ");
            assertThat(r.progress()).isEqualTo("warmed");
        });
        assertThat(vm.anyWantsWarmProperty().get()).isFalse();

        vm.warm("demo");
        assertThat(vm.messageProperty().get()).startsWith("demo: unchanged");
        assertThat(vm.history()).extracting(r -> r.outcome()).containsExactly(WarmOutcome.UNCHANGED, WarmOutcome.WARMED);
        assertThat(vm.bars()).extracting(SeedsViewModel.WarmBar::outcome).containsExactly(WarmOutcome.WARMED, WarmOutcome.UNCHANGED);
        assertThat(vm.warmingProperty().get()).isFalse();
    }

    @Test
    void warmAllStale_warmsEachStaleOrNeverTargetInTurn_andLeavesFreshOnesAlone() throws Exception {
        workspace("beta", "gamma");
        Engine engine = engine(tmp);
        List<KilnEvent> seen = recording(engine);
        SeedsViewModel vm = new SeedsViewModel(engine, Background.inline());
        vm.refresh();
        vm.warm("demo");
        vm.refresh();
        assertThat(vm.staleTargets()).containsExactly("beta", "gamma");
        seen.clear();

        vm.warmAllStale();

        List<String> order = new ArrayList<>();
        for (KilnEvent e : seen) {
            if (e instanceof SeedEvent.WarmStarted s) {
                order.add("start " + s.target());
            } else if (e instanceof SeedEvent.WarmFinished f) {
                order.add("end " + f.target() + " " + f.result().outcome().label());
            }
        }
        assertThat(order).containsExactly("start beta", "end beta warmed", "start gamma", "end gamma warmed"); // one at a time
        assertThat(vm.rows()).allSatisfy(r -> assertThat(r.state()).isEqualTo(SeedState.FRESH));
        assertThat(row(vm, "beta").progress()).isEqualTo("warmed");
        assertThat(row(vm, "demo").progress()).isEmpty(); // not part of this run
        assertThat(vm.runProgressProperty().get()).isEqualTo("Warmed 2 of 2");
        assertThat(vm.runFractionProperty().get()).isEqualTo(1.0);
        assertThat(vm.warmingProperty().get()).isFalse();

        vm.warmAllStale();
        assertThat(vm.messageProperty().get()).startsWith("Every seed is fresh");
    }

    @Test
    void warmAllStale_cancel_endsTheRunningWarmAndSkipsTheRest() throws Exception {
        workspace("beta");
        try (QueueBackground ui = new QueueBackground()) {
            Engine engine = engine(tmp);
            List<KilnEvent> seen = recording(engine);
            SeedsViewModel vm = new SeedsViewModel(engine, ui);
            vm.refresh();
            ui.runUntil(() -> vm.rows().size() == 2, Duration.ofMinutes(1));

            List<String> order = vm.staleTargets();
            assertThat(order).containsExactlyInAnyOrder("demo", "beta");
            String first = order.get(0);
            String second = order.get(1);
            vm.warmAllStale();
            assertThat(vm.warmingProperty().get()).isTrue();
            assertThat(row(vm, second).progress()).isEqualTo("queued");
            vm.cancel(); // before the first warm's result can arrive on this ("FX") thread
            ui.runUntil(() -> !vm.warmingProperty().get(), Duration.ofMinutes(2));

            assertThat(seen).noneMatch(e -> e instanceof SeedEvent.WarmStarted s && s.target().equals(second));
            assertThat(row(vm, second).progress()).isEqualTo("skipped (cancelled)");
            assertThat(vm.runProgressProperty().get()).isEqualTo("Cancelled after 1 of 2; the rest were skipped");
            ui.runUntil(() -> vm.history().size() == 1, Duration.ofMinutes(1));
            assertThat(row(vm, second).state()).isEqualTo(SeedState.NEVER);
            // the first warm either was cancelled (the old, absent, seed stays) or had finished: never half a seed
            WarmOutcome ended = vm.history().get(0).outcome();
            assertThat(ended).isIn(WarmOutcome.CANCELLED, WarmOutcome.WARMED);
            assertThat(row(vm, first).progress()).isEqualTo(ended.label());
            assertThat(row(vm, first).state()).isEqualTo(ended == WarmOutcome.WARMED ? SeedState.FRESH : SeedState.NEVER);
        }
    }

    @Test
    void uvThatCannotRun_saysSoWithWhatToDo_andTheFailedWarmCarriesTheReason() throws Exception {
        workspace();
        Path settings = tmp.resolve("kiln.json");
        String json = Files.readString(settings).strip();
        Files.writeString(settings, json.substring(0, json.lastIndexOf('}')).stripTrailing()
                + (json.contains(":") ? "," : "") + " \"uv\": \"no/such/uv\" }\n");
        SeedsViewModel vm = new SeedsViewModel(engine(tmp), Background.inline());

        vm.refresh();
        assertThat(vm.uvProblemProperty().get()).contains("\"uv\"").contains("no/such/uv").contains("Point it at uv");

        vm.warm("demo");
        assertThat(vm.rows()).singleElement().satisfies(r -> {
            assertThat(r.state()).isEqualTo(SeedState.FAILED);
            assertThat(r.reason()).contains("no/such/uv");
            assertThat(r.progress()).isEqualTo("failed");
        });
        assertThat(vm.staleTargets()).isEmpty(); // "warm all stale" does not retry a failure whose cause is unchanged
    }
}
