package dev.kiln.ui.seeds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.Notices;
import dev.kiln.ui.shell.Page;
import dev.kiln.ui.shell.Theme;
import dev.kiln.ui.util.FxBackground;
import dev.kiln.ui.util.PngSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The Seeds page in a real (headless) window: "Warm all stale" runs a real uv warm, and a notification says so. */
@FxTest
@ExtendWith(ApplicationExtension.class)
class SeedsPageTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private Stage stage;
    private MainViewModel model;

    @Start
    void start(Stage stage) throws Exception {
        Path workspace = Files.createTempDirectory("kiln-ui-seeds");
        new DemoWorkspace().write(workspace, 20, 3, false);
        this.stage = stage;
        model = KilnConsole.show(stage, WorkspaceLayout.of(workspace), BACKGROUND, true, Theme.DARK, 1280, 800);
        model.navigate(Page.SEEDS);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void warmAllStale_warmsTheDemoTarget_notifies_drawsTheWarm_bothThemes(FxRobot robot) throws Exception {
        @SuppressWarnings("unchecked")
        TableView<TargetRow> table = robot.lookup("#seeds-table").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> table.getItems().size() == 1);
        assertThat(table.getItems().get(0).state()).isEqualTo(SeedState.NEVER);
        Button all = robot.lookup("#seeds-warm-all").queryButton();
        assertThat(all.isDisabled()).isFalse();

        robot.clickOn(all);
        WaitForAsyncUtils.waitFor(120, TimeUnit.SECONDS, () -> model.lastNoticeProperty().get() != null
                && model.lastNoticeProperty().get().title().startsWith("Warm of demo"));
        Notices.Notice notice = model.lastNoticeProperty().get();
        assertThat(notice.title()).isEqualTo("Warm of demo warmed");
        assertThat(notice.kind()).isEqualTo(Notices.Kind.DONE);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> table.getItems().get(0).state() == SeedState.FRESH);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(table.getItems().get(0).progress()).isEqualTo("warmed");
        assertThat(all.isDisabled()).as("nothing stale any more").isTrue();
        assertThat(robot.lookup("#seeds-output").queryListView().getItems()).first().asString().startsWith("$ ");
        XYChart<?, ?> chart = robot.lookup("#seeds-chart").queryAs(XYChart.class);
        assertThat(chart.getData().stream().filter(s -> s.getName().equals("warmed")).mapToInt(s -> s.getData().size()).sum()).isEqualTo(1);

        Path dir = Files.createDirectories(Path.of(System.getProperty("kiln.shots", "target/shots")));
        for (Theme t : Theme.values()) {
            robot.interact(() -> {
                model.setTheme(t);
                try {
                    PngSnapshot.write(stage.getScene(), dir.resolve("seeds-page-" + t.key() + ".png"));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }
    }
}
