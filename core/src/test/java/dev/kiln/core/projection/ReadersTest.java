package dev.kiln.core.projection;

import static dev.kiln.core.snapshot.TestTrees.contract;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.snapshot.SnapshotBuilder;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@ProcessTest
class ReadersTest {
    @TempDir
    Path root;

    private WorkspaceLayout ws() {
        return WorkspaceLayout.of(root);
    }

    private void engine(String leaf, long pid, Instant started) throws Exception {
        Path f = ws().tasksDir().resolve(leaf).resolve("contract.json");
        Files.createDirectories(f.getParent());
        Files.writeString(f, "{\"leaf_id\":\"" + leaf + "\",\"engine\":{\"pid\":" + pid + ",\"command\":\"worker\",\"started_at\":\""
                + started + "\"}}");
    }

    @Test
    void enclosuresAndEngineFacts_standalone_equalTheSharedSnapshotsAnswer() throws Exception {
        new DemoWorkspace().write(root, 120, 3, false);
        engine("ops/self", ProcessHandle.current().pid(), ProcessHandle.current().info().startInstant().orElseThrow());
        ContractSnapshot shared = new SnapshotBuilder(ws().tasksDir()).build();

        assertThat(Enclosures.read(ws().tasksDir())).isEqualTo(Enclosures.of(shared));
        assertThat(Enclosures.of(shared).byLeaf()).hasSize(shared.contracts().size());
        assertThat(EngineFacts.read(ws().tasksDir())).isEqualTo(EngineFacts.of(shared));
        assertThat(EngineFacts.of(shared).byLeaf()).containsKey("ops/self");
    }

    @Test
    void driftPruning_standalone_equalsTheSharedSnapshotsAnswer() throws Exception {
        Path a = root.resolve("a");
        Path b = root.resolve("b");
        for (Path w : List.of(a, b)) {
            contract(w.resolve("tasks"), "x/live", "running");
            Files.createDirectories(w.resolve("observer/drift/x"));
            Files.writeString(w.resolve("observer/drift/x/live.json"), "{}");
            Files.writeString(w.resolve("observer/drift/x/gone.json"), "{}");
        }

        DriftPruning shared = DriftPruning.prune(new SnapshotBuilder(a.resolve("tasks")).build(), a.resolve("observer/drift"));
        DriftPruning standalone = DriftPruning.prune(WorkspaceLayout.of(b));

        assertThat(standalone).isEqualTo(shared);
        assertThat(shared.removed()).containsExactly("x/gone.json");
    }

    @Test
    void enclosures_mapLeafToDeclaredPaths() throws Exception {
        contract(ws().tasksDir(), "p/q", "running");

        Enclosures e = Enclosures.read(ws().tasksDir());

        assertThat(e.pathsOf("p/q")).containsExactly("src/p/q");
        assertThat(e.pathsOf("nope")).isEmpty();
    }

    @Test
    void engineFacts_ownProcess_isAlive() throws Exception {
        ProcessHandle self = ProcessHandle.current();
        engine("ops/self", self.pid(), self.info().startInstant().orElseThrow());

        EngineFact f = EngineFacts.read(ws().tasksDir()).byLeaf().get("ops/self");

        assertThat(f.liveness()).isEqualTo(EngineFact.Liveness.ALIVE);
        assertThat(f.observedStart()).isNotNull();
        assertThat(f.command()).isEqualTo("worker");
    }

    @Test
    void engineFacts_exitedProcess_isGone() throws Exception {
        Process p = new ProcessBuilder("true").start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        engine("ops/dead", p.pid(), Instant.now());

        EngineFact f = EngineFacts.read(ws().tasksDir()).byLeaf().get("ops/dead");

        assertThat(f.liveness()).isEqualTo(EngineFact.Liveness.GONE);
    }

    @Test
    void engineFacts_pidOfAProcessYoungerThanTheDeclaration_isReused() throws Exception {
        ProcessHandle self = ProcessHandle.current();
        Instant started = self.info().startInstant().orElseThrow();
        engine("ops/old", self.pid(), started.minusSeconds(3600));

        EngineFact f = EngineFacts.read(ws().tasksDir()).byLeaf().get("ops/old");

        assertThat(f.liveness()).isEqualTo(EngineFact.Liveness.PID_REUSED);
    }

    @Test
    void driftPruning_keepsDriftOfLiveAndMalformedLeavesAndRemovesTheRest() throws Exception {
        contract(ws().tasksDir(), "x/live", "running");
        Path bad = ws().tasksDir().resolve("x/broken/contract.json");
        Files.createDirectories(bad.getParent());
        Files.writeString(bad, "{oops");
        Path drift = ws().driftDir();
        Files.createDirectories(drift.resolve("x/deleted"));
        for (String f : List.of("x/live.json", "x/broken.json", "x/gone.json", "x/deleted/leaf.json", "notes.txt")) {
            Files.writeString(drift.resolve(f), "{}");
        }

        DriftPruning r = DriftPruning.prune(ws());

        assertThat(r.removed()).containsExactly("x/deleted/leaf.json", "x/gone.json");
        assertThat(drift.resolve("x/live.json")).exists();
        assertThat(drift.resolve("x/broken.json")).exists();
        assertThat(drift.resolve("notes.txt")).exists();
        assertThat(drift.resolve("x/deleted")).doesNotExist();
        assertThat(r.problems()).isEmpty();
    }
}
