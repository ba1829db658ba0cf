package dev.kiln.ui.caches;

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
import dev.kiln.ui.util.PngSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The Caches page in a real (headless) window on a live-watched demo workspace, in both themes. */
@FxTest
@ExtendWith(ApplicationExtension.class)
class CachesPageTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private Stage stage;
    private MainViewModel model;
    private Path workspace;

    @Start
    void start(Stage stage) throws Exception {
        workspace = Files.createTempDirectory("kiln-ui-caches").resolve("demo"); // named as README's picture shows it
        new DemoWorkspace().write(workspace, 60, 3, false);
        this.stage = stage;
        model = KilnConsole.show(stage, WorkspaceLayout.of(workspace), BACKGROUND, true, Theme.LIGHT, 1280, 800);
        model.navigate(Page.CACHES);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    private static double sum(TrendChart chart, String series) {
        return java.util.Arrays.stream(chart.values(series)).map(v -> Double.isNaN(v) ? 0 : v).sum();
    }

    @Test
    void getTwice_entryWithAHit_chartsShowBothCaches_bothThemes_andChartsStopWhenHidden(FxRobot robot) throws Exception {
        @SuppressWarnings("unchecked")
        TableView<EntryRow> entries = robot.lookup("#caches-entries").queryAs(TableView.class);
        robot.interact(() -> robot.lookup("#caches-source").queryAs(javafx.scene.control.TextField.class).setText("tasks"));
        robot.clickOn("#caches-fetch");
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> entries.getItems().size() == 1);
        robot.clickOn("#caches-fetch");
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> entries.getItems().size() == 1 && entries.getItems().get(0).hits() == 1);
        assertThat(entries.getItems().get(0).root()).isEqualTo("tasks");
        assertThat(entries.getItems().get(0).sha256()).hasSize(12);
        assertThat(robot.lookup("#caches-hits").queryLabeled().getText()).isEqualTo("1 / 1");

        CachesView page = robot.lookup("#page-caches").queryAs(CachesView.class);
        TrendChart requests = robot.lookup("#chart-archive-requests").queryAs(TrendChart.class);
        TrendChart ratio = robot.lookup("#chart-parse-ratio").queryAs(TrendChart.class);
        robot.interact(() -> robot.lookup("#chart-window-one-minute").queryAs(javafx.scene.control.ToggleButton.class).fire());
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> sum(requests, "hits") == 1 && sum(requests, "misses") == 1);
        assertThat(sum(requests, "builds")).isEqualTo(1);
        // the live watch ticked at start: the parse cache's chart has its ratio (the first tick parses everything: 0 %)
        assertThat(robot.lookup("#caches-parse-entries").queryLabeled().getText()).isEqualTo("59");
        assertThat(ratio.seriesNames()).containsExactly("reused");
        // one contract edited: the next tick parses it and reuses the other 58 from the parse cache
        Path contract;
        try (java.util.stream.Stream<Path> files = Files.walk(workspace.resolve("tasks"))) {
            contract = files.filter(p -> p.endsWith("contract.json")).sorted()
                    .filter(p -> {
                        try {
                            return Files.readString(p).contains("\"status\" : \"running\"");
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }).findFirst().orElseThrow();
        }
        robot.interact(() -> model.navigate(Page.PROJECTION));
        javafx.scene.control.Label watch = robot.lookup("#projection-watch").queryAs(javafx.scene.control.Label.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> watch.getText().startsWith("Watch: live on"));
        robot.interact(() -> model.navigate(Page.CACHES));
        Files.writeString(contract, Files.readString(contract).replace("\"status\" : \"running\"", "\"status\" : \"done\""));
        javafx.scene.control.Labeled hitsLastTick = robot.lookup("#caches-parse-ratio").queryLabeled();
        try {
            WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> hitsLastTick.getText().matches("9\\d %"));
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("parse hits of the last tick: " + hitsLastTick.getText(), e);
        }
        robot.interact(page::redraw);
        assertThat(java.util.Arrays.stream(ratio.values("reused")).filter(v -> !Double.isNaN(v)).max().orElse(0))
                .as("the edit's tick reused all but a contract or two").isGreaterThan(90);

        Path dir = Files.createDirectories(Path.of(System.getProperty("kiln.shots", "target/shots")));
        for (Theme t : Theme.values()) {
            robot.interact(() -> {
                model.setTheme(t);
                try {
                    PngSnapshot.write(stage.getScene(), dir.resolve("caches-page-" + t.key() + ".png"));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }

        assertThat(page.chartsLive()).isTrue();
        robot.interact(() -> model.navigate(Page.CONTRACTS));
        assertThat(page.chartsLive()).as("a hidden page's charts cost nothing").isFalse();
        robot.interact(() -> model.navigate(Page.CACHES));
        assertThat(page.chartsLive()).isTrue();
    }
}
