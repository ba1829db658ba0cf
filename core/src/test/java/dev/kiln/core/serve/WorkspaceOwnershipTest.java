package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.engine.OwnershipChanged;
import dev.kiln.core.engine.OwnershipChanged.Mode;
import dev.kiln.core.serve.client.ServeLock;
import dev.kiln.core.snapshot.TestTrees;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.DaemonTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state machine of who writes a workspace, against real daemons on a real workspace. Its events are taken
 * from a queue with a bounded wait (a latch, not a sleep); their timestamps come from the injected clock.
 */
@DaemonTest
class WorkspaceOwnershipTest {
    private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final long PATIENCE_S = 30;

    @TempDir
    Path dir;
    private WorkspaceLayout layout;
    private final BlockingQueue<OwnershipChanged> changes = new LinkedBlockingQueue<>();
    private final EventSink events = e -> {
        if (e instanceof OwnershipChanged o) {
            changes.add(o);
        }
    };
    private WorkspaceOwnership ownership;
    private ProjectionDaemon other;

    @BeforeEach
    void workspace() throws Exception {
        layout = WorkspaceLayout.of(dir);
        TestTrees.contract(layout.tasksDir(), "payments/refunds/retry", "running");
    }

    @AfterEach
    void stop() {
        if (ownership != null) {
            ownership.close();
        }
        if (other != null) {
            other.close();
        }
    }

    private WorkspaceOwnership machine(WorkspaceLayout on) {
        Projector own = Projector.builder(on).clock(CLOCK).events(events).build();
        ownership = WorkspaceOwnership.of(on, own, () -> ProjectionDaemon.builder(on).clock(CLOCK).events(events)
                .pacing(new ChangePacer.Settings(Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofHours(1)))
                .port(0), events, CLOCK, Duration.ofMillis(50));
        return ownership;
    }

    /** Another owner of the workspace (this JVM's lock table makes it look like another process's daemon). */
    private ProjectionDaemon otherDaemon() throws Exception {
        other = ProjectionDaemon.builder(layout).port(0).start();
        other.awaitFirstProjection(Duration.ofSeconds(PATIENCE_S));
        return other;
    }

    private OwnershipChanged next() throws InterruptedException {
        OwnershipChanged c = changes.poll(PATIENCE_S, TimeUnit.SECONDS);
        assertThat(c).as("an ownership change within %d s", PATIENCE_S).isNotNull();
        return c;
    }

    @Test
    void new_isIdle_readsTheOwnProjectorAndPublishesNothing() {
        WorkspaceOwnership o = machine(layout);

        assertThat(o.state().mode()).isEqualTo(Mode.IDLE);
        assertThat(o.projector().readOnly()).isFalse();
        assertThat(o.watchStatus()).isEmpty();
        assertThat(changes).isEmpty();
    }

    @Test
    void start_nobodyOwnsIt_ownsWithItsDaemon_andAgainIsANoOp() throws Exception {
        WorkspaceOwnership o = machine(layout);

        assertThat(o.start()).isEmpty();

        OwnershipChanged c = next();
        assertThat(c.from()).isEqualTo(Mode.IDLE);
        assertThat(c.mode()).isEqualTo(Mode.OWN);
        assertThat(c.at()).as("the injected clock").isEqualTo(NOW);
        assertThat(c.apiUrl()).startsWith("http://127.0.0.1:");
        assertThat(c.text()).startsWith("live on");
        assertThat(ServeLock.holder(layout)).get().extracting(ServeLock.Holder::pid).isEqualTo(ProcessHandle.current().pid());
        assertThat(o.watchStatus()).get().extracting(w -> w.live()).isEqualTo(true);
        assertThat(o.start()).as("already owns it").isEmpty();
        assertThat(changes).as("a no-op publishes nothing").isEmpty();
    }

    @Test
    void start_anotherOwnsIt_followsReadOnly_thenVacantWhenItStops_thenTakesOver() throws Exception {
        ProjectionDaemon d = otherDaemon();
        WorkspaceOwnership o = machine(layout);

        assertThat(o.start()).get().asString().contains("owns this workspace").contains(d.url().toString());
        OwnershipChanged follow = next();
        assertThat(follow.mode()).isEqualTo(Mode.FOLLOW);
        assertThat(o.state().holder()).as("the owner, as the machine holds it").get().extracting(ServeLock.Holder::url).isEqualTo(d.url());
        assertThat(follow.apiUrl()).isEqualTo(d.url().toString());
        assertThat(o.projector().readOnly()).as("two writers would interleave two revision sequences").isTrue();
        assertThat(o.watchStatus()).isEmpty();

        d.close();
        other = null;
        OwnershipChanged vacant = next();
        assertThat(vacant.from()).isEqualTo(Mode.FOLLOW);
        assertThat(vacant.mode()).isEqualTo(Mode.VACANT);
        assertThat(vacant.text()).contains("nobody owns");
        assertThat(o.projector().readOnly()).as("read-only until it holds the lock: a new daemon may take it first").isTrue();

        assertThat(o.start()).as("nobody owns it: take it over").isEmpty();
        OwnershipChanged own = next();
        assertThat(own.from()).isEqualTo(Mode.VACANT);
        assertThat(own.mode()).isEqualTo(Mode.OWN);
        assertThat(ServeLock.holder(layout)).get().extracting(ServeLock.Holder::pid).isEqualTo(ProcessHandle.current().pid());
    }

    @Test
    void start_notAWorkspace_unwatchedWithTheReason_ownProjector() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        WorkspaceOwnership o = machine(WorkspaceLayout.of(empty));

        assertThat(o.start()).get().asString().contains("not a Kiln workspace");

        OwnershipChanged c = next();
        assertThat(c.mode()).isEqualTo(Mode.UNWATCHED);
        assertThat(c.text()).startsWith("not watching (").endsWith("ticks run when you ask");
        assertThat(o.projector().readOnly()).isFalse();
    }

    @Test
    void onDemand_anotherOwnsIt_readOnly_andProjectNowAsksNobodyToWrite() throws Exception {
        ProjectionDaemon d = otherDaemon();
        long served = d.revision();
        WorkspaceOwnership o = machine(layout);

        assertThat(o.onDemand().mode()).isEqualTo(Mode.UNWATCHED);
        next();
        assertThat(o.state().holder()).isPresent();
        assertThat(o.projector().readOnly()).isTrue();
        o.projectNow();

        assertThat(o.projector().lastTick().reason()).isEqualTo(WakeReason.MANUAL);
        assertThat(o.projector().lastTick().revision()).as("read the owner's document, wrote nothing").isEqualTo(served);
        assertThat(o.onDemand().mode()).as("settled: only IDLE settles").isEqualTo(Mode.UNWATCHED);
        assertThat(changes).isEmpty();
    }

    @Test
    void projectNow_whileIdle_settlesFirst_neverWritingAWorkspaceAnotherOwns() throws Exception {
        ProjectionDaemon d = otherDaemon();
        WorkspaceOwnership o = machine(layout);

        o.projectNow();

        assertThat(next().mode()).isEqualTo(Mode.UNWATCHED);
        assertThat(o.projector().readOnly()).isTrue();
        assertThat(o.projector().lastTick().revision()).isEqualTo(d.revision());
    }

    @Test
    void close_fromFollow_stopsTheFollowerAndEndsClosed_aLaterStartRefuses() throws Exception {
        otherDaemon();
        WorkspaceOwnership o = machine(layout);
        o.start();
        assertThat(next().mode()).isEqualTo(Mode.FOLLOW);

        o.close();

        OwnershipChanged closed = next();
        assertThat(closed.from()).isEqualTo(Mode.FOLLOW);
        assertThat(closed.mode()).isEqualTo(Mode.CLOSED);
        assertThat(o.start()).get().isEqualTo("closed");
        assertThat(o.projector().readOnly()).isFalse();
        assertThat(changes).as("a refused start publishes nothing").isEmpty();
    }
}
