package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.snapshot.SnapshotStats;
import dev.kiln.core.startup.ProbeEvent;
import dev.kiln.core.watch.WatchChanged;
import dev.kiln.core.watch.WatchStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which events notify: finished long actions and failures, each transition once. */
class NoticesTest {
    private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

    private static WatchChanged watch(boolean live) {
        return new WatchChanged(T, new WatchStatus(live, live ? "" : "watched root was deleted", T, List.of(), 0, 8192));
    }

    private static TickFinished tick(String writeError) {
        return new TickFinished(T, new TickResult(WakeReason.HEARTBEAT, T, 3, false, 1, 0, SnapshotStats.empty(), 1, List.of(), writeError));
    }

    private static dev.kiln.core.engine.EngineEvent.ConnectionChanged connection(boolean connected) {
        return new dev.kiln.core.engine.EngineEvent.ConnectionChanged(T, "http://127.0.0.1:7117/", connected, false,
                connected ? "connected to the daemon at http://127.0.0.1:7117/" : "lost the daemon at http://127.0.0.1:7117/ (refused)");
    }

    @Test
    void fleetAlerts_oneNoticePerRule_namingTheDaemons() {
        dev.kiln.core.alert.AlertRule stale = dev.kiln.core.alert.AlertRules.defaults().stream()
                .filter(r -> r.name().equals("KilnSeedStale")).findFirst().orElseThrow();
        dev.kiln.core.alert.AlertRule failures = dev.kiln.core.alert.AlertRules.defaults().stream()
                .filter(r -> r.name().equals("KilnContractFailures")).findFirst().orElseThrow();
        java.util.function.BiFunction<String, dev.kiln.core.alert.AlertRule, dev.kiln.ui.fleet.FleetViewModel.Fired> fired =
                (d, r) -> new dev.kiln.ui.fleet.FleetViewModel.Fired(d, new dev.kiln.core.alert.AlertFired(T,
                        new dev.kiln.core.alert.Alert(r, true, T, 1)));
        List<Notices.Notice> out = Notices.fleetAlerts(List.of(fired.apply("fleet-01", stale), fired.apply("eval-1", failures),
                fired.apply("fleet-02", stale)));
        assertThat(out).extracting(Notices.Notice::kind).containsOnly(Notices.Kind.ALERT);
        assertThat(out).extracting(Notices.Notice::title)
                .containsExactly("Alert KilnSeedStale firing on 2 daemons", "Alert KilnContractFailures firing on eval-1");
        assertThat(out.get(0).text()).contains("(fleet-01, fleet-02)").endsWith("see the Fleet page");
        assertThat(Notices.fleetAlerts(List.of())).isEmpty();
    }

    @Test
    void attachedDaemon_lostOnce_thenBack() {
        Notices n = new Notices();
        assertThat(n.accept(List.of(connection(true)))).isEmpty(); // the first connection is no news
        assertThat(n.accept(List.of(connection(false), connection(false)))).singleElement().satisfies(x -> {
            assertThat(x.kind()).isEqualTo(Notices.Kind.FAILED);
            assertThat(x.title()).isEqualTo("Daemon unreachable");
            assertThat(x.text()).startsWith("lost the daemon at http://127.0.0.1:7117/").contains("catch up by themselves");
        });
        assertThat(n.accept(List.of(connection(true)))).singleElement().satisfies(x -> {
            assertThat(x.kind()).isEqualTo(Notices.Kind.DONE);
            assertThat(x.title()).isEqualTo("Daemon back");
        });
    }

    @Test
    void watch_degradedOnce_thenLiveAgain() {
        Notices n = new Notices();
        assertThat(n.accept(List.of(watch(true)))).isEmpty(); // live from the start is no news
        assertThat(n.accept(List.of(watch(false), watch(false)))).singleElement().satisfies(x -> {
            assertThat(x.kind()).isEqualTo(Notices.Kind.FAILED);
            assertThat(x.title()).isEqualTo("Watch degraded");
            assertThat(x.text()).startsWith("watched root was deleted");
        });
        assertThat(n.accept(List.of(watch(true)))).extracting(Notices.Notice::title).containsExactly("Watch live again");
    }

    @Test
    void stateWriteError_notifiesOnceUntilItIsWrittenAgain() {
        Notices n = new Notices();
        assertThat(n.accept(List.of(tick(null)))).isEmpty();
        assertThat(n.accept(List.of(tick("disk full"), tick("disk full")))).extracting(Notices.Notice::kind).containsExactly(Notices.Kind.FAILED);
        assertThat(n.accept(List.of(tick(null)))).extracting(Notices.Notice::title).containsExactly("state.json written again");
    }

    @Test
    void warmFinished_successAndFailureBothNotify() {
        Notices n = new Notices();
        WarmResult ok = new WarmResult("api", WarmOutcome.values()[0], "h", T, Duration.ofSeconds(3), 10, 2, "warmed", List.of());
        List<Notices.Notice> got = n.accept(List.of(new SeedEvent.WarmFinished(T, ok)));
        assertThat(got).singleElement().satisfies(x -> {
            assertThat(x.title()).isEqualTo("Warm of api " + ok.outcome().label());
            assertThat(x.kind()).isEqualTo(ok.outcome().isSuccess() ? Notices.Kind.DONE : Notices.Kind.FAILED);
        });
        WarmOutcome bad = java.util.Arrays.stream(WarmOutcome.values()).filter(o -> !o.isSuccess()).findFirst().orElseThrow();
        assertThat(n.accept(List.of(new SeedEvent.WarmFinished(T, new WarmResult("api", bad, "h", T, Duration.ZERO, 0, 0, "uv missing", List.of())))))
                .extracting(Notices.Notice::kind).containsExactly(Notices.Kind.FAILED);
    }

    @Test
    void probe_notifiesWhenTheLastServerOfTheLastRunFinishes() {
        Notices n = new Notices();
        assertThat(n.accept(List.of(new ProbeEvent.RunStarted(T, 1, 2, 2), fin("a", 1), fin("b", 1)))).isEmpty();
        assertThat(n.accept(List.of(new ProbeEvent.RunStarted(T, 2, 2, 2), fin("a", 2)))).isEmpty();
        assertThat(n.accept(List.of(fin("b", 2)))).singleElement()
                .satisfies(x -> assertThat(x.text()).startsWith("2 servers × 2 runs"));
    }

    private static ProbeEvent.Finished fin(String server, int run) {
        return new ProbeEvent.Finished(T, server, run, null);
    }
}
