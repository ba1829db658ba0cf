package dev.kiln.core.watch;

import dev.kiln.core.projection.WakeReason;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ChangePacerTest {
    private final FakeTicker clock = new FakeTicker();
    private ChangePacer pacer;

    @BeforeEach
    void liveAfterStartup() {
        pacer = new ChangePacer(clock, ChangePacer.Settings.defaults());
        pacer.onLive();
        assertThat(pacer.poll()).contains(WakeReason.STARTUP);
    }

    @Test
    void poll_firstCall_startupRightAway() {
        ChangePacer fresh = new ChangePacer(clock, ChangePacer.Settings.defaults());
        assertThat(fresh.nanosUntilDue()).isLessThanOrEqualTo(0);
        assertThat(fresh.poll()).contains(WakeReason.STARTUP);
    }

    @Test
    void onLive_establishedBeforeFirstTick_noReconcile() {
        ChangePacer fresh = new ChangePacer(clock, ChangePacer.Settings.defaults());
        fresh.onLive();
        assertThat(fresh.poll()).contains(WakeReason.STARTUP);
        clock.advanceMillis(1_000);
        assertThat(fresh.poll()).isEmpty();
        clock.advanceMillis(14_000);
        assertThat(fresh.poll()).contains(WakeReason.HEARTBEAT);
    }

    @Test
    void poll_burstOfEvents_oneProjectionSettleAfterTheLast() {
        clock.advanceMillis(2_000);
        for (int i = 0; i < 5; i++) {
            pacer.onChange();
            clock.advanceMillis(30);
        }
        // last event 30 ms ago: 70 ms of settle left
        assertThat(pacer.poll()).isEmpty();
        assertThat(pacer.nanosUntilDue()).isEqualTo(Duration.ofMillis(70).toNanos());
        clock.advanceMillis(69);
        assertThat(pacer.poll()).isEmpty();
        clock.advanceMillis(1);
        assertThat(pacer.poll()).contains(WakeReason.CHANGE);
        clock.advanceMillis(500);
        assertThat(pacer.poll()).as("the burst was consumed").isEmpty();
    }

    @Test
    void poll_continuousStream_projectedIntervalAfterTheFirstEvent() {
        clock.advanceMillis(5_000);
        List<Long> ticksAt = new ArrayList<>();
        // an event every 50 ms for 3.5 s: settle never elapses
        for (int ms = 0; ms <= 3_500; ms += 10) {
            if (ms % 50 == 0) {
                pacer.onChange();
            }
            if (pacer.poll().filter(r -> r == WakeReason.CHANGE).isPresent()) {
                ticksAt.add((long) ms);
            }
            clock.advanceMillis(10);
        }
        // each projection consumes the event polled with it; the next burst starts 50 ms later
        assertThat(ticksAt).containsExactly(1_000L, 2_050L, 3_100L);
    }

    @Test
    void poll_eventRightAfterAProjection_waitsForTheMinimumSpacing() {
        clock.advanceMillis(3_000);
        pacer.onChange();
        clock.advanceMillis(100);
        assertThat(pacer.poll()).contains(WakeReason.CHANGE);
        clock.advanceMillis(10);
        pacer.onChange();
        clock.advanceMillis(100);
        assertThat(pacer.poll()).as("settled, but only 110 ms after the last projection").isEmpty();
        assertThat(pacer.nanosUntilDue()).isEqualTo(Duration.ofMillis(890).toNanos());
        clock.advanceMillis(890);
        assertThat(pacer.poll()).contains(WakeReason.CHANGE);
    }

    @Test
    void poll_nothingChanges_heartbeatOnly() {
        List<WakeReason> reasons = new ArrayList<>();
        for (int s = 0; s < 60; s++) {
            clock.advanceMillis(1_000);
            pacer.poll().ifPresent(reasons::add);
        }
        assertThat(reasons).containsExactly(WakeReason.HEARTBEAT, WakeReason.HEARTBEAT, WakeReason.HEARTBEAT,
                WakeReason.HEARTBEAT);
        assertThat(pacer.nanosUntilDue()).isEqualTo(Duration.ofSeconds(15).toNanos());
    }

    @Test
    void poll_changeProjection_restartsTheHeartbeat() {
        clock.advanceMillis(10_000);
        pacer.onChange();
        clock.advanceMillis(100);
        assertThat(pacer.poll()).contains(WakeReason.CHANGE);
        clock.advanceMillis(14_999);
        assertThat(pacer.poll()).isEmpty();
        clock.advanceMillis(1);
        assertThat(pacer.poll()).contains(WakeReason.HEARTBEAT);
    }

    @Test
    void poll_degraded_fixedIntervalAndEventsIgnored() {
        pacer.onDegraded();
        List<WakeReason> reasons = new ArrayList<>();
        for (int ms = 0; ms < 3_000; ms += 10) {
            clock.advanceMillis(10);
            pacer.onChange();
            pacer.poll().ifPresent(reasons::add);
        }
        assertThat(reasons).containsExactly(WakeReason.DEGRADED, WakeReason.DEGRADED, WakeReason.DEGRADED);
    }

    @Test
    void poll_newPacer_degradedUntilLive() {
        ChangePacer fresh = new ChangePacer(clock, ChangePacer.Settings.defaults());
        assertThat(fresh.poll()).contains(WakeReason.STARTUP);
        assertThat(fresh.isLive()).isFalse();
        clock.advanceMillis(1_000);
        assertThat(fresh.poll()).contains(WakeReason.DEGRADED);
    }

    @Test
    void onLive_afterDegraded_oneReconcileThenQuiet() {
        pacer.onDegraded();
        clock.advanceMillis(1_000);
        assertThat(pacer.poll()).contains(WakeReason.DEGRADED);
        clock.advanceMillis(300);
        pacer.onLive();
        assertThat(pacer.poll()).as("spacing still applies").isEmpty();
        clock.advanceMillis(700);
        assertThat(pacer.poll()).contains(WakeReason.RECONCILE);
        clock.advanceMillis(5_000);
        assertThat(pacer.poll()).isEmpty();
    }

    @Test
    void requestManual_honoursSpacingAndWinsOverAPendingBurst() {
        clock.advanceMillis(200);
        pacer.onChange();
        pacer.requestManual();
        assertThat(pacer.poll()).isEmpty();
        clock.advanceMillis(800);
        assertThat(pacer.poll()).contains(WakeReason.MANUAL);
        clock.advanceMillis(1_000);
        assertThat(pacer.poll()).as("the burst was covered by the manual projection").isEmpty();
    }

    @Test
    void poll_thousandEventsOverOneAndAHalfSeconds_twoProjections() {
        clock.advanceMillis(20_000);
        assertThat(pacer.poll()).contains(WakeReason.HEARTBEAT);
        clock.advanceMillis(5_000);
        int projections = 0;
        for (int i = 0; i < 1_000; i++) {
            pacer.onChange();
            clock.advance(Duration.ofNanos(1_500_000));
            projections += pacer.poll().isPresent() ? 1 : 0;
        }
        for (int ms = 0; ms < 3_000; ms += 5) {
            clock.advanceMillis(5);
            projections += pacer.poll().filter(r -> r == WakeReason.CHANGE).isPresent() ? 1 : 0;
        }
        assertThat(projections).isEqualTo(2);
    }

    @Test
    void settings_settleLongerThanInterval_rejected() {
        assertThatThrownBy(() -> new ChangePacer.Settings(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(15)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("settle");
        assertThatThrownBy(() -> new ChangePacer.Settings(Duration.ofMillis(100), Duration.ZERO, Duration.ofSeconds(15)))
                .hasMessageContaining("interval must be a positive duration");
    }

}
