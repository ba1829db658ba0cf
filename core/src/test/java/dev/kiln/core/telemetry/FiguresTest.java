package dev.kiln.core.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FiguresTest {

    @Test
    void median_oddCount_middleValueInAnyOrder() {
        assertThat(Figures.median(new double[] {9, 1, 5})).isEqualTo(5);
        assertThat(Figures.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2);
    }

    @Test
    void median_evenCount_meanOfTheMiddleTwo() {
        assertThat(Figures.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
    }

    @Test
    void median_doesNotReorderTheCallersArray() {
        double[] v = {3, 1, 2};
        Figures.median(v);
        assertThat(v).containsExactly(3, 1, 2);
    }

    @Test
    void medianMillis_nanosecondSamples_inMilliseconds() {
        assertThat(Figures.medianMillis(new long[] {3_000_000, 1_000_000, 2_500_000})).isEqualTo(2.5);
    }

    @Test
    void median_noValues_rejected() {
        assertThatThrownBy(() -> Figures.median(new double[0])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void percentile_nearestRank() {
        List<Integer> v = List.of(20, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19);
        assertThat(Figures.percentile(v, 50)).isEqualTo(10);
        assertThat(Figures.percentile(v, 95)).isEqualTo(19);
        assertThat(Figures.percentile(v, 100)).isEqualTo(20);
        assertThat(Figures.percentile(List.of(7), 95)).isEqualTo(7);
    }

    @Test
    void percentile_outOfRange_rejected() {
        assertThatThrownBy(() -> Figures.percentile(List.of(1), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Figures.percentile(List.of(), 50)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void round_halfUpToTheGivenDecimals() {
        assertThat(Figures.round(1.23456, 3)).isEqualTo(1.235);
        assertThat(Figures.round(1.23456, 2)).isEqualTo(1.23);
        assertThat(Figures.round(0.05, 1)).isEqualTo(0.1);
        assertThat(Figures.round(2.5, 0)).isEqualTo(3);
    }
}
