package dev.kiln.ui.projection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.snapshot.SnapshotStats;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The charts' windowing: which tick lands in which bucket, and what is forgotten. */
class ChartSeriesTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    private static TickResult tick(Instant at, WakeReason reason, double millis, int parsed, int reused, boolean changed) {
        return new TickResult(reason, at, 1, changed, parsed + reused, 0, new SnapshotStats(parsed + reused, parsed, reused, 0, 0, 0),
                (long) (millis * 1e6), List.of(), null);
    }

    @Test
    void buckets_oneMinute_sixtyOneSecondBuckets_newestLast() {
        ChartSeries s = new ChartSeries();
        s.add(tick(T0.minusMillis(59_500), WakeReason.STARTUP, 300, 100, 0, true));
        s.add(tick(T0.minusMillis(1_500), WakeReason.CHANGE, 4, 1, 99, true));
        s.add(tick(T0.minusMillis(1_200), WakeReason.HEARTBEAT, 7, 0, 100, false));
        s.add(tick(T0.minusMillis(200), WakeReason.MANUAL, 2, 0, 100, false));

        List<ChartSeries.Bucket> b = s.buckets(ChartWindow.ONE_MINUTE, T0);

        assertThat(b).hasSize(ChartWindow.BUCKETS);
        assertThat(b.get(0).secondsAgo()).isEqualTo(59.0);
        assertThat(b.get(59).secondsAgo()).isEqualTo(0.0);
        assertThat(b.get(0).ticks()).isEqualTo(1);
        assertThat(b.get(0).maxMillis()).isEqualTo(300.0);
        assertThat(b.get(58).ticks()).isEqualTo(2);
        assertThat(b.get(58).maxMillis()).isEqualTo(7.0);
        assertThat(b.get(58).parsed()).isEqualTo(1);
        assertThat(b.get(58).reused()).isEqualTo(199);
        assertThat(b.get(58).revisions()).isEqualTo(1);
        assertThat(b.get(58).reason(WakeReason.CHANGE)).isEqualTo(1);
        assertThat(b.get(58).reason(WakeReason.HEARTBEAT)).isEqualTo(1);
        assertThat(b.get(59).reason(WakeReason.MANUAL)).isEqualTo(1);
        assertThat(b.stream().mapToInt(ChartSeries.Bucket::ticks).sum()).isEqualTo(4);
    }

    @Test
    void buckets_tickOlderThanTheWindow_isLeftOut_butLongerWindowsShowIt() {
        ChartSeries s = new ChartSeries();
        s.add(tick(T0.minusSeconds(90), WakeReason.STARTUP, 10, 5, 0, true));
        s.add(tick(T0.minusSeconds(5), WakeReason.HEARTBEAT, 1, 0, 5, false));

        assertThat(s.buckets(ChartWindow.ONE_MINUTE, T0).stream().mapToInt(ChartSeries.Bucket::ticks).sum()).isEqualTo(1);
        List<ChartSeries.Bucket> ten = s.buckets(ChartWindow.TEN_MINUTES, T0);
        assertThat(ten.stream().mapToInt(ChartSeries.Bucket::ticks).sum()).isEqualTo(2);
        assertThat(ten.get(59 - 9).reason(WakeReason.STARTUP)).isEqualTo(1); // 90 s ago in 10 s buckets
        assertThat(ten.get(59).secondsAgo()).isZero();
        assertThat(ten.get(0).secondsAgo()).isEqualTo(590.0);
    }

    @Test
    void buckets_emptyBucketHasNoDuration_andFutureTicksGoToTheNewest() {
        ChartSeries s = new ChartSeries();
        s.add(tick(T0.plusSeconds(2), WakeReason.CHANGE, 3, 1, 0, true)); // a clock that stepped back

        List<ChartSeries.Bucket> b = s.buckets(ChartWindow.ONE_MINUTE, T0);

        assertThat(b.get(59).ticks()).isEqualTo(1);
        assertThat(b.get(10).ticks()).isZero();
        assertThat(b.get(10).maxMillis()).isZero();
        assertThat(b.get(10).reasons()).isEmpty();
    }

    @Test
    void add_anHourOfOneTickPerSecond_keepsOnlyTheLongestWindow() {
        ChartSeries s = new ChartSeries();
        for (int i = 0; i < 3 * 3600; i++) {
            s.add(tick(T0.plusSeconds(i), WakeReason.HEARTBEAT, 1, 0, 1, false));
        }
        assertThat(s.size()).isBetween(3600, 3601);
    }

    @Test
    void add_aBurstFasterThanTenPerSecond_isCappedBySize() {
        ChartSeries s = new ChartSeries();
        for (int i = 0; i < ChartSeries.MAX_SAMPLES + 500; i++) {
            s.add(tick(T0.plusMillis(i), WakeReason.CHANGE, 1, 1, 0, true));
        }
        assertThat(s.size()).isEqualTo(ChartSeries.MAX_SAMPLES);
        assertThat(s.buckets(ChartWindow.ONE_MINUTE, T0.plusMillis(ChartSeries.MAX_SAMPLES + 500)).stream()
                .mapToInt(ChartSeries.Bucket::ticks).sum()).isEqualTo(ChartSeries.MAX_SAMPLES);
    }

    @Test
    void window_bucketWidths() {
        assertThat(ChartWindow.ONE_MINUTE.bucket()).isEqualTo(Duration.ofSeconds(1));
        assertThat(ChartWindow.TEN_MINUTES.bucket()).isEqualTo(Duration.ofSeconds(10));
        assertThat(ChartWindow.ONE_HOUR.bucket()).isEqualTo(Duration.ofMinutes(1));
    }
}
