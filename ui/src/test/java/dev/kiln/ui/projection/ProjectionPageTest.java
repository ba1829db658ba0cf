package dev.kiln.ui.projection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.chart.TrendChart;
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

/** The Projection page in a real (headless) window on a live-watched demo workspace. */
@FxTest
@ExtendWith(ApplicationExtension.class)
class ProjectionPageTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private Path workspace;
    private MainViewModel model;

    @Start
    void start(Stage stage) throws Exception {
        workspace = Files.createTempDirectory("kiln-ui-projection");
        // without its malformed contract: the alert that would fire again when tasks/ is back is not this test's notice
        Files.delete(workspace.resolve(new DemoWorkspace().write(workspace, 60, 3, false).malformed()));
        model = KilnConsole.show(stage, WorkspaceLayout.of(workspace), BACKGROUND, true, Theme.DARK, 1280, 800);
        model.navigate(Page.PROJECTION);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void degradedBanner_appearsWhenTasksIsDeleted_goesWhenItIsBack(FxRobot robot) throws Exception {
        Label watch = robot.lookup("#projection-watch").queryAs(Label.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> watch.getText().startsWith("Watch: live on"));
        Label banner = robot.lookup("#projection-degraded").queryAs(Label.class);
        assertThat(banner.isVisible()).isFalse();

        Path tasks = workspace.resolve("tasks");
        Path away = Files.createTempDirectory("kiln-ui-away").resolve("tasks");
        Files.move(tasks, away);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, banner::isVisible);
        WaitForAsyncUtils.waitForFxEvents(); // the rest of that frame's dispatch (the notification) runs first
        assertThat(banner.getText()).startsWith("Watch degraded").contains("since ");
        assertThat(model.lastNoticeProperty().get().title()).isEqualTo("Watch degraded"); // and a notification
        for (Theme t : Theme.values()) { // pictures of the banner in both themes, for a person to look at
            robot.interact(() -> {
                model.setTheme(t);
                try {
                    Path dir = Files.createDirectories(Path.of(System.getProperty("kiln.shots", "target/shots")));
                    dev.kiln.ui.util.PngSnapshot.write(banner.getScene(), dir.resolve("projection-degraded-" + t.key() + ".png"));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }

        Files.move(away, tasks);
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> !banner.isVisible());
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(banner.getText()).isEmpty();
        assertThat(watch.getText()).startsWith("Watch: live on");
        assertThat(model.lastNoticeProperty().get().title()).isEqualTo("Watch live again");
    }

    @Test
    void contractEdit_showsInTheRevisionChart(FxRobot robot) throws Exception {
        Label watch = robot.lookup("#projection-watch").queryAs(Label.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> watch.getText().startsWith("Watch: live on"));
        TrendChart reasons = robot.lookup("#chart-reasons").queryAs(TrendChart.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> total(reasons, "startup") >= 1);
        assertThat(total(reasons, "change")).isZero();

        Path contract;
        try (var files = Files.walk(workspace.resolve("tasks"))) {
            contract = files.filter(p -> p.endsWith("contract.json")).sorted().findFirst().orElseThrow();
        }
        Files.writeString(contract, Files.readString(contract).replaceFirst("\"status\" : \"[a-z]+\"", "\"status\" : \"edited-by-chart-test\""));

        TrendChart revisions = robot.lookup("#chart-revisions").queryAs(TrendChart.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> total(reasons, "change") >= 1);
        // The charts of one redraw move a pulse apart (LiveCharts), so the revisions chart may follow a pulse later.
        WaitForAsyncUtils.waitFor(5, TimeUnit.SECONDS, () -> total(revisions, "revisions") >= 2); // startup + the edit
        assertThat(total(revisions, "revisions")).isGreaterThanOrEqualTo(2);
    }

    @Test
    void charts_stopRedrawingWhileTheirPageIsHidden(FxRobot robot) {
        ProjectionCharts charts = robot.lookup("#projection-charts").queryAs(ProjectionCharts.class);
        assertThat(charts.isLive()).isTrue();
        robot.interact(() -> model.navigate(Page.CONTRACTS));
        assertThat(charts.isLive()).isFalse();
        robot.interact(() -> model.navigate(Page.PROJECTION));
        assertThat(charts.isLive()).isTrue();
    }

    /** The sum of a named series' points, read on the FX thread. */
    private static double total(TrendChart chart, String series) {
        try {
            return WaitForAsyncUtils.asyncFx(() -> java.util.Arrays.stream(chart.values(series)).map(v -> Double.isNaN(v) ? 0 : v).sum()).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
