package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.Kiln;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.contracts.ContractRow;
import dev.kiln.ui.util.FxBackground;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 12: the console attached to a daemon over its API shows the same contracts as the console embedding the
 * engine on the same workspace, and an edit on the daemon's side reaches the attached window's table.
 */
@DaemonTest @FxTest
@ExtendWith(ApplicationExtension.class)
class AttachedConsoleTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private Stage stage;
    private Path workspace;
    private Engine served;

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        workspace = Files.createTempDirectory("kiln-ui-attached");
        new DemoWorkspace().write(workspace, 120, 13, false);
    }

    @AfterEach
    void stopDaemon() {
        if (served != null) {
            served.close();
        }
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void attachedConsole_showsTheContractsTheEmbeddedOneShows_andFollowsAnEditOnTheDaemon(FxRobot robot) throws Exception {
        // Embedded: the console's own engine, ticking on demand (it does not take the workspace over).
        robot.interact(() -> KilnConsole.show(stage, WorkspaceLayout.of(workspace), BACKGROUND, false, Theme.DARK, 1280, 800));
        List<List<String>> local = rows(robot, 120);

        // Attached: a daemon owns the workspace; the same window shows it through a RemoteEngine.
        served = Kiln.open(workspace, new EventBus(), Clock.systemUTC()).engine();
        served.projection().start(true);
        URI url = URI.create(served.projection().apiUrl().orElseThrow());
        Engine remote = RemoteEngine.connect(url, WorkspaceLayout.of(workspace).apiTokenFile(), null, Clock.systemUTC());
        MainViewModel[] attached = new MainViewModel[1];
        robot.interact(() -> attached[0] = KilnConsole.show(stage, remote, new MainViewModel(remote.layout(), "daemon",
                "daemon (" + remote.location() + ")"), BACKGROUND, true, Theme.DARK, 1280, 800));
        assertThat(stage.getTitle()).isEqualTo("Kiln — daemon (" + remote.location() + ")");
        List<List<String>> viaApi = rows(robot, 120);
        assertThat(viaApi).isEqualTo(local);

        Path contract;
        try (var files = Files.walk(workspace.resolve("tasks"))) {
            contract = files.filter(p -> p.endsWith("contract.json")).sorted().findFirst().orElseThrow();
        }
        String before = Files.readString(contract);
        Files.writeString(contract, before.replaceFirst("\"status\" : \"[a-z]+\"", "\"status\" : \"edited-on-host\""));
        @SuppressWarnings("unchecked")
        TableView<ContractRow> table = robot.lookup("#contracts-table").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> table.getItems().stream()
                .anyMatch(r -> r.status().equals("edited-on-host"))).get());
        assertThat(attached[0].location()).isEqualTo("daemon (" + remote.location() + ")");
        robot.interact(() -> stage.hide()); // ends the session: the remote engine closes with it
    }

    /** The Contracts table's rows once it shows {@code n} or more, as what a person reads (no parse state, no highlight). */
    private static List<List<String>> rows(FxRobot robot, int n) throws Exception {
        @SuppressWarnings("unchecked")
        TableView<ContractRow> table = robot.lookup("#contracts-table").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> table.getItems().size() >= n).get());
        WaitForAsyncUtils.waitForFxEvents();
        return WaitForAsyncUtils.asyncFx(() -> table.getItems().stream()
                .map(r -> List.of(r.file(), r.declaredId(), r.canonicalId(), r.state(), r.status(), r.title(), r.deadline(), r.problem()))
                .toList()).get();
    }
}
