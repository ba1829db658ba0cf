package dev.kiln.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The one table: each reason from its evidence, with its state; the verdict is the worst; docs/HEALTH.md agrees. */
class HealthRulesTest {
    private static HealthEvidence.Builder fresh() {
        return HealthEvidence.builder().projection(10, 0, List.of(), "").age(Optional.of(Duration.ofSeconds(1)),
                Duration.ofSeconds(15)).watch(true, false, "");
    }

    private static HealthEvidence.Probe probe(int over, int failed, long slowestMs, long timeoutMs) {
        return new HealthEvidence.Probe(2, over, failed, Optional.of("slow"), Optional.of(Duration.ofMillis(slowestMs)),
                Optional.of(Duration.ofMillis(timeoutMs)));
    }

    @Test
    void judge_freshLiveWorkspace_healthyWithNoReason() {
        HealthVerdict v = HealthRules.judge(fresh().build());
        assertThat(v.state()).isEqualTo(HealthState.HEALTHY);
        assertThat(v.reasons()).isEmpty();
        assertThat(v.headline()).isEqualTo("healthy");
    }

    @Test
    void judge_contractFailures_failingNamingTheFirstPaths() {
        HealthVerdict v = HealthRules.judge(fresh().projection(10, 7,
                List.of("tasks/a.json", "tasks/b.json", "tasks/c.json", "tasks/d.json", "tasks/e.json", "tasks/f.json"), "")
                .build());
        assertThat(v.state()).isEqualTo(HealthState.FAILING);
        assertThat(v.reasons()).singleElement().satisfies(r -> {
            assertThat(r.code()).isEqualTo("contract_failures");
            assertThat(r.message()).isEqualTo(
                    "7 contracts failed: tasks/a.json, tasks/b.json, tasks/c.json, tasks/d.json, tasks/e.json, …");
        });
    }

    @Test
    void judge_eachReason_hasTheStateOfItsRow() {
        record Case(String code, HealthEvidence evidence) {
        }
        List<Case> cases = List.of(
                new Case("projection_failed", fresh().projection(0, 0, List.of(), "boom").build()),
                new Case("projection_stale", fresh().age(Optional.of(Duration.ofSeconds(46)), Duration.ofSeconds(15)).build()),
                new Case("contract_failures", fresh().projection(3, 1, List.of("tasks/x.json"), "").build()),
                new Case("seed_failed", fresh().seeds(2, List.of("app"), List.of("app")).build()),
                new Case("probe_over_timeout", fresh().probe(Optional.of(probe(1, 0, 900, 500))).build()),
                new Case("probe_failed", fresh().probe(Optional.of(probe(0, 1, 100, 500))).build()),
                new Case("store_unreachable", fresh().storeError(Optional.of("connection refused")).build()),
                new Case("state_file_unwritable", fresh().stateFileError("No space left on device").build()),
                new Case("projection_pending", fresh().age(Optional.empty(), Duration.ofSeconds(15)).build()),
                new Case("watch_degraded", fresh().watch(false, false, "root deleted").build()),
                new Case("watch_polling", fresh().watch(true, true, "sysctl fs.inotify.max_user_watches=9").build()),
                new Case("seed_stale", fresh().seeds(2, List.of("app"), List.of()).build()),
                new Case("probe_near_timeout", fresh().probe(Optional.of(probe(0, 0, 420, 500))).build()));
        List<String> seen = new ArrayList<>();
        for (Case c : cases) {
            HealthVerdict v = HealthRules.judge(c.evidence());
            assertThat(v.reasons()).as(c.code()).extracting(HealthReason::code).containsExactly(c.code());
            assertThat(v.state()).as(c.code()).isEqualTo(HealthRules.stateOf(c.code()));
            seen.add(c.code());
        }
        seen.add(HealthRules.UNREACHABLE);
        assertThat(seen).as("every row is provoked here").containsExactlyInAnyOrderElementsOf(
                HealthRules.table().stream().map(HealthRules.Row::code).toList());
    }

    @Test
    void judge_probeBelowTheNearShare_noReason_andAtItDegraded() {
        assertThat(HealthRules.judge(fresh().probe(Optional.of(probe(0, 0, 399, 500))).build()).reasons()).isEmpty();
        assertThat(HealthRules.judge(fresh().probe(Optional.of(probe(0, 0, 400, 500))).build()).state())
                .isEqualTo(HealthState.DEGRADED);
    }

    @Test
    void judge_severalReasons_worstStateFirst() {
        HealthVerdict v = HealthRules.judge(fresh().watch(false, false, "lost").projection(1, 1, List.of("tasks/a.json"), "")
                .build());
        assertThat(v.state()).isEqualTo(HealthState.FAILING);
        assertThat(v.reasons()).extracting(HealthReason::code).containsExactly("contract_failures", "watch_degraded");
        assertThat(v.headline()).endsWith("(+1 more)");
    }

    @Test
    void unreachable_isFailing_andExitCodesFollowTheState() {
        HealthVerdict v = HealthVerdict.unreachable("connection refused");
        assertThat(v.state()).isEqualTo(HealthState.FAILING);
        assertThat(v.state().exitCode()).isEqualTo(2);
        assertThat(HealthState.DEGRADED.exitCode()).isEqualTo(1);
        assertThat(HealthState.HEALTHY.exitCode()).isZero();
    }

    @Test
    void verdict_stateNotTheWorstOfItsReasons_refused() {
        assertThatThrownBy(() -> new HealthVerdict(HealthState.HEALTHY,
                List.of(new HealthReason("contract_failures", HealthState.FAILING, "x"))))
                .hasMessageContaining("worst of its reasons");
    }

    @Test
    void docs_showTheSameTable() throws Exception {
        Path doc = Path.of("..", "docs", "HEALTH.md");
        String text = Files.readString(doc);
        for (HealthRules.Row r : HealthRules.table()) {
            assertThat(text).as("docs/HEALTH.md row of " + r.code())
                    .contains("| `" + r.code() + "` | " + r.state().wireName() + " | " + r.when() + " |");
        }
        long rows = text.lines().filter(l -> l.matches("\\| `[a-z_]+` \\| (healthy|degraded|failing) \\|.*")).count();
        assertThat(rows).as("no row in the docs that the code lacks").isEqualTo(HealthRules.table().size());
    }

    @Test
    void samples_nameKilnsMetricsAndTheVerdict() {
        var s = fresh().projection(3, 2, List.of(), "").build().samples();
        assertThat(s.get("kiln_projection_contract_failures")).containsExactly(2.0);
        assertThat(s.get("kiln_health{state=\"failing\"}")).containsExactly(1.0);
        assertThat(s.get("kiln_health{state=\"healthy\"}")).containsExactly(0.0);
        assertThat(s.get("kiln_health_reason{code=\"contract_failures\"}")).containsExactly(1.0);
        assertThat(s.get("kiln_projection_age_heartbeats").get(0)).isCloseTo(1.0 / 15, org.assertj.core.data.Offset.offset(1e-9));
    }
}
