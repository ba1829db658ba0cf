package dev.kiln.core.projection;

import static dev.kiln.core.snapshot.TestTrees.stepPastTimestampGranularity;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.MutableClock;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The projector reuses the last tick's projection of every unchanged contract file: these ticks prove that what it
 * reuses is what projecting from scratch would give, whatever changed in between — time, processes or files.
 */
@ProcessTest
class IncrementalProjectionTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant T0 = Instant.parse("2026-02-01T00:00:00Z");

    @TempDir
    Path root;
    @TempDir
    Path scratch;

    private final MutableClock clock = new MutableClock(T0);
    private int copies;

    private Path tasks() {
        return WorkspaceLayout.of(root.resolve("ws")).tasksDir();
    }

    private Path contract(String leaf, String status, Instant deadline, Long enginePid) throws Exception {
        ObjectNode c = JSON.createObjectNode();
        c.put("leaf_id", leaf);
        c.put("title", "Leaf " + leaf);
        c.put("status", status);
        c.putArray("enclosure").add("src/" + leaf).add("docs/" + leaf);
        if (enginePid == null) {
            c.putNull("engine");
        } else {
            c.putObject("engine").put("pid", enginePid).put("command", "sleep 600")
                    .put("started_at", ProcessHandle.of(enginePid).flatMap(h -> h.info().startInstant()).orElse(T0).toString());
        }
        c.put("deadline", deadline == null ? null : deadline.toString());
        Path f = tasks().resolve(leaf).resolve("contract.json");
        Files.createDirectories(f.getParent());
        Files.write(f, JSON.writeValueAsBytes(c));
        return f;
    }

    /** What a projector that never saw this workspace before projects from it: a copy, one full tick. */
    private Projector fresh() throws Exception {
        Path copy = scratch.resolve("copy-" + copies++);
        try (Stream<Path> s = Files.walk(tasks())) {
            for (Path p : s.sorted().toList()) {
                Path to = copy.resolve("tasks").resolve(tasks().relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to);
                }
            }
        }
        Projector p = Projector.builder(WorkspaceLayout.of(copy)).clock(clock).build();
        p.tick(WakeReason.STARTUP);
        return p;
    }

    /** The incremental projector's document says, leaf for leaf and byte for byte, what a fresh full one does. */
    private void assertSameAsFresh(Projector incremental) throws Exception {
        Projector full = fresh();
        Projector.DocumentParts mine = incremental.parts();
        Projector.DocumentParts theirs = full.parts();
        assertThat(List.copyOf(mine.leaves().keySet())).isEqualTo(List.copyOf(theirs.leaves().keySet()));
        assertThat(mine.leaves()).isEqualTo(theirs.leaves());
        assertThat(mine.failures()).isEqualTo(theirs.failures());
        assertThat(mine.meta()).isEqualTo(theirs.meta());
        JsonNode a = JSON.readTree(incremental.document());
        JsonNode b = JSON.readTree(full.document());
        assertThat(StateDocument.stableTree(a)).isEqualTo(StateDocument.stableTree(b));
        assertThat(a.get("generated_at")).isEqualTo(b.get("generated_at"));
    }

    private static boolean overdue(Projector p, String leaf) throws Exception {
        return JSON.readTree(p.parts().leaves().get(leaf)).get("overdue").asBoolean();
    }

    /**
     * Over many chunks of the document (1,500 leaves, ~6 chunks) and the daemon's write-behind policy, random edits,
     * creates and deletes applied incrementally give, after every step, the document a fresh full projection gives;
     * the file written behind the ticks is, once flushed, byte for byte the revision served from memory.
     */
    @Test
    void tick_randomChangesOverManyChunksWrittenBehind_sameAsFreshAndTheFileIsTheServedRevision() throws Exception {
        java.util.Random rnd = new java.util.Random(23);
        List<String> leaves = new java.util.ArrayList<>();
        for (int i = 0; i < 1_500; i++) {
            String leaf = "area-" + (i % 7) + "/p-" + (i % 13) + "/leaf-" + i;
            leaves.add(leaf);
            contract(leaf, "running", T0.plus(Duration.ofDays(30)), null);
        }
        WorkspaceLayout ws = WorkspaceLayout.of(root.resolve("ws"));
        Projector p = Projector.builder(ws).clock(clock).writeBehind(0, Duration.ZERO).build();
        p.tick(WakeReason.STARTUP);
        for (int step = 0; step < 24; step++) {
            java.util.Set<Path> changed = new java.util.HashSet<>();
            for (int k = 0; k < 1 + rnd.nextInt(3); k++) {
                int op = rnd.nextInt(3);
                if (op == 0 || leaves.size() < 10) {
                    String leaf = "area-" + rnd.nextInt(9) + "/new-" + step + "-" + k;
                    leaves.add(leaf);
                    changed.add(contract(leaf, "pending", T0.plus(Duration.ofDays(3)), null));
                } else if (op == 1) {
                    String leaf = leaves.get(rnd.nextInt(leaves.size()));
                    Path f = tasks().resolve(leaf).resolve("contract.json");
                    stepPastTimestampGranularity(f);
                    changed.add(contract(leaf, "step-" + step, T0.plus(Duration.ofDays(30)), null));
                } else {
                    String leaf = leaves.remove(rnd.nextInt(leaves.size()));
                    Path f = tasks().resolve(leaf).resolve("contract.json");
                    Files.delete(f);
                    changed.add(f);
                }
            }
            TickResult t = p.tick(WakeReason.CHANGE, changed);
            assertThat(t.changed()).as("step %d changed something", step).isTrue();
            assertThat(p.parts().leafIds()).as("step %d", step).hasSize(leaves.size());
            if (step % 6 == 5) {
                assertSameAsFresh(p);
            }
        }
        p.flush();
        assertThat(Files.readAllBytes(ws.stateFile())).as("the file written behind is the revision served")
                .isEqualTo(p.document());
    }

    @Test
    void tick_deadlinePassesBetweenIncrementalTicks_flipsOverdueAndAdvancesTheRevisionLikeAFullTick() throws Exception {
        for (int i = 0; i < 40; i++) {
            contract("team/leaf-" + i, "running", T0.plus(Duration.ofDays(30)), null);
        }
        contract("team/soon", "running", T0.plus(Duration.ofHours(1)), null);
        contract("team/finished", "done", T0.minus(Duration.ofHours(1)), null);
        contract("team/late", "blocked", T0.minus(Duration.ofHours(1)), null);
        Projector p = Projector.builder(WorkspaceLayout.of(root.resolve("ws"))).clock(clock).build();
        p.tick(WakeReason.STARTUP);
        assertThat(overdue(p, "team/soon")).isFalse();
        assertThat(overdue(p, "team/late")).isTrue();

        clock.set(T0.plus(Duration.ofMinutes(90))); // no file changes: only the injected clock moved
        TickResult crossed = p.tick(WakeReason.HEARTBEAT, Set.of());

        assertThat(crossed.changed()).isTrue();
        assertThat(crossed.revision()).isEqualTo(2);
        assertThat(overdue(p, "team/soon")).isTrue();
        assertThat(overdue(p, "team/finished")).isFalse();
        assertSameAsFresh(p);

        TickResult still = p.tick(WakeReason.HEARTBEAT, Set.of());
        assertThat(still.changed()).isFalse();
        assertThat(still.revision()).isEqualTo(2);

        clock.set(T0); // an injected clock may go back: the flag follows it
        TickResult back = p.tick(WakeReason.HEARTBEAT, Set.of());
        assertThat(back.changed()).isTrue();
        assertThat(overdue(p, "team/soon")).isFalse();
        assertThat(overdue(p, "team/late")).isTrue();
        assertSameAsFresh(p);
    }

    @Test
    void tick_editsAdditionsRemovalsAndAnEngineDyingBetweenIncrementalTicks_sameDocumentAsAFullTick() throws Exception {
        for (int i = 0; i < 20; i++) {
            contract("team/leaf-" + String.format("%02d", i), "running", T0.plus(Duration.ofDays(i)), null);
        }
        contract("ops/self", "running", null, ProcessHandle.current().pid());
        Process engine = new ProcessBuilder("sleep", "600").start();
        try {
            contract("ops/worker", "running", null, engine.pid());
            Projector p = Projector.builder(WorkspaceLayout.of(root.resolve("ws"))).clock(clock).build();
            p.tick(WakeReason.STARTUP);
            assertThat(JSON.readTree(p.parts().leaves().get("ops/worker")).path("engine").path("liveness").asText()).isEqualTo("alive");
            assertSameAsFresh(p);

            // an edit in the middle: one position changes
            Path edited = tasks().resolve("team/leaf-07/contract.json");
            stepPastTimestampGranularity(edited);
            contract("team/leaf-07", "done", T0.plus(Duration.ofDays(7)), null);
            TickResult r = p.tick(WakeReason.CHANGE, Set.of(edited));
            assertThat(r.changed()).isTrue();
            assertThat(r.stats().parsed()).isEqualTo(1);
            assertSameAsFresh(p);

            // the engine dies, no file changes
            engine.destroyForcibly();
            assertThat(engine.waitFor(30, TimeUnit.SECONDS)).isTrue();
            r = p.tick(WakeReason.HEARTBEAT, Set.of());
            assertThat(r.changed()).isTrue();
            assertThat(JSON.readTree(p.parts().leaves().get("ops/worker")).path("engine").path("liveness").asText()).isEqualTo("gone");
            assertSameAsFresh(p);

            // a leaf added before others shifts every later position; a deadline crossed at the same tick
            Path added = contract("team/leaf-03a", "running", T0.plus(Duration.ofHours(1)), null);
            clock.set(T0.plus(Duration.ofDays(2)).plusSeconds(1));
            r = p.tick(WakeReason.CHANGE, Set.of(added.getParent()));
            assertThat(r.changed()).isTrue();
            assertThat(overdue(p, "team/leaf-03a")).isTrue();
            assertThat(overdue(p, "team/leaf-02")).isTrue();
            assertThat(overdue(p, "team/leaf-03")).isFalse();
            assertSameAsFresh(p);

            // a leaf removed
            Path gone = tasks().resolve("team/leaf-01");
            deleteTree(gone);
            r = p.tick(WakeReason.CHANGE, Set.of(gone));
            assertThat(r.changed()).isTrue();
            assertThat(p.parts().leaves()).doesNotContainKey("team/leaf-01");
            assertSameAsFresh(p);

            // nothing changed: nothing written
            assertThat(p.tick(WakeReason.HEARTBEAT, Set.of()).changed()).isFalse();
        } finally {
            engine.destroyForcibly();
        }
    }

    private static void deleteTree(Path dir) throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
