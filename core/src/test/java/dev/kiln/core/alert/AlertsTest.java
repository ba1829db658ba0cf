package dev.kiln.core.alert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.testkit.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rules pend, fire once after their duration, resolve; the file loads, or keeps the defaults naming file and line. */
class AlertsTest {
    static final Instant T0 = Instant.parse("2026-12-02T00:00:00Z");

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(T0);
    private final List<KilnEvent> events = new ArrayList<>();

    private static AlertRule stale() {
        return new AlertRule("KilnProjectionStale", "kiln_projection_age_heartbeats", AlertRule.Comparison.GT, 3,
                Duration.ofSeconds(30), "critical", "stuck");
    }

    private static Map<String, List<Double>> age(double heartbeats) {
        return Map.of("kiln_projection_age_heartbeats", List.of(heartbeats));
    }

    @Test
    void evaluate_holdingForItsDuration_pendsThenFiresOnce_thenResolves() {
        Alerts alerts = new Alerts(List.of(stale()), clock, events::add);

        assertThat(alerts.evaluate(age(4))).singleElement().satisfies(a -> {
            assertThat(a.firing()).as("pending").isFalse();
            assertThat(a.since()).isEqualTo(T0);
        });
        clock.advance(Duration.ofSeconds(29));
        assertThat(alerts.evaluate(age(5))).singleElement().satisfies(a -> assertThat(a.firing()).isFalse());
        assertThat(events).isEmpty();

        clock.advance(Duration.ofSeconds(1));
        assertThat(alerts.evaluate(age(5))).singleElement().satisfies(a -> {
            assertThat(a.firing()).isTrue();
            assertThat(a.since()).isEqualTo(T0.plusSeconds(30));
        });
        for (int i = 0; i < 10; i++) { // ten more ticks while it fires: no second notification
            clock.advance(Duration.ofSeconds(1));
            alerts.evaluate(age(6));
        }
        assertThat(events).singleElement().isInstanceOfSatisfying(AlertFired.class,
                f -> assertThat(f.alert().rule().name()).isEqualTo("KilnProjectionStale"));

        clock.advance(Duration.ofSeconds(1));
        assertThat(alerts.evaluate(age(1))).isEmpty();
        assertThat(events).hasSize(2).last().isInstanceOfSatisfying(AlertResolved.class,
                r -> assertThat(r.firedAt()).isEqualTo(T0.plusSeconds(30)));
        assertThat(alerts.active()).isEmpty();
    }

    @Test
    void evaluate_pendingThatStops_isDroppedWithoutEvents_andAgainStartsOver() {
        Alerts alerts = new Alerts(List.of(stale()), clock, events::add);
        alerts.evaluate(age(4));
        clock.advance(Duration.ofSeconds(20));
        assertThat(alerts.evaluate(age(2))).isEmpty();
        clock.advance(Duration.ofSeconds(20));
        assertThat(alerts.evaluate(age(4))).singleElement().satisfies(a -> assertThat(a.since()).isEqualTo(T0.plusSeconds(40)));
        assertThat(events).isEmpty();
    }

    @Test
    void evaluate_zeroDuration_firesAtOnce_labelledAndUnlabelledSeries() {
        AlertRule seeds = new AlertRule("KilnSeedStale", "kiln_seed_current", AlertRule.Comparison.LT, 1, Duration.ZERO,
                "warning", "stale");
        AlertRule failing = new AlertRule("KilnFailing", "kiln_health{state=\"failing\"}", AlertRule.Comparison.GT, 0,
                Duration.ZERO, "critical", "failing");
        Alerts alerts = new Alerts(List.of(seeds, failing), clock, events::add);
        List<Alert> a = alerts.evaluate(Map.of("kiln_seed_current", List.of(1.0, 0.0),
                "kiln_health{state=\"failing\"}", List.of(1.0), "kiln_health{state=\"healthy\"}", List.of(0.0)));
        assertThat(a).extracting(x -> x.rule().name(), Alert::firing)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("KilnFailing", true),
                        org.assertj.core.groups.Tuple.tuple("KilnSeedStale", true));
        assertThat(alerts.evaluate(Map.of())).as("no series: nothing holds").isEmpty();
    }

    @Test
    void load_absentFile_defaults_noProblem() {
        AlertRules.Loaded l = AlertRules.load(dir.resolve("alerts.json"));
        assertThat(l.fromFile()).isFalse();
        assertThat(l.problem()).isEmpty();
        assertThat(l.rules()).isEqualTo(AlertRules.defaults());
    }

    @Test
    void load_ownRules_readBack_andJsonRoundTrips() throws Exception {
        Path f = dir.resolve("alerts.json");
        Files.writeString(f, AlertRules.json(List.of(stale())));
        AlertRules.Loaded l = AlertRules.load(f);
        assertThat(l.fromFile()).isTrue();
        assertThat(l.rules()).containsExactly(stale());
    }

    @Test
    void load_malformedRule_keepsDefaults_namesFileAndLine_leavesTheFile() throws Exception {
        Path f = dir.resolve("alerts.json");
        String text = """
                {"rules": [
                  {"name": "Ok", "metric": "kiln_watch_live", "op": "<", "threshold": 1, "for": "60s"},
                  {"name": "Bad", "metric": "kiln_watch_live", "op": "=>", "threshold": 1}
                ]}
                """;
        Files.writeString(f, text);
        AlertRules.Loaded l = AlertRules.load(f);
        assertThat(l.rules()).isEqualTo(AlertRules.defaults());
        assertThat(l.problem()).hasValueSatisfying(p -> assertThat(p)
                .startsWith(f + ":3: rule 2: \"=>\" is not a comparison")
                .contains("default alert rules are used"));
        assertThat(Files.readString(f)).as("nothing overwritten").isEqualTo(text);
    }

    @Test
    void load_notJson_namesTheLine() throws Exception {
        Path f = dir.resolve("alerts.json");
        Files.writeString(f, "{\"rules\": [\n  {\"name\": \"A\",,}\n]}\n");
        assertThat(AlertRules.load(f).problem()).hasValueSatisfying(p -> assertThat(p).startsWith(f + ":2: not JSON"));
    }

    @Test
    void load_unknownField_named() throws Exception {
        Path f = dir.resolve("alerts.json");
        Files.writeString(f, "{\"rules\": [{\"name\": \"A\", \"metric\": \"m\", \"op\": \">\", \"threshold\": 0, \"treshold\": 1}]}");
        assertThat(AlertRules.load(f).problem()).hasValueSatisfying(p -> assertThat(p).contains(":1: rule 1: unknown field \"treshold\""));
    }

    @Test
    void prometheus_quotesExpressionsAndSummaries() {
        String y = AlertRules.prometheus(List.of(new AlertRule("KilnFailing", "kiln_health{state=\"failing\"}",
                AlertRule.Comparison.GT, 0, Duration.ofMillis(1500), "critical", "it's failing")));
        assertThat(y).contains("expr: 'kiln_health{state=\"failing\"} > 0'", "for: 1500ms", "summary: 'it''s failing'");
    }
}
