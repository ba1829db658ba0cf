package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.serve.client.ServeLock;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.util.FxBackground;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The window opened on a workspace a {@code kiln serve} already owns: it follows, then takes over. */
@DaemonTest @FxTest
@ExtendWith(ApplicationExtension.class)
class FollowWindowTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private Path workspace;
    private ProjectionDaemon daemon;

    @Start
    void start(Stage stage) throws Exception {
        workspace = Files.createTempDirectory("kiln-ui-follow");
        new DemoWorkspace().write(workspace, 40, 5, false);
        daemon = ProjectionDaemon.builder(WorkspaceLayout.of(workspace)).port(0).start();
        daemon.awaitFirstProjection(Duration.ofSeconds(60));
        KilnConsole.show(stage, WorkspaceLayout.of(workspace), BACKGROUND);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void projectionPage_followsTheDaemonsRevisions_thenTakesOverWhenItStops(FxRobot robot) throws Exception {
        robot.clickOn("#" + Page.PROJECTION.navId());
        Label watch = robot.lookup("#projection-watch").queryAs(Label.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> watch.getText().startsWith("Watch: following kiln serve (pid "));
        @SuppressWarnings("unchecked")
        TableView<TickResult> ticks = robot.lookup("#projection-ticks").queryAs(TableView.class);
        long served = daemon.revision();
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> !ticks.getItems().isEmpty()
                && ticks.getItems().get(0).revision() == served);

        // "Project now" reaches the daemon; the page shows the tick it caused there, though nothing changed
        robot.clickOn("#projection-now");
        Label manual = robot.lookup("#projection-manual").queryAs(Label.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> manual.getText().startsWith("Project now: nothing changed"));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(ticks.getItems().get(0).reason()).isEqualTo(WakeReason.MANUAL);
        robot.interact(() -> { // a picture for a person to look at
            try {
                Path dir = Files.createDirectories(Path.of(System.getProperty("kiln.shots", "target/shots")));
                dev.kiln.ui.util.PngSnapshot.write(manual.getScene(), dir.resolve("projection-following-manual.png"));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });

        Path contract;
        try (var files = Files.walk(workspace.resolve("tasks"))) {
            contract = files.filter(p -> p.endsWith("contract.json")).sorted().findFirst().orElseThrow();
        }
        Files.writeString(contract, Files.readString(contract).replaceFirst("\"status\" : \"[a-z]+\"", "\"status\" : \"edited-by-test\""));
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> daemon.revision() > served);
        long next = daemon.revision();
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> ticks.getItems().stream()
                .anyMatch(t -> t.reason() == WakeReason.CHANGE && t.revision() == next && t.changed()));

        daemon.close();
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> watch.getText().startsWith("Watch: live on"));
        assertThat(ServeLock.holder(WorkspaceLayout.of(workspace))).as("the console owns the workspace now")
                .get().extracting(ServeLock.Holder::pid).isEqualTo(ProcessHandle.current().pid());
        assertThat(Files.readString(workspace.resolve("observer/state.json"))).contains("edited-by-test");
    }
}
