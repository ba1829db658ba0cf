package dev.kiln.ui.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.health.HealthRules;
import dev.kiln.core.health.HealthState;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.ui.util.Background;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A daemon that is stopped (SIGSTOP) still has its socket: the kernel accepts the connection and nothing answers. Here
 * a real loopback socket that accepts and never answers, asked over the real API client: the page's one bounded
 * question ends, and the row is down, failing with the reason unreachable, in the counts as unreachable.
 */
@DaemonTest
class FleetStoppedDaemonTest {
    @TempDir
    Path dir;

    @Test
    void aDaemonThatAcceptsAndNeverAnswers_isDownFailingUnreachable_withinItsBoundedQuestion() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Path list = dir.resolve("daemons.json");
            DaemonList.update(list, l -> l.with(DaemonEntry.of("stopped-1", "http://127.0.0.1:" + silent.getLocalPort(), "", "")));
            FleetViewModel vm = new FleetViewModel(list, Background.inline(), (delay, task) -> () -> { },
                    FleetViewModel.HealthSource.api(), Clock.systemUTC(), d -> { });
            vm.load(); // the first cycle runs inline: one question, bounded by ASK_TIMEOUT

            FleetRow row = vm.row("stopped-1").orElseThrow();
            assertThat(row.state()).isEqualTo(FleetRow.State.DOWN);
            assertThat(row.verdict()).hasValueSatisfying(v -> {
                assertThat(v.state()).isEqualTo(HealthState.FAILING);
                assertThat(v.reasons()).extracting(r -> r.code()).containsExactly(HealthRules.UNREACHABLE);
            });
            assertThat(row.error()).as("says why").isNotBlank();
            assertThat(row.tint()).isEqualTo("failing");
            FleetCounts c = vm.countsProperty().get();
            assertThat(c.unreachable()).isEqualTo(1);
            assertThat(c.unreachableCard().reason()).isEqualTo("stopped-1");
            vm.close();
        }
    }
}
