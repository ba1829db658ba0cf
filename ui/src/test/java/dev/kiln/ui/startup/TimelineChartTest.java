package dev.kiln.ui.startup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The timeline's axis and figures, for people: 1-2-5 ticks, margins explained in words. */
class TimelineChartTest {

    @Test
    void tickStep_isOneTwoOrFiveTimesAPowerOfTen() {
        assertThat(TimelineChart.tickStep(1_000)).isEqualTo(200);
        assertThat(TimelineChart.tickStep(1_250)).isEqualTo(500);
        assertThat(TimelineChart.tickStep(2_100)).isEqualTo(500);
        assertThat(TimelineChart.tickStep(31_500)).isEqualTo(10_000);
        assertThat(TimelineChart.tickStep(420)).isEqualTo(100);
        for (double scale : new double[] {700, 1_000, 1_170, 1_560, 2_100, 4_400, 9_000, 31_500, 63_000}) {
            double step = TimelineChart.tickStep(scale);
            double mantissa = step / Math.pow(10, Math.floor(Math.log10(step)));
            assertThat(mantissa).as("step for " + scale).isIn(1.0, 2.0, 5.0);
            assertThat(scale / step).as("ticks for " + scale).isBetween(2.0, 8.0);
        }
    }

    @Test
    void tickLabel_msOnShortScales_secondsOnLongOnes() {
        List<String> shortScale = new ArrayList<>();
        for (int i = 0; i * 200 <= 1_000; i++) {
            shortScale.add(TimelineChart.tickLabel(i * 200, 200, 1_000));
        }
        assertThat(shortScale).containsExactly("0 ms", "200 ms", "400 ms", "600 ms", "800 ms", "1000 ms");
        assertThat(TimelineChart.tickLabel(1_500, 500, 2_100)).isEqualTo("1.5 s");
        assertThat(TimelineChart.tickLabel(20_000, 10_000, 31_500)).isEqualTo("20 s");
    }

    @Test
    void tail_marginFactorIsExplainedInWords_aLateServerSaysOver() {
        Lane quick = Lane.waiting("quick", 30_000).spawned(0).initialized(300).finished("ok", "");
        assertThat(TimelineChart.tail(quick)).isEqualTo("300 ms · ×100");
        assertThat(TimelineChart.tailTip(quick)).contains("×100.0 is its margin").contains("startup timeout (30 s) divided by that time");
        Lane late = Lane.waiting("late", 400).spawned(10).initialized(900).finished("ok", "");
        assertThat(TimelineChart.tail(late)).isEqualTo("890 ms · over");
        assertThat(TimelineChart.tailTip(late)).contains("over its startup timeout of 0.4 s");
    }

    @Test
    void height_holdsEveryLane_neverAScrollBoxOfFour() {
        assertThat(TimelineChart.heightFor(32)).isGreaterThan(32 * 19.0);
        assertThat(TimelineChart.heightFor(32)).isGreaterThan(TimelineChart.heightFor(12));
    }

    @Test
    void badFirst_putsFailedAndLateServersAtTheTop_inTheirOrder() {
        List<Lane> lanes = new ArrayList<>(List.of(
                Lane.waiting("a", 30_000).spawned(0).initialized(300).finished("ok", ""),
                Lane.waiting("late", 400).spawned(0).initialized(900).finished("ok", ""),
                Lane.waiting("b", 30_000).spawned(0).initialized(300).finished("ok", ""),
                Lane.waiting("dead", 30_000).spawned(0).finished("exited(1)", "exited")));
        lanes.sort(StartupViewModel.BAD_FIRST);
        assertThat(lanes).extracting(Lane::server).containsExactly("late", "dead", "a", "b");
    }
}
