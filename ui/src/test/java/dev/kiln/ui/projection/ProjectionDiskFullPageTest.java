package dev.kiln.ui.projection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.Page;
import dev.kiln.ui.shell.Theme;
import dev.kiln.ui.util.FxBackground;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.Label;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Issue 25, item 19, on the page itself: a console owning a workspace on a real 1 MiB tmpfs that fills up. The page
 * says state.json cannot be written (path, reason) in a banner, pictured in both themes, and clears once it is.
 */
@FxTest
@KernelTest
@ProcessTest
@ExtendWith(ApplicationExtension.class)
class ProjectionDiskFullPageTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private static Path disk;
    private MainViewModel model;

    @Start
    void start(Stage stage) throws Exception {
        disk = Files.createDirectories(Files.createTempDirectory("kiln-ui-disk-full").resolve("small-disk"));
        DiskFull.mount(disk);
        new DemoWorkspace().write(disk, 10, 2, false);
        model = KilnConsole.show(stage, WorkspaceLayout.of(disk), BACKGROUND, true, Theme.DARK, 1280, 800);
        model.navigate(Page.PROJECTION);
    }

    @AfterAll
    static void cleanUp() throws Exception {
        BACKGROUND.close();
        if (disk != null) {
            DiskFull.unmount(disk);
        }
    }

    @Test
    void diskFull_bannerNamesTheFileAndTheReason_goesOnceItIsWritten(FxRobot robot) throws Exception {
        Label watch = robot.lookup("#projection-watch").queryAs(Label.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> watch.getText().startsWith("Watch: live on"));
        Label error = robot.lookup("#projection-error").queryAs(Label.class);
        assertThat(error.isVisible()).isFalse();

        Path filler = DiskFull.fill(disk);
        DiskFull.editInPlace(disk);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, error::isVisible);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(error.getText()).contains(disk.resolve("observer/state.json").toString()).contains("No space left on device");
        for (Theme t : Theme.values()) { // pictures of the banner in both themes, for a person to look at
            robot.interact(() -> {
                model.setTheme(t);
                try {
                    Path dir = Files.createDirectories(Path.of(System.getProperty("kiln.shots", "target/shots")));
                    dev.kiln.ui.util.PngSnapshot.write(error.getScene(), dir.resolve("projection-disk-full-" + t.key() + ".png"));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }

        Files.delete(filler);
        Path state = disk.resolve("observer/state.json");
        long before = Projector.publishedRevision(state);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> Projector.publishedRevision(state) > before);
        robot.clickOn("#projection-now"); // the next tick says the file is up to date
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> !error.isVisible());
        assertThat(error.getText()).isEmpty();
    }
}
