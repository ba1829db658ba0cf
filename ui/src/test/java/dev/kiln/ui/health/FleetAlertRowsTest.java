package dev.kiln.ui.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.alert.Alert;
import dev.kiln.core.alert.AlertRule;
import dev.kiln.core.alert.AlertRules;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Fleet page's alerts in the Alerts panel: a row per rule, the daemons it holds on, since the earliest of them. */
class FleetAlertRowsTest {
    private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");
    private static final DateTimeFormatter HMS = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    private static AlertRule rule(String name) {
        return AlertRules.defaults().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aRulePerRow_firingFirst_namingItsDaemons_sinceTheEarliest() {
        Map<String, List<Alert>> m = new LinkedHashMap<>();
        for (int i = 0; i < 7; i++) {
            m.put("fleet-0" + i, List.of(new Alert(rule("KilnSeedStale"), true, T.plusSeconds(i), 0)));
        }
        m.put("eval-1", List.of(new Alert(rule("KilnContractFailures"), true, T.plusSeconds(30), 2),
                new Alert(rule("KilnWatchDegraded"), false, T.plusSeconds(40), 0)));
        List<AlertRow> rows = HealthViewModel.fleetRows(m, T.plusSeconds(65));
        assertThat(rows).extracting(AlertRow::name)
                .containsExactly("KilnContractFailures on eval-1", "KilnSeedStale on 7 daemons", "KilnWatchDegraded on eval-1");
        AlertRow stale = rows.get(1);
        assertThat(stale.firing()).isTrue();
        assertThat(stale.severity()).isEqualTo("warning");
        assertThat(stale.since()).isEqualTo("firing since " + HMS.format(T) + " (1 min 5 s ago)");
        assertThat(stale.summary()).endsWith("(fleet-00, fleet-01, fleet-02, fleet-03, fleet-04 +2 more)");
        assertThat(rows.get(2).firing()).isFalse();
        assertThat(rows.get(2).since()).startsWith("pending since ");
        assertThat(HealthViewModel.fleetRows(Map.of(), T)).isEmpty();
        assertThat(Duration.between(T, T.plusSeconds(65)).toSeconds()).isEqualTo(65);
    }
}
