package dev.kiln.ui.projection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import dev.kiln.ui.EngineTestBase;
import dev.kiln.ui.util.Background;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Projection page's model against the engine the subclass supplies. */
@KernelTest
@ProcessTest
abstract class ProjectionViewModelTest extends EngineTestBase {
    @TempDir
    Path tmp;

    @Test
    void ticks_fromEvents_showLastAndCountReasons() throws InterruptedException {
        new DemoWorkspace().write(tmp, 40, 2, false);
        Engine engine = engine(tmp);
        List<KilnEvent> seen = recording(engine);
        ProjectionViewModel vm = new ProjectionViewModel(engine, Background.inline());

        vm.start(false); // on demand: one startup tick
        vm.projectNow();
        // The in-process engine publishes the manual tick before projectNow returns; a remote one relays it a moment later.
        awaitTick(seen, vm, r -> r.reason() == WakeReason.MANUAL);

        assertThat(vm.history().get(0).reason()).isEqualTo(WakeReason.MANUAL);
        if (engine.remote()) {
            // Attached: the daemon's startup tick may have come before this console's stream did.
            assertThat(vm.reasonsProperty().get()).endsWith("1 manual");
            assertThat(vm.lastProperty().get().stats().reused()).isEqualTo(39);
            assertThat(vm.errorProperty().get()).isEmpty();
            return;
        }
        assertThat(vm.history()).hasSize(2);
        assertThat(vm.history().get(0).reason()).isEqualTo(WakeReason.MANUAL);
        assertThat(vm.lastProperty().get().revision()).isEqualTo(1); // the second tick changed nothing
        assertThat(vm.lastProperty().get().stats().reused()).isEqualTo(39);
        assertThat(vm.reasonsProperty().get()).isEqualTo("2 ticks: 1 startup, 1 manual");
        assertThat(vm.errorProperty().get()).isEmpty();
    }

    @Test
    void age_tracksTheInjectedClock_fromTheLastTick() throws InterruptedException {
        new DemoWorkspace().write(tmp, 10, 2, false);
        dev.kiln.testkit.MutableClock clock = new dev.kiln.testkit.MutableClock(java.time.Instant.parse("2026-12-01T10:00:00Z"));
        Engine engine = engine(tmp, clock);
        List<KilnEvent> seen = recording(engine);
        ProjectionViewModel vm = new ProjectionViewModel(engine, Background.inline());
        assertThat(vm.ageProperty().get()).isEqualTo("not yet");

        vm.projectNow();
        awaitTick(seen, vm, r -> r.reason() == WakeReason.MANUAL); // a remote engine relays it a moment after
        assertThat(vm.ageProperty().get()).isEqualTo("just now");
        clock.advance(java.time.Duration.ofSeconds(42));
        vm.refreshClock();
        assertThat(vm.ageProperty().get()).isEqualTo("42 s ago");
        clock.advance(java.time.Duration.ofMinutes(3));
        vm.refreshClock();
        assertThat(vm.ageProperty().get()).isEqualTo("3 min 42 s ago");
        assertThat(vm.buckets()).hasSize(ChartWindow.BUCKETS);
        assertThat(vm.buckets().stream().mapToInt(ChartSeries.Bucket::ticks).sum()).isZero(); // 3 min ago: outside 1 min
        vm.chartWindowProperty().set(ChartWindow.TEN_MINUTES);
        assertThat(vm.buckets().stream().mapToInt(ChartSeries.Bucket::ticks).sum()).isEqualTo(1);
    }

    /**
     * Issue 25, item 19: the workspace's disk (a real 1 MiB tmpfs) fills up under the daemon. The page shows the edited
     * revision, says state.json cannot be written with its path and the OS's reason, and clears once it is written.
     */
    @Test
    void diskFull_pageSaysTheStateFileCannotBeWritten_andClearsOnceItIsWritten() throws Exception {
        Path disk = java.nio.file.Files.createDirectories(tmp.resolve("small-disk"));
        DiskFull.mount(disk);
        try {
            new DemoWorkspace().write(disk, 10, 2, false);
            Engine engine = engine(disk);
            List<KilnEvent> seen = recording(engine);
            ProjectionViewModel vm = new ProjectionViewModel(engine, Background.inline());
            vm.start(true);
            awaitTick(seen, vm, r -> true);
            long before = vm.lastProperty().get().revision();

            Path filler = DiskFull.fill(disk);
            DiskFull.editInPlace(disk);
            awaitTick(seen, vm, r -> r.writeError() != null);
            assertThat(vm.errorProperty().get()).contains("state.json is not up to date")
                    .contains(disk.resolve("observer/state.json").toString()).contains("No space left on device");
            assertThat(vm.lastProperty().get().revision()).as("the edit is projected, from memory").isGreaterThan(before);

            java.nio.file.Files.delete(filler);
            long served = vm.lastProperty().get().revision();
            dev.kiln.testkit.Await.await("state.json written again", () ->
                    dev.kiln.core.projection.Projector.publishedRevision(disk.resolve("observer/state.json")) >= served);
            vm.projectNow();
            awaitTick(seen, vm, r -> r.writeError() == null);
            assertThat(vm.errorProperty().get()).isEmpty();
        } finally {
            DiskFull.unmount(disk);
        }
    }

    /** Waits for a tick matching {@code what} and hands everything seen so far to the model. */
    private static void awaitTick(List<KilnEvent> seen, ProjectionViewModel vm,
            java.util.function.Predicate<dev.kiln.core.projection.TickResult> what) throws InterruptedException {
        dev.kiln.testkit.Await.await("a tick", () ->
                seen.stream().anyMatch(e -> e instanceof TickFinished t && what.test(t.result())));
        pump(seen, vm::accept);
    }

    @Test
    void ageText_units() {
        assertThat(ProjectionViewModel.ageText(java.time.Duration.ofMillis(-300))).isEqualTo("just now");
        assertThat(ProjectionViewModel.ageText(java.time.Duration.ofMillis(999))).isEqualTo("just now");
        assertThat(ProjectionViewModel.ageText(java.time.Duration.ofSeconds(59))).isEqualTo("59 s ago");
        assertThat(ProjectionViewModel.ageText(java.time.Duration.ofSeconds(60))).isEqualTo("1 min 0 s ago");
        assertThat(ProjectionViewModel.ageText(java.time.Duration.ofSeconds(2 * 3600 + 5 * 60 + 9))).isEqualTo("2 h 5 min ago");
    }

    @Test
    void degradedBanner_saysWhyAndSince_andGoesWhenTheWatchIsLive() {
        new DemoWorkspace().write(tmp, 5, 2, false);
        java.time.Instant t0 = java.time.Instant.parse("2026-12-01T10:00:00Z");
        dev.kiln.testkit.MutableClock clock = new dev.kiln.testkit.MutableClock(t0);
        ProjectionViewModel vm = new ProjectionViewModel(engine(tmp, clock), Background.inline());
        String since = java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss").withZone(java.time.ZoneId.systemDefault()).format(t0);

        vm.accept(List.of(new dev.kiln.core.watch.WatchChanged(t0, new dev.kiln.core.watch.WatchStatus(false,
                "watched root tasks/ was deleted", t0, List.of(), 0, 8192))));
        clock.advance(java.time.Duration.ofSeconds(75));
        vm.refreshClock();

        assertThat(vm.degradedProperty().get()).startsWith("Watch degraded 1 min 15 s ago (since " + since + "): watched root tasks/ was deleted.");
        vm.accept(List.of(new dev.kiln.core.watch.WatchChanged(clock.instant(), new dev.kiln.core.watch.WatchStatus(true, "",
                clock.instant(), List.of(tmp.resolve("tasks")), 3, 8192))));
        assertThat(vm.degradedProperty().get()).isEmpty();
    }
}
