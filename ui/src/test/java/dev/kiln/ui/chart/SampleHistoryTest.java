package dev.kiln.ui.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The samples behind every live chart: bounded, and folded into a window's buckets. */
class SampleHistoryTest {
    private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void keepsOnlyTheKeptSpan_andAtMostMaxSamples() {
        SampleHistory<Integer> h = new SampleHistory<>(Duration.ofMinutes(1), 3);
        h.add(T, 1);
        h.add(T.plusSeconds(61), 2); // the first is now older than a minute
        assertThat(h.size()).isEqualTo(1);
        h.add(T.plusSeconds(62), 3);
        h.add(T.plusSeconds(63), 4);
        h.add(T.plusSeconds(64), 5);
        assertThat(h.size()).isEqualTo(3);
        assertThat(h.latest()).isEqualTo(5);
    }

    @Test
    void buckets_edgesFallInTheOlderBucket_skewInTheNewest_startInNone() {
        SampleHistory<String> h = new SampleHistory<>(Duration.ofHours(1), 100);
        h.add(T.minusSeconds(60), "window start");
        h.add(T.minusSeconds(30), "30 s ago");
        h.add(T.minusSeconds(10), "10 s ago");
        h.add(T.minusMillis(9_500), "9.5 s ago");
        h.add(T.plusSeconds(2), "future");
        List<List<String>> b = h.buckets(Duration.ofMinutes(1), 6, T);
        assertThat(b).hasSize(6);
        assertThat(b.get(0)).isEmpty(); // 60 s ago is the window's start: outside
        assertThat(b.get(2)).containsExactly("30 s ago"); // ages [30 s, 40 s)
        assertThat(b.get(4)).containsExactly("10 s ago"); // exactly one width old: the older bucket
        assertThat(b.get(5)).containsExactly("9.5 s ago", "future");
        assertThat(SampleHistory.secondsAgo(Duration.ofMinutes(1), 6, 0)).isEqualTo(50);
        assertThat(SampleHistory.secondsAgo(Duration.ofMinutes(1), 6, 5)).isZero();
    }

    @Test
    void badBounds_areRejectedWithWhy() {
        assertThatThrownBy(() -> new SampleHistory<>(Duration.ZERO, 1)).hasMessageContaining("positive time");
        assertThatThrownBy(() -> new SampleHistory<>(Duration.ofSeconds(1), 0)).hasMessageContaining("at least one sample");
    }

    @Test
    void observedFrom_theFirstSampleOrAnEarlierStart_nullBefore() {
        SampleHistory<String> h = new SampleHistory<>(Duration.ofMinutes(1), 10);
        assertThat(h.observedFrom()).isNull();
        Instant t0 = Instant.parse("2026-01-05T09:00:00Z");
        h.add(t0.plusSeconds(5), "a");
        assertThat(h.observedFrom()).isEqualTo(t0.plusSeconds(5));
        h.observeFrom(t0); // the page opened before its first sample
        assertThat(h.observedFrom()).isEqualTo(t0);
        h.observeFrom(t0.plusSeconds(30)); // a later start does not forget what was watched
        assertThat(h.observedFrom()).isEqualTo(t0);
        for (int i = 0; i < 20; i++) {
            h.add(t0.plusSeconds(100 + i), "b"); // the first samples dropped: still watched since t0
        }
        assertThat(h.observedFrom()).isEqualTo(t0);
    }

    @Test
    void roundScale_yAxisInOneTwoFiveSteps_unchangedWhileValuesStayUnderIt() {
        assertThat(LiveCharts.roundScale(0)).containsExactly(1, 1); // nothing yet: 0..1, not a collapsed axis
        assertThat(LiveCharts.roundScale(Double.NaN)).containsExactly(1, 1);
        assertThat(LiveCharts.roundScale(1)).containsExactly(1, 0.5);
        assertThat(LiveCharts.roundScale(3)).containsExactly(5, 1);
        assertThat(LiveCharts.roundScale(17)).containsExactly(20, 5);
        assertThat(LiveCharts.roundScale(492)).containsExactly(500, 100);
        assertThat(LiveCharts.roundScale(501)).containsExactly(1000, 500);
        assertThat(LiveCharts.roundScale(0.03)).containsExactly(0.05, 0.01);
        // Values moving within a step keep the axis as it is, so it is not laid out again.
        assertThat(LiveCharts.roundScale(104)).containsExactly(LiveCharts.roundScale(180));
    }

    @Test
    void axisLabels_readAtAGlance() {
        assertThat(TrendChart.number(0)).isEqualTo("0");
        assertThat(TrendChart.number(2500)).isEqualTo("2,500");
        assertThat(TrendChart.number(0.5)).isEqualTo("0.5");
        assertThat(TrendChart.number(0.01)).isEqualTo("0.01");
    }
}
