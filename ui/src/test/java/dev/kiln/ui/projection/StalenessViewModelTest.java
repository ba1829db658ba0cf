package dev.kiln.ui.projection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.doctor.Diagnosis;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.ui.EngineTestBase;
import dev.kiln.ui.util.Background;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** "Why is this stale?" against the engine the subclass supplies. */
abstract class StalenessViewModelTest extends EngineTestBase {
    @TempDir
    Path tmp;

    @Test
    void diagnose_upToDate_saysSoWithNoRows() {
        WorkspaceLayout ws = projectedDemo();
        StalenessViewModel vm = new StalenessViewModel(engine(ws.root()), Background.inline());

        vm.diagnose();

        assertThat(vm.verdictProperty().get()).isEqualTo(Diagnosis.Verdict.UP_TO_DATE);
        assertThat(vm.headlineProperty().get()).startsWith("Up to date: revision ");
        assertThat(vm.rows()).isEmpty();
        assertThat(vm.runningProperty().get()).isFalse();
    }

    @Test
    void diagnose_editedAfterTheLastTick_oneRowWithFieldsCauseAndEvidence() throws Exception {
        WorkspaceLayout ws = projectedDemo();
        Path f;
        try (Stream<Path> s = Files.walk(ws.tasksDir())) {
            f = s.filter(p -> p.getFileName().toString().equals("contract.json")).sorted()
                    .filter(p -> read(p).contains("\"status\" : \"running\"")).findFirst().orElseThrow();
        }
        Files.writeString(f, Files.readString(f).replace("\"status\" : \"running\"", "\"status\" : \"done\""));
        dev.kiln.core.engine.Engine engine = engine(ws.root());
        org.junit.jupiter.api.Assumptions.assumeFalse(engine.remote(),
                "over the API a daemon serves the workspace and projects an edit at once: 'no kiln serve' cannot happen");
        StalenessViewModel vm = new StalenessViewModel(engine, Background.inline());

        vm.diagnose();

        assertThat(vm.verdictProperty().get()).isEqualTo(Diagnosis.Verdict.STALE);
        assertThat(vm.headlineProperty().get()).startsWith("Stale by 1 contract since ").contains("because no kiln serve is running");
        assertThat(vm.rows()).singleElement().satisfies(r -> {
            assertThat(r.how()).isEqualTo("changed");
            assertThat(r.fields()).contains("status: ").contains("→ done");
            assertThat(r.cause()).isEqualTo("no daemon");
            assertThat(r.evidence()).contains("no kiln serve has served this workspace");
        });
        assertThat(vm.remedies()).first().asString().contains("kiln serve " + ws.root());
        assertThat(vm.evidence()).first().asString().startsWith("published: ");
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private WorkspaceLayout projectedDemo() {
        new DemoWorkspace().write(tmp, 40, 2, false);
        WorkspaceLayout ws = WorkspaceLayout.of(tmp);
        Projector.builder(ws).build().tick(WakeReason.STARTUP);
        return ws;
    }
}
