package dev.kiln.ui.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a chart answers without a window: the point under the pointer, its values, gaps, zoom and the time axis. */
class ChartDataTest {
    private static final long T0 = Instant.parse("2026-01-05T09:00:00Z").toEpochMilli();
    private static final double NAN = Double.NaN;
    private static final ZoneId UTC = ZoneOffset.UTC;

    /** Six points a second apart; "hits" saw nothing for the first two (before the console was open). */
    private static ChartData sample() {
        long[] at = new long[6];
        for (int i = 0; i < at.length; i++) {
            at[i] = T0 + i * 1000L;
        }
        return ChartData.of(at, new double[][] {
            {NAN, NAN, 50, 75.5, NAN, 100},
            {1, 2, 3, 4, 5, 6},
        });
    }

    @Test
    void nearest_pointClosestToTheTime_onlyWithinTheWindow() {
        ChartData d = sample();
        assertThat(d.nearest(T0 + 2400, T0, T0 + 5000)).isEqualTo(2);
        assertThat(d.nearest(T0 + 2600, T0, T0 + 5000)).isEqualTo(3);
        assertThat(d.nearest(T0 - 9999, T0, T0 + 5000)).isZero();
        // zoomed to 3..5 s: a time left of it still finds the first point inside
        assertThat(d.nearest(T0, T0 + 3000, T0 + 5000)).isEqualTo(3);
        assertThat(d.nearest(T0, T0 + 10_000, T0 + 20_000)).isEqualTo(-1);
    }

    @Test
    void describe_theTimeAndEveryShownSeriesExactly_noDataForAGap() {
        ChartData d = sample();
        List<String> names = List.of("hits", "ticks");
        assertThat(d.describe(3, names, new boolean[] {true, true}, UTC)).isEqualTo("2026-01-05 09:00:03\nhits: 75.5\nticks: 4");
        assertThat(d.describe(0, names, new boolean[] {true, true}, UTC)).isEqualTo("2026-01-05 09:00:00\nhits: no data\nticks: 1");
        assertThat(d.describe(3, names, new boolean[] {false, true}, UTC)).isEqualTo("2026-01-05 09:00:03\nticks: 4");
        assertThat(ChartData.exact(1234567)).isEqualTo("1,234,567");
        assertThat(ChartData.exact(0.125)).isEqualTo("0.125");
        assertThat(ChartData.exact(2.0 / 3)).isEqualTo("0.667");
    }

    @Test
    void runs_breakAtEveryGap_soNothingIsDrawnAsZero() {
        ChartData d = sample();
        assertThat(d.runs(0, T0, T0 + 5000)).containsExactly(new int[] {2, 3}, new int[] {5, 5});
        assertThat(d.runs(1, T0, T0 + 5000)).containsExactly(new int[] {0, 5});
        assertThat(d.runs(1, T0 + 1000, T0 + 3000)).containsExactly(new int[] {1, 3}); // zoomed
        assertThat(d.runs(0, T0, T0 + 1000)).isEmpty();
    }

    @Test
    void max_ofShownSeriesInTheWindow_stackedSums_hiddenSeriesDoNotScaleTheAxis() {
        ChartData d = sample();
        assertThat(d.max(new boolean[] {true, true}, false, T0, T0 + 5000)).isEqualTo(100);
        assertThat(d.max(new boolean[] {false, true}, false, T0, T0 + 5000)).isEqualTo(6);
        assertThat(d.max(new boolean[] {true, true}, true, T0, T0 + 5000)).isEqualTo(106);
        assertThat(d.max(new boolean[] {true, true}, false, T0, T0 + 3000)).isEqualTo(75.5); // zoomed
        assertThat(d.max(new boolean[] {true, false}, false, T0, T0 + 1000)).isZero(); // only gaps: nothing
    }

    @Test
    void of_rejectsSeriesOfAnotherLengthAndPointsOutOfOrder() {
        assertThatThrownBy(() -> ChartData.of(new long[] {1, 2}, new double[][] {{1}})).hasMessageContaining("1 values for 2 points");
        assertThatThrownBy(() -> ChartData.of(new long[] {2, 1}, new double[][] {{1, 2}})).hasMessageContaining("oldest first");
    }

    @Test
    void zoom_aDragEitherWay_tooNarrowIsNoZoom() {
        assertThat(ChartZoom.dragged(T0 + 5000, T0 + 2000)).contains(new ChartZoom(T0 + 2000, T0 + 5000));
        assertThat(ChartZoom.dragged(T0, T0 + 999)).isEmpty();
        assertThatThrownBy(() -> new ChartZoom(T0, T0)).hasMessageContaining("at least");
    }

    @Test
    void ticks_wholeWallClockTimes_inOneTwoFiveSteps() {
        assertThat(ChartData.tickSeconds(60_000)).isEqualTo(10);
        assertThat(ChartData.tickSeconds(600_000)).isEqualTo(120);
        assertThat(ChartData.tickSeconds(3_600_000)).isEqualTo(600);
        assertThat(ChartData.tickSeconds(5_000)).isEqualTo(1);
        long from = T0 + 3_500; // 09:00:03.5 .. 09:01:03.5
        long[] ticks = ChartData.ticks(from, from + 60_000, UTC);
        assertThat(ticks).containsExactly(T0 + 10_000, T0 + 20_000, T0 + 30_000, T0 + 40_000, T0 + 50_000, T0 + 60_000);
        assertThat(ChartData.tickLabel(ticks[0], 60_000, UTC)).isEqualTo("09:00:10");
        assertThat(ChartData.tickLabel(T0 + 600_000, 3_600_000, UTC)).isEqualTo("09:10");
        // a zone half an hour off UTC: ticks still fall on its whole ten minutes
        ZoneId india = ZoneId.of("Asia/Kolkata");
        long[] local = ChartData.ticks(T0, T0 + 3_600_000, india);
        assertThat(ChartData.tickLabel(local[0], 3_600_000, india)).endsWith("0");
        assertThat(Instant.ofEpochMilli(local[0]).atZone(india).getMinute() % 10).isZero();
    }
}
