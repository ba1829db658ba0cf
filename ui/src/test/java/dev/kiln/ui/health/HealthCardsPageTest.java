package dev.kiln.ui.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.Page;
import dev.kiln.ui.shell.Theme;
import dev.kiln.ui.util.FxBackground;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.Label;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The Projection page's cards and Alerts panel on a demo workspace with a malformed contract and a never-warmed seed:
 * the Failures and Health cards say FAILING with the reason, the panel lists the firing rules; pictures in both themes
 * at the default size and at 1600x1000, for a person to look at.
 */
@FxTest
@ExtendWith(ApplicationExtension.class)
class HealthCardsPageTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private MainViewModel model;
    private Stage stage;
    private WorkspaceLayout layout;

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        Path workspace = Files.createTempDirectory("kiln-ui-health");
        new DemoWorkspace().write(workspace, 40, 3, false);
        layout = WorkspaceLayout.of(workspace);
        model = KilnConsole.show(stage, layout, BACKGROUND, true, Theme.LIGHT, 1280, 800);
        model.navigate(Page.PROJECTION);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void cards_showTheVerdictWithWordAndReason_alertsPanelListsFiringRules_bothThemesBothSizes(FxRobot robot) throws Exception {
        Label failuresState = robot.lookup("#card-failures-state").queryAs(Label.class);
        Label alertsTitle = robot.lookup("#alerts-title").queryAs(Label.class);
        WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> failuresState.getText().contains("FAILING")
                && alertsTitle.getText().contains("firing"));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(failuresState.getText()).isEqualTo("✖ FAILING");
        // the path would be cut on the card: its line is the reason's head, the whole reason in the card's tooltip
        assertThat(robot.lookup("#card-failures-reason").queryAs(Label.class).getText()).isEqualTo("1 contract failed\u00a0…");
        assertThat(robot.lookup("#card-health-reason").queryAs(Label.class).getText()).isEqualTo("1 contract failed\u00a0… (+1 more)");
        assertThat(robot.lookup("#card-health-state").queryAs(Label.class).getText()).isEqualTo("✖ FAILING");
        assertThat(robot.lookup("#projection-health").queryAs(Label.class).getText()).isEqualTo("failing");
        assertThat(robot.lookup("#card-age-state").queryAs(Label.class).getText()).isEqualTo("✔ OK");
        VBox failuresCard = (VBox) failuresState.getParent();
        assertThat(failuresCard.getStyleClass()).contains("card-failing");
        assertThat(alertsTitle.getText()).isEqualTo("Alerts — 2 firing");
        assertThat(robot.lookup(".alert-row").queryAll()).hasSize(2);

        // the navigation's badge: the firing rules' count; a click opens the Alerts panel from any page
        javafx.scene.control.Button badge = robot.lookup("#alert-badge").queryAs(javafx.scene.control.Button.class);
        assertThat(badge.isVisible()).isTrue();
        assertThat(badge.getText()).isEqualTo("✖  2 alerts firing");
        assertThat(badge.getStyleClass()).contains("alert-badge-critical");
        robot.interact(() -> model.navigate(Page.FLEET));
        robot.clickOn("#alert-badge");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(model.pageProperty().get()).isEqualTo(Page.PROJECTION);
        assertThat(robot.lookup("#alerts-panel").query().isVisible()).isTrue();

        Path dir = Files.createDirectories(Path.of(System.getProperty("kiln.shots", "target/shots")));
        for (int[] size : new int[][] {{1180, 740}, {1600, 1000}}) {
            for (Theme t : Theme.values()) {
                // a scene of that size, as kiln screenshot makes one (the headless screen is smaller than 1600x1000)
                robot.interact(() -> model = KilnConsole.show(stage, layout, BACKGROUND, true, t, size[0], size[1]));
                robot.interact(() -> model.navigate(Page.PROJECTION));
                WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> robot.lookup("#alerts-title").queryAs(Label.class)
                        .getText().contains("2 firing"));
                WaitForAsyncUtils.waitFor(60, TimeUnit.SECONDS, () -> robot.lookup("#card-failures-state").queryAs(Label.class)
                        .getText().contains("FAILING"));
                WaitForAsyncUtils.waitForFxEvents();
                robot.interact(() -> {
                    for (String id : new String[] {"#card-health-reason", "#card-failures-reason", "#card-age-reason"}) {
                        Label l = robot.lookup(id).queryAs(Label.class);
                        assertThat(l.getHeight()).as(id + " shows all its lines at " + size[0] + "x" + size[1] + ": " + l.getText())
                                .isGreaterThanOrEqualTo(l.prefHeight(l.getWidth()) - 0.5);
                    }
                    try {
                        dev.kiln.ui.util.PngSnapshot.write(stage.getScene(),
                                dir.resolve("health-cards-" + t.key() + "-" + size[0] + "x" + size[1] + ".png"));
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            }
        }
    }
}
