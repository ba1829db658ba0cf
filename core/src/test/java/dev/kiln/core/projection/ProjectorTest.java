package dev.kiln.core.projection;

import static dev.kiln.core.snapshot.TestTrees.contract;
import static dev.kiln.core.snapshot.TestTrees.stepPastTimestampGranularity;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.testkit.MutableClock;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.snapshot.StatIdentity;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class ProjectorTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant T0 = Instant.parse("2026-02-01T00:00:00Z");

    @TempDir
    Path root;

    private final MutableClock clock = new MutableClock(T0);

    private WorkspaceLayout ws() {
        return WorkspaceLayout.of(root);
    }

    private Projector projector() {
        return Projector.builder(ws()).clock(clock).build();
    }

    private JsonNode state() throws Exception {
        return JSON.readTree(ws().stateFile().toFile());
    }

    private void leaves(int n) throws Exception {
        for (int i = 0; i < n; i++) {
            contract(ws().tasksDir(), "team/leaf-" + i, "running");
        }
    }

    @Test
    void tick_rootMovedAway_refusesNamingIt_writesNothing_andGoesOnOnceItIsBack() throws Exception {
        Path ws = root.resolve("ws");
        Projector p = Projector.builder(WorkspaceLayout.of(ws)).clock(clock).build();
        contract(WorkspaceLayout.of(ws).tasksDir(), "team/leaf-0", "running");
        assertThat(p.tick(WakeReason.STARTUP).revision()).isEqualTo(1);
        Path moved = root.resolve("moved");
        Files.move(ws, moved);

        assertThatThrownBy(() -> p.tick(WakeReason.HEARTBEAT))
                .isInstanceOf(dev.kiln.core.workspace.WorkspaceException.class)
                .hasMessageContaining(ws + " is gone (deleted or moved)").hasMessageContaining("kiln serve");
        assertThat(ws).as("nothing re-created where the user removed the workspace").doesNotExist();
        assertThat(JSON.readTree(moved.resolve("observer/state.json").toFile()).get("leaves")).hasSize(1);

        Files.move(moved, ws);
        TickResult back = p.tick(WakeReason.HEARTBEAT);
        assertThat(back.leaves()).isEqualTo(1);
        assertThat(back.revision()).isEqualTo(1);
    }

    @Test
    void tick_firstTick_writesTheStateDocumentAtRevisionOne() throws Exception {
        leaves(3);
        Path bad = ws().tasksDir().resolve("team/bad/contract.json");
        Files.createDirectories(bad.getParent());
        Files.writeString(bad, "not json");

        TickResult r = projector().tick(WakeReason.STARTUP);

        assertThat(r.changed()).isTrue();
        assertThat(r.revision()).isEqualTo(1);
        assertThat(r.leaves()).isEqualTo(3);
        assertThat(r.failures()).isEqualTo(1);
        JsonNode s = state();
        assertThat(s.get("revision").asLong()).isEqualTo(1);
        assertThat(s.get("generated_at").asText()).isEqualTo(T0.toString());
        assertThat(s.get("leaves")).hasSize(3);
        JsonNode leaf = s.get("leaves").get(0);
        assertThat(leaf.get("leaf_id").asText()).isEqualTo("team/leaf-0");
        assertThat(leaf.get("status").asText()).isEqualTo("running");
        assertThat(leaf.get("enclosure").get(0).asText()).isEqualTo("src/team/leaf-0");
        assertThat(leaf.get("overdue").asBoolean()).isFalse();
        assertThat(leaf.get("id_shape").asText()).isEqualTo("canonical");
        assertThat(s.get("failures").get(0).get("path").asText()).isEqualTo("team/bad/contract.json");
        assertThat(s.get("failures").get(0).get("kind").asText()).isEqualTo("malformed");
        assertThat(s.get("tick").get("reason").asText()).isEqualTo("startup");
        assertThat(s.get("tick").get("counters").get("parsed").asInt()).isEqualTo(3);
        assertThat(s.get("meta").isObject()).isTrue();
    }

    @Test
    void tick_unchangedTreeLaterInTime_neitherWritesNorAdvancesTheRevision() throws Exception {
        leaves(3);
        Projector p = projector();
        p.tick(WakeReason.STARTUP);
        StatIdentity written = StatIdentity.of(ws().stateFile());

        clock.advance(Duration.ofMinutes(5));
        TickResult r = p.tick(WakeReason.HEARTBEAT);

        assertThat(r.changed()).isFalse();
        assertThat(r.revision()).isEqualTo(1);
        assertThat(r.stats().parsed()).isZero();
        assertThat(StatIdentity.of(ws().stateFile())).isEqualTo(written);
        assertThat(state().get("generated_at").asText()).isEqualTo(T0.toString());
    }

    @Test
    void tick_deadlinePassesOnTheInjectedClock_flagsOverdueAndAdvancesTheRevision() throws Exception {
        leaves(2); // deadline 2026-03-01
        Projector p = projector();
        p.tick(WakeReason.STARTUP);

        clock.set(Instant.parse("2026-03-01T00:00:01Z"));
        TickResult r = p.tick(WakeReason.HEARTBEAT);

        assertThat(r.changed()).isTrue();
        assertThat(r.revision()).isEqualTo(2);
        assertThat(state().get("leaves")).allSatisfy(l -> assertThat(l.get("overdue").asBoolean()).isTrue());
    }

    @Test
    void tick_doneLeafPastDeadline_isNotOverdue() throws Exception {
        contract(ws().tasksDir(), "team/finished", "done");
        clock.set(Instant.parse("2027-01-01T00:00:00Z"));

        projector().tick(WakeReason.STARTUP);

        assertThat(state().get("leaves").get(0).get("overdue").asBoolean()).isFalse();
    }

    @Test
    void tick_afterAnEdit_advancesTheRevisionOnceAndReparsesOneFile() throws Exception {
        leaves(4);
        Projector p = projector();
        p.tick(WakeReason.STARTUP);
        Path f = ws().tasksDir().resolve("team/leaf-2/contract.json");

        stepPastTimestampGranularity(f);
        contract(ws().tasksDir(), "team/leaf-2", "blocked");
        TickResult edited = p.tick(WakeReason.CHANGE);
        TickResult again = p.tick(WakeReason.HEARTBEAT);

        assertThat(edited.changed()).isTrue();
        assertThat(edited.revision()).isEqualTo(2);
        assertThat(edited.stats().parsed()).isEqualTo(1);
        assertThat(again.changed()).isFalse();
        assertThat(again.revision()).isEqualTo(2);
        assertThat(state().get("leaves").get(2).get("status").asText()).isEqualTo("blocked");
    }

    @Test
    void tick_restartOverAnUnchangedTree_continuesTheRevisionWithoutWriting() throws Exception {
        leaves(3);
        Projector first = projector();
        first.tick(WakeReason.STARTUP);
        clock.advance(Duration.ofSeconds(1));
        first.meta(JSON.createObjectNode().put("watch", "live"));
        first.tick(WakeReason.MANUAL);
        StatIdentity written = StatIdentity.of(ws().stateFile());

        Projector restarted = projector();
        restarted.meta(JSON.createObjectNode().put("watch", "live"));
        TickResult r = restarted.tick(WakeReason.STARTUP);

        assertThat(r.changed()).isFalse();
        assertThat(r.revision()).isEqualTo(2);
        assertThat(StatIdentity.of(ws().stateFile())).isEqualTo(written);
        assertThat(restarted.document()).isEqualTo(Files.readAllBytes(ws().stateFile()));
        contract(ws().tasksDir(), "team/new", "pending");
        assertThat(restarted.tick(WakeReason.CHANGE).revision()).isEqualTo(3);
    }

    @Test
    void meta_isStableContent_aNewValueAdvancesTheRevisionTheSameDoesNot() throws Exception {
        leaves(1);
        Projector p = projector();
        p.tick(WakeReason.STARTUP);

        ObjectNode meta = JSON.createObjectNode().put("watch", "degraded");
        p.meta(meta);
        TickResult changed = p.tick(WakeReason.DEGRADED);
        meta.put("watch", "mutated after being set");
        p.meta(JSON.createObjectNode().put("watch", "degraded"));
        TickResult same = p.tick(WakeReason.DEGRADED);

        assertThat(changed.changed()).isTrue();
        assertThat(same.changed()).isFalse();
        assertThat(state().get("meta").get("watch").asText()).isEqualTo("degraded");
    }

    @Test
    void tick_secondFullTick_reusesEveryUnchangedContract() throws Exception {
        leaves(3);
        Projector p = projector();
        p.tick(WakeReason.STARTUP);

        TickResult r = p.tick(WakeReason.RECONCILE);

        assertThat(r.stats().reused()).isEqualTo(3);
        assertThat(r.stats().toJson().get("reused").asInt()).isEqualTo(3);
        assertThat(r.stats().toJson().fieldNames()).toIterable().containsExactly("enumerated", "parsed", "reused", "failed", "pruned", "build_ms");
        assertThat(p.snapshot().contracts()).hasSize(3);
    }

    @Test
    void tick_publishesTickFinishedForEveryTick() throws Exception {
        leaves(2);
        EventBus bus = new EventBus();
        List<KilnEvent> seen = new CopyOnWriteArrayList<>();
        bus.subscribe(seen::add);
        Projector p = Projector.builder(ws()).clock(clock).events(bus).build();

        p.tick(WakeReason.STARTUP);
        p.tick(WakeReason.HEARTBEAT);

        assertThat(seen).hasSize(2).allSatisfy(e -> assertThat(e).isInstanceOf(TickFinished.class));
        TickFinished last = (TickFinished) seen.get(1);
        assertThat(last.at()).isEqualTo(T0);
        assertThat(last.result().reason()).isEqualTo(WakeReason.HEARTBEAT);
        assertThat(last.summary()).contains("heartbeat").contains("revision 1").contains("unchanged");
    }

    @Test
    void tick_stateFileCannotBeWritten_reportsItKeepsTheRevisionAndRetriesNextTick() throws Exception {
        leaves(2);
        Files.writeString(ws().observerDir(), "a file where the observer directory should be");
        Projector p = projector();

        TickResult failed = p.tick(WakeReason.STARTUP);
        Files.delete(ws().observerDir());
        TickResult retried = p.tick(WakeReason.HEARTBEAT);

        assertThat(failed.writeError()).isNotNull();
        assertThat(failed.changed()).isFalse();
        assertThat(failed.revision()).isZero();
        assertThat(retried.writeError()).isNull();
        assertThat(retried.changed()).isTrue();
        assertThat(retried.revision()).isEqualTo(1);
        assertThat(state().get("leaves")).hasSize(2);
    }

    @Test
    void readOnly_writesNothingPrunesNothing_reportsTheRevisionOnDisk() throws Exception {
        leaves(2);
        Files.createDirectories(ws().driftDir().resolve("team"));
        Files.writeString(ws().driftDir().resolve("team/gone.json"), "{}");
        Projector follower = Projector.builder(ws()).clock(clock).readOnly().build();

        TickResult first = follower.tick(WakeReason.STARTUP);

        assertThat(first.revision()).isZero();
        assertThat(first.changed()).isFalse();
        assertThat(ws().stateFile()).doesNotExist();
        assertThat(ws().driftDir().resolve("team/gone.json")).as("drift is the owner's to prune").exists();
        assertThat(follower.snapshot().contracts()).hasSize(2);

        Projector owner = projector();
        owner.tick(WakeReason.STARTUP);
        contract(ws().tasksDir(), "team/leaf-9", "running");
        owner.tick(WakeReason.CHANGE);
        TickResult following = follower.tick(WakeReason.MANUAL);

        assertThat(following.revision()).isEqualTo(owner.revision()).isEqualTo(2);
        assertThat(following.changed()).as("the owner's revision advanced").isTrue();
        assertThat(following.leaves()).isEqualTo(3);
        assertThat(follower.tick(WakeReason.MANUAL).changed()).isFalse();
        assertThat(state().get("revision").asLong()).isEqualTo(2);
    }

    @Test
    void tick_removedLeaf_prunesItsDriftAndSaysSo() throws Exception {
        leaves(2);
        Files.createDirectories(ws().driftDir().resolve("team"));
        Files.writeString(ws().driftDir().resolve("team/leaf-1.json"), "{}");
        Projector p = projector();
        p.tick(WakeReason.STARTUP);

        Files.delete(ws().tasksDir().resolve("team/leaf-1/contract.json"));
        TickResult r = p.tick(WakeReason.CHANGE);

        assertThat(r.driftPruned()).containsExactly("team/leaf-1.json");
        assertThat(state().get("tick").get("drift_pruned").get(0).asText()).isEqualTo("team/leaf-1.json");
    }

    @Test
    @Timeout(120)
    void stateFile_polledDuringAThousandWrites_alwaysParses() throws Exception {
        leaves(20);
        Projector p = projector();
        p.tick(WakeReason.STARTUP);
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        AtomicReference<Throwable> broken = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            while (!done.get()) {
                try {
                    JsonNode n = JSON.readTree(Files.readAllBytes(ws().stateFile()));
                    if (n == null || !n.has("revision") || n.get("leaves").size() != 20) {
                        throw new AssertionError("incomplete state.json: " + n);
                    }
                    reads.incrementAndGet();
                } catch (Throwable t) {
                    broken.compareAndSet(null, t);
                    return;
                }
            }
        }, "state-reader");
        reader.start();

        int writes = 0;
        for (int i = 0; i < 1_000; i++) {
            p.meta(JSON.createObjectNode().put("n", i).put("pad", "x".repeat(i % 97)));
            if (p.tick(WakeReason.MANUAL).changed()) {
                writes++;
            }
        }
        done.set(true);
        reader.join();

        assertThat(broken.get()).isNull();
        assertThat(writes).isEqualTo(1_000);
        assertThat(reads.get()).isPositive();
        assertThat(state().get("revision").asLong()).isEqualTo(1_001);
        p.flush(); // replaced versions are removed by the background sync
        try (var s = Files.list(ws().observerDir())) {
            assertThat(s.map(x -> x.getFileName().toString())).containsExactly("state.json");
        }
    }
}
