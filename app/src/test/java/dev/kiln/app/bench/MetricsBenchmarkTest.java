package dev.kiln.app.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.testkit.DaemonTest;
import org.junit.jupiter.api.Test;

@DaemonTest
class MetricsBenchmarkTest {

    @Test
    void run_smallWorkspace_reportsEveryFigureOverRealTicksAndScrapes() throws Exception {
        ObjectNode r = new MetricsBenchmark(60, 3, 2, 1).run();

        assertThat(r.get("contracts").asInt()).isEqualTo(60);
        for (String f : new String[] {"scrape_ms_p50", "tick_ms_p50_quiet", "tick_ms_p50_scraped"}) {
            assertThat(r.get(f).asDouble()).as(f).isPositive();
        }
        // the exposition has no per-contract series: a few KiB whatever the workspace
        assertThat(r.get("scrape_bytes").asLong()).isBetween(2_000L, 32_000L);
        assertThat(r.get("ticks_per_condition").asInt()).isEqualTo(2);
    }

    @Test
    void rejectsCountsThatMeasureNothing() {
        assertThatThrownBy(() -> new MetricsBenchmark(60, 0, 2, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive scrapes");
    }
}
