package dev.kiln.core.serve;

import static dev.kiln.testkit.Await.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.projection.DaemonMetrics;
import dev.kiln.core.projection.TickRecord;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.watch.ChangeDomain;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.telemetry.Ticker;
import dev.kiln.core.watch.WatchStatus;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The loop on its real thread with tiny intervals; assertions are on what ran and why, never on timing. */
class ProjectionLoopTest {
    private static final WatchStatus LIVE = new WatchStatus(true, "", java.time.Instant.EPOCH, List.of(), 1, 1);

    record Call(WakeReason reason, ChangeSet changes, boolean full) {
    }

    /** Every thread that ran a projection: once all are dead, none can run another. */
    private final Set<Thread> projectingThreads = ConcurrentHashMap.newKeySet();

    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final AtomicBoolean fail = new AtomicBoolean();
    private ProjectionLoop loop;

    private ProjectionLoop start(Duration interval, Duration reconcile) {
        loop = new ProjectionLoop(Ticker.systemTicker(), Clock.systemUTC(),
                new ChangePacer.Settings(Duration.ofMillis(1), interval, Duration.ofHours(1)), reconcile, (reason, changes, full) -> {
                    projectingThreads.add(Thread.currentThread());
                    calls.add(new Call(reason, changes, full));
                    if (fail.get()) {
                        throw new IllegalStateException("disk on fire");
                    }
                    return new ProjectionLoop.TickOutcome(calls.size(), true, Map.of("parsed", 1L));
                });
        loop.onLive(LIVE);
        return loop.start();
    }

    @AfterEach
    void close() {
        if (loop != null) {
            loop.close();
        }
    }

    @Test
    void start_firstTick_startupFull() throws Exception {
        start(Duration.ofMillis(10), Duration.ofMinutes(5));
        await("startup", () -> !calls.isEmpty());
        assertThat(calls.get(0)).isEqualTo(new Call(WakeReason.STARTUP, ChangeSet.empty(), true));
    }

    @Test
    void onChange_whileLive_incrementalTickWithTheNamedPaths() throws Exception {
        start(Duration.ofMillis(10), Duration.ofMinutes(5));
        await("startup", () -> calls.size() == 1);
        Path p = Path.of("/ws/tasks/a/contract.json");
        loop.onChange(ChangeDomain.CONTRACTS, p);
        await("the change tick", () -> calls.size() == 2);
        Call c = calls.get(1);
        assertThat(c.reason()).isEqualTo(WakeReason.CHANGE);
        assertThat(c.full()).isFalse();
        assertThat(c.changes().paths(ChangeDomain.CONTRACTS)).containsExactly(p);
    }

    @Test
    void onChange_reconcileIntervalElapsed_fullEnumeration() throws Exception {
        start(Duration.ofMillis(10), Duration.ofNanos(1));
        await("startup", () -> calls.size() == 1);
        loop.onChange(ChangeDomain.CONTRACTS, Path.of("/ws/tasks/a/contract.json"));
        await("the change tick", () -> calls.size() == 2);
        assertThat(calls.get(1).full()).isTrue();
    }

    @Test
    void onDegraded_fixedIntervalFullTicksThenReconcileWhenLive() throws Exception {
        start(Duration.ofMillis(10), Duration.ofMinutes(5));
        await("startup", () -> calls.size() == 1);
        loop.onDegraded(new WatchStatus(false, "tasks/ was deleted", java.time.Instant.EPOCH, List.of(), 0, 1));
        await("degraded ticks", () -> calls.stream().filter(c -> c.reason() == WakeReason.DEGRADED).count() >= 2);
        assertThat(calls.stream().filter(c -> c.reason() == WakeReason.DEGRADED)).allMatch(Call::full);
        assertThat(calls.stream().filter(c -> c.reason() == WakeReason.DEGRADED).findFirst().orElseThrow().changes().everything())
                .as("events may have been lost").isTrue();
        loop.onLive(LIVE);
        await("reconcile", () -> calls.stream().anyMatch(c -> c.reason() == WakeReason.RECONCILE));
        assertThat(calls.stream().filter(c -> c.reason() == WakeReason.RECONCILE)).allMatch(Call::full);
    }

    @Test
    void requestManual_futureCompletesWithTheManualTick() throws Exception {
        start(Duration.ofMillis(10), Duration.ofMinutes(5));
        TickRecord t = loop.requestManual().get(20, TimeUnit.SECONDS);
        assertThat(t.reason()).isIn(WakeReason.MANUAL, WakeReason.STARTUP);
        TickRecord again = loop.requestManual().get(20, TimeUnit.SECONDS);
        assertThat(again.reason()).isEqualTo(WakeReason.MANUAL);
        assertThat(again.full()).isTrue();
        assertThat(loop.metrics().byReason().get(WakeReason.MANUAL)).isGreaterThanOrEqualTo(1);
    }

    @Test
    void tick_projectionThrows_recordedAndTheNextTickIsFull() throws Exception {
        start(Duration.ofMillis(10), Duration.ofMinutes(5));
        await("startup", () -> calls.size() == 1);
        fail.set(true);
        loop.onChange(ChangeDomain.CONTRACTS, Path.of("/ws/tasks/a/contract.json"));
        await("the failing tick", () -> calls.size() == 2);
        fail.set(false);
        await("recorded", () -> loop.metrics().last().map(r -> !r.error().isEmpty()).orElse(false));
        assertThat(loop.metrics().last().orElseThrow().error()).contains("disk on fire");
        loop.onChange(ChangeDomain.CONTRACTS, Path.of("/ws/tasks/b/contract.json"));
        await("the next tick", () -> calls.size() == 3);
        assertThat(calls.get(2).full()).as("after a failure nothing incremental is trusted").isTrue();
    }

    @Test
    void metrics_manyTicks_historyBoundedAndCountsPerReason() throws Exception {
        start(Duration.ofMillis(1), Duration.ofMinutes(5));
        loop.onDegraded(new WatchStatus(false, "test", java.time.Instant.EPOCH, List.of(), 0, 1));
        await("600 ticks", () -> loop.metrics().projections() >= 600);
        DaemonMetrics m = loop.metrics();
        assertThat(m.history()).hasSize(ProjectionLoop.HISTORY);
        assertThat(m.byReason().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(m.projections());
        assertThat(m.history().get(m.history().size() - 1).seq()).isEqualTo(m.projections());
        assertThat(m.live()).isFalse();
    }

    @Test
    void close_stopsTheLoop() throws Exception {
        start(Duration.ofMillis(1), Duration.ofMinutes(5));
        loop.onDegraded(new WatchStatus(false, "test", java.time.Instant.EPOCH, List.of(), 0, 1));
        await("some ticks", () -> calls.size() > 3);
        loop.close();
        // No sleep-and-hope: close returns only after the loop thread ended, and a dead thread projects nothing.
        assertThat(projectingThreads).isNotEmpty().noneMatch(Thread::isAlive);
        int n = calls.size();
        assertThat(loop.requestManual()).isCompletedExceptionally();
        loop.onChange(ChangeDomain.CONTRACTS, Path.of("/ws/tasks/late/contract.json"));
        assertThat(calls).hasSize(n);
    }

    @Test
    void onTick_seesEveryTickAndAFailingListenerStopsNothing() throws Exception {
        List<TickRecord> seen = new CopyOnWriteArrayList<>();
        loop = new ProjectionLoop(System::nanoTime, Clock.systemUTC(),
                new ChangePacer.Settings(Duration.ofMillis(1), Duration.ofMillis(10), Duration.ofHours(1)), Duration.ofMinutes(5),
                (reason, changes, full) -> new ProjectionLoop.TickOutcome(1, true, Map.of("parsed", 1L)), r -> {
                    seen.add(r);
                    throw new IllegalStateException("a broken listener");
                });
        loop.onLive(LIVE);
        loop.start();
        TickRecord first = loop.requestManual().get(20, TimeUnit.SECONDS);
        loop.onChange(ChangeDomain.CONTRACTS, Path.of("/ws/tasks/a/contract.json"));
        await("the change tick", () -> seen.stream().anyMatch(r -> r.reason() == WakeReason.CHANGE));
        assertThat(seen.get(0).seq()).isEqualTo(1);
        assertThat(seen).extracting(TickRecord::seq).isSorted().doesNotHaveDuplicates();
        assertThat(seen).contains(first);
        assertThat(loop.metrics().projections()).isEqualTo(seen.size());
    }
}
