package dev.kiln.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.Kiln;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.ui.contracts.ContractsViewModel;
import dev.kiln.ui.projection.ProjectionViewModel;
import dev.kiln.ui.util.Background;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Projection and Contracts pages of a console beside a real daemon ({@link ProjectionDaemon}, real HTTP on
 * loopback), attached to it ({@link RemoteEngine}) or following it on the same workspace (the in-process engine in
 * follow mode): they show what the daemon has and does, not what this console happened to see (issue 25, items 2
 * and 3).
 */
@DaemonTest
class DaemonPagesTest {
    private static final int CONTRACTS = 30;
    /** A daemon that never ticks by itself while a test runs. */
    private static final ChangePacer.Settings QUIET = ChangePacer.Settings.defaults().withHeartbeat(Duration.ofHours(1));
    /** A daemon whose heartbeats a test sees within a second, and that answers a manual request between them. */
    private static final ChangePacer.Settings TICKING = ChangePacer.Settings.defaults().withInterval(Duration.ofMillis(100))
            .withHeartbeat(Duration.ofMillis(400));

    @TempDir
    Path tmp;
    private ProjectionDaemon daemon;
    private Engine console;
    private final List<KilnEvent> seen = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (console != null) {
            console.close();
        }
        if (daemon != null) {
            daemon.close();
        }
    }

    @Test
    void attach_toAQuietDaemon_pagesShowItsContractsAndRevisionAtOnce() throws Exception {
        daemon(QUIET);
        long revision = daemon.revision();
        console = attached();
        ProjectionViewModel projection = new ProjectionViewModel(console, Background.inline());
        ContractsViewModel contracts = new ContractsViewModel(console, Background.inline());
        contracts.showLatest(); // the page was shown before the engine started, as in the window

        projection.start(true);
        pump(projection, contracts); // no waiting: what the pages hold as soon as start returned

        assertThat(contracts.rows()).hasSize(CONTRACTS);
        assertThat(contracts.summaryProperty().get()).startsWith(CONTRACTS + " contract files");
        assertThat(projection.lastProperty().get()).as("the daemon's last tick").isNotNull();
        assertThat(projection.lastProperty().get().revision()).isEqualTo(revision);
        assertThat((long) projection.lastProperty().get().leaves()).isEqualTo(daemon.metrics().last().orElseThrow().counter("leaves"));
        TickResult shown = projection.lastProperty().get();
        assertThat(daemon.metrics().history()).as("one of the daemon's own ticks")
                .anyMatch(t -> t.at().equals(shown.at()) && t.reason() == shown.reason());
        assertThat(projection.ageProperty().get()).isNotEqualTo("not yet");
    }

    @Test
    void follow_aTickingDaemon_lastProjectedIsItsHeartbeat() throws Exception {
        daemon(TICKING);
        console = following();
        ProjectionViewModel projection = new ProjectionViewModel(console, Background.inline());
        ContractsViewModel contracts = new ContractsViewModel(console, Background.inline());

        projection.start(true);
        Await.await("the daemon's heartbeats on the Projection page", () -> {
            pump(projection, contracts);
            TickResult last = projection.lastProperty().get();
            return last != null && last.reason() == WakeReason.HEARTBEAT;
        });

        assertThat(projection.watchProperty().get()).startsWith("following kiln serve");
        assertThat(projection.lastProperty().get().revision()).isEqualTo(daemon.revision());
        assertThat(contracts.rows()).hasSize(CONTRACTS);
    }

    @Test
    void follow_projectNowWhenNothingChanged_showsTheDaemonsManualTick() throws Exception {
        daemon(QUIET);
        console = following();
        ProjectionViewModel projection = new ProjectionViewModel(console, Background.inline());
        ContractsViewModel contracts = new ContractsViewModel(console, Background.inline());
        projection.start(true);
        pump(projection, contracts);
        long revision = daemon.revision();

        projection.projectNow();
        Await.await("the daemon's manual tick on the Projection page", () -> {
            pump(projection, contracts);
            return projection.history().stream().anyMatch(t -> t.reason() == WakeReason.MANUAL);
        });

        assertThat(daemon.metrics().byReason()).containsKey(WakeReason.MANUAL); // the daemon ticked, not this console
        TickResult manual = projection.lastProperty().get();
        assertThat(manual.reason()).isEqualTo(WakeReason.MANUAL);
        assertThat(manual.revision()).isEqualTo(revision);
        assertThat(manual.changed()).isFalse();
        assertThat(projection.manualResultProperty().get()).startsWith("Project now: nothing changed, projected at ")
                .endsWith("(revision " + revision + ")");
        assertThat(projection.errorProperty().get()).isEmpty();
    }

    @Test
    void attach_aTickingDaemon_heartbeatsAndProjectNowReachThePage() throws Exception {
        daemon(TICKING);
        console = attached();
        ProjectionViewModel projection = new ProjectionViewModel(console, Background.inline());
        ContractsViewModel contracts = new ContractsViewModel(console, Background.inline());
        projection.start(true);
        Await.await("the daemon's heartbeats on the attached Projection page", () -> {
            pump(projection, contracts);
            TickResult last = projection.lastProperty().get();
            return last != null && last.reason() == WakeReason.HEARTBEAT;
        });

        projection.projectNow();
        Await.await("the daemon's manual tick on the attached Projection page", () -> {
            pump(projection, contracts);
            return projection.history().stream().anyMatch(t -> t.reason() == WakeReason.MANUAL);
        });
        assertThat(projection.history().stream().filter(t -> t.reason() == WakeReason.MANUAL).findFirst().orElseThrow().changed())
                .isFalse();
        assertThat(projection.manualResultProperty().get()).startsWith("Project now: nothing changed, projected at ");
    }

    /** A daemon owning a workspace of {@link #CONTRACTS} contracts, its first projection done. */
    private void daemon(ChangePacer.Settings pacing) throws Exception {
        new DemoWorkspace().write(tmp, CONTRACTS, 3, false);
        daemon = ProjectionDaemon.builder(WorkspaceLayout.of(tmp)).port(0).pacing(pacing).start();
        daemon.awaitFirstProjection(Duration.ofSeconds(60));
        Await.await("the daemon's first tick in its metrics", () -> daemon.metrics().last().isPresent());
    }

    /** The console attached to the daemon over its API, as {@code kiln attach} makes it; its events recorded. */
    private Engine attached() {
        Engine e = RemoteEngine.connect(daemon.url(), daemon.tokenFile(), null, Clock.systemUTC());
        e.events().subscribe(seen::add);
        return e;
    }

    /** The console opened on the daemon's workspace (it follows the daemon); its events recorded. */
    private Engine following() {
        Engine e = Kiln.open(tmp, new EventBus(), Clock.systemUTC()).engine();
        e.events().subscribe(seen::add);
        return e;
    }

    /** One frame of the window's event pump, to the two pages' models. */
    private void pump(ProjectionViewModel projection, ContractsViewModel contracts) {
        List<KilnEvent> batch = List.copyOf(seen);
        seen.subList(0, batch.size()).clear();
        projection.accept(batch);
        contracts.accept(batch);
    }
}
