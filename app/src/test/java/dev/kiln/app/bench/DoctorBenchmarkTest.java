package dev.kiln.app.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The benchmark's figures are there and come from an up-to-date verdict (no wall-clock assertion). */
class DoctorBenchmarkTest {

    @Test
    void run_smallWorkspace_reportsTheFiguresOfAnUpToDateDiagnosis() {
        Map<String, Object> m = DoctorBenchmark.run(120, 1);

        assertThat(m).containsKeys("doctor_ms", "full_unchanged_tick_ms", "ratio", "cold_readonly_tick_ms");
        assertThat(m.get("verdict")).isEqualTo("up_to_date");
        assertThat((Integer) m.get("contracts")).isBetween(100, 120); // the demo plants one malformed contract
        assertThat((Double) m.get("doctor_ms")).isPositive();
        assertThat(m.get("tick_parses")).as("the baseline tick is an unchanged one").isEqualTo(0);
    }

    @Test
    void run_noContracts_refused() {
        assertThatThrownBy(() -> DoctorBenchmark.run(0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1");
    }
}
