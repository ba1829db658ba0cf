package dev.kiln.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class ProjectionBenchmarkTest {

    @Test
    void run_smallWorkspace_parsesAllThenNoneThenOneAndReportsEveryFigure() {
        ProjectionBenchmark.Result r = ProjectionBenchmark.run(300, 1);

        assertThat(r.contracts()).isEqualTo(300);
        assertThat(r.parsesCold()).isEqualTo(300);
        assertThat(r.parsesUnchanged()).isZero();
        assertThat(r.parsesOneChanged()).isEqualTo(1);
        ObjectNode json = r.toJson();
        for (String f : new String[] {"stat_walk_ms", "cold_tick_ms", "unchanged_tick_ms", "one_changed_tick_ms", "reparse_all_tick_ms"}) {
            assertThat(json.get(f).asDouble()).as(f).isPositive();
        }
        assertThat(json.get("parses").get("cold").asInt()).isEqualTo(300);
        assertThat(json.get("ratios").has("unchanged_over_stat_walk")).isTrue();
    }
}
