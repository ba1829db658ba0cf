package dev.kiln.ui.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.archive.ArchiveEvent;
import dev.kiln.core.engine.EngineEvent;
import dev.kiln.core.recording.ReplayMoved;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.telemetry.KilnEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Events page's severities (word and style class) and its folding of a warm's output under the warm. */
class EventSeverityTest {
    private static final Instant T0 = Instant.parse("2026-12-02T01:00:00Z");

    private static WarmResult result(WarmOutcome o) {
        return new WarmResult("py312", o, "abc", T0.plusSeconds(9), Duration.ofSeconds(9), 10, 1, o == WarmOutcome.FAILED
                ? "uv sync failed: exit 2" : "warmed", List.of());
    }

    @Test
    void severity_failedWarmIsAnErrorCancelledAWarningTheRestInfo() {
        assertThat(Severity.of(new SeedEvent.WarmFinished(T0, result(WarmOutcome.FAILED)))).isEqualTo(Severity.ERROR);
        assertThat(Severity.of(new SeedEvent.WarmFinished(T0, result(WarmOutcome.CANCELLED)))).isEqualTo(Severity.WARNING);
        assertThat(Severity.of(new SeedEvent.WarmFinished(T0, result(WarmOutcome.WARMED)))).isEqualTo(Severity.INFO);
        assertThat(Severity.of(new EngineEvent.ActionFinished(T0, "probe-1", "probe", EngineEvent.Status.FAILED, "boom")))
                .isEqualTo(Severity.ERROR);
        assertThat(Severity.of(new EngineEvent.ConnectionChanged(T0, "http://h:1/", false, false, "lost")))
                .isEqualTo(Severity.WARNING);
        dev.kiln.core.store.StoreKey key = dev.kiln.core.store.StoreKey.seed("py312", "abc0123456789");
        assertThat(Severity.of(dev.kiln.core.store.StoreEvent.failed(T0, dev.kiln.core.store.StoreEvent.Operation.PUSH, key,
                Duration.ofSeconds(2), "s3://b/p: PUT … failed 4 times"))).isEqualTo(Severity.ERROR);
        assertThat(Severity.of(dev.kiln.core.store.StoreEvent.started(T0, dev.kiln.core.store.StoreEvent.Operation.PULL, key)))
                .isEqualTo(Severity.INFO);
        assertThat(Severity.ERROR.word()).isEqualTo("error");
        assertThat(Severity.WARNING.styleClass()).isEqualTo("kiln-severity-warning");
    }

    @Test
    void accept_warmOutput_foldsUnderItsWarmWhoseFinishGivesTheRowItsSeverity() {
        EventsViewModel vm = new EventsViewModel();
        vm.accept(List.of(new SeedEvent.WarmStarted(T0, "py312", "abc", List.of("uv", "sync"), 42),
                new SeedEvent.WarmOutput(T0.plusSeconds(1), "py312", "Resolved 3 packages", false)));
        vm.accept(List.of(new SeedEvent.WarmOutput(T0.plusSeconds(2), "py312", "error: no wheel for foo", true),
                new SeedEvent.WarmOutput(T0.plusSeconds(3), "py312", "Prepared 2 packages", false)));

        assertThat(vm.rows()).hasSize(1); // not one row per line: the warm's row holds them
        assertThat(vm.rows().get(0).output()).containsExactly("Resolved 3 packages", "stderr: error: no wheel for foo",
                "Prepared 2 packages");
        assertThat(vm.rows().get(0).severity()).isEqualTo(Severity.INFO); // still running

        vm.accept(List.of(new SeedEvent.WarmFinished(T0.plusSeconds(9), result(WarmOutcome.FAILED)),
                new ArchiveEvent.BuildFailed(T0.plusSeconds(10), java.nio.file.Path.of("src"), "too large", dev.kiln.core.archive.ArchiveCacheStats.empty())));

        assertThat(vm.rows()).hasSize(2);
        EventRow warm = vm.rows().get(1);
        assertThat(warm.severity()).isEqualTo(Severity.ERROR);
        assertThat(warm.summary()).contains("py312");
        assertThat(warm.output()).hasSize(3);
        assertThat(vm.rows().get(0).severity()).isEqualTo(Severity.ERROR);
    }

    @Test
    void accept_outputOfAWarmStartedBeforeTheConsoleLooked_getsARowOfItsOwn() {
        EventsViewModel vm = new EventsViewModel();
        vm.accept(List.of(new SeedEvent.WarmOutput(T0, "py312", "Resolved 3 packages", false),
                new SeedEvent.WarmOutput(T0, "py312", "Prepared 3 packages", false)));
        assertThat(vm.rows()).singleElement().satisfies(r -> {
            assertThat(r.summary()).isEqualTo("output of the warm of py312");
            assertThat(r.output()).hasSize(2);
        });
    }

    @Test
    void accept_replayJump_showsTheEventsThatLedThereInsteadOfWhatWasShown() {
        EventsViewModel vm = new EventsViewModel();
        vm.accept(List.of(new ArchiveEvent.BuildFailed(T0, java.nio.file.Path.of("src"), "before the jump", dev.kiln.core.archive.ArchiveCacheStats.empty())));
        List<KilnEvent> recent = new ArrayList<>();
        recent.add(new EngineEvent.ConnectionChanged(T0.plusSeconds(60), "http://h:1/", false, false, "lost the daemon"));
        vm.accept(List.of(new ReplayMoved(T0.plusSeconds(61), T0.plusSeconds(61), T0, T0.plusSeconds(3600), false, 60, true,
                recent)));
        assertThat(vm.rows()).singleElement().satisfies(r -> {
            assertThat(r.summary()).contains("lost the daemon");
            assertThat(r.severity()).isEqualTo(Severity.WARNING);
        });
    }
}
