package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.util.FxBackground;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javafx.scene.Node;
import javafx.scene.control.Control;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.control.ToggleButton;
import javafx.scene.input.KeyCode;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The page action shortcuts in a real (headless) window: they act on the shown page only, and say so in tooltips. */
@FxTest
@ExtendWith(ApplicationExtension.class)
class ShortcutsTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private MainViewModel model;

    @Start
    void start(Stage stage) throws Exception {
        Path workspace = Files.createTempDirectory("kiln-ui-keys");
        new DemoWorkspace().write(workspace, 30, 9, false);
        // Not live: a tick happens only at start and when asked, so Ctrl+R's tick is the only other one.
        model = KilnConsole.show(stage, WorkspaceLayout.of(workspace), BACKGROUND, false, Theme.DARK, 1280, 800);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void everyShortcut_findsItsControl_andItsTooltipNamesTheKeys(FxRobot robot) {
        for (Shortcuts.Action a : Shortcuts.all()) {
            robot.interact(() -> model.navigate(a.page()));
            Node n = robot.lookup("#" + a.nodeId()).query();
            assertThat(n).as(a.toString()).isInstanceOf(Control.class);
            assertThat(((Control) n).getTooltip()).as(a.toString()).isNotNull();
            assertThat(((Control) n).getTooltip().getText()).contains(a.keys().getDisplayText());
        }
        // and the sidebar lists a page's shortcuts
        assertThat(robot.lookup("#" + Page.CONTRACTS.navId()).queryAs(ToggleButton.class).getTooltip().getText())
                .contains("Ctrl+F search").contains("Ctrl+H heal preview");
    }

    @Test
    void ctrlF_onContracts_focusesTheSearch(FxRobot robot) {
        robot.interact(() -> model.navigate(Page.CONTRACTS));
        TextField filter = robot.lookup("#contracts-filter").queryAs(TextField.class);
        robot.clickOn("#contracts-table");
        assertThat(filter.isFocused()).isFalse();
        robot.press(KeyCode.CONTROL, KeyCode.F).release(KeyCode.F, KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(filter.isFocused()).isTrue();
        robot.write("legacy");
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(filter.getText()).isEqualTo("legacy");
    }

    @Test
    void ctrlH_opensTheHealPreviewOnContracts_butNotOnAnotherPage(FxRobot robot) throws Exception {
        robot.interact(() -> model.navigate(Page.EVENTS));
        robot.press(KeyCode.CONTROL, KeyCode.H).release(KeyCode.H, KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();
        robot.interact(() -> model.navigate(Page.CONTRACTS));
        Node preview = robot.lookup("#heal-preview").query();
        assertThat(preview.isVisible()).as("Ctrl+H on the Events page").isFalse();

        robot.press(KeyCode.CONTROL, KeyCode.H).release(KeyCode.H, KeyCode.CONTROL);
        Label summary = robot.lookup("#heal-summary").queryAs(Label.class);
        WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> preview.isVisible() && !summary.getText().isEmpty());
        assertThat(summary.getText()).startsWith("Heal will rewrite");
        robot.clickOn("Cancel");
    }

    @Test
    void ctrlR_onProjection_projectsNow(FxRobot robot) throws Exception {
        robot.interact(() -> model.navigate(Page.PROJECTION));
        @SuppressWarnings("unchecked")
        TableView<dev.kiln.core.projection.TickResult> ticks = robot.lookup("#projection-ticks").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> !ticks.getItems().isEmpty());
        WaitForAsyncUtils.waitForFxEvents();
        int before = ticks.getItems().size();
        robot.press(KeyCode.CONTROL, KeyCode.R).release(KeyCode.R, KeyCode.CONTROL);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> ticks.getItems().size() > before);
        assertThat(ticks.getItems().get(0).reason()).isEqualTo(dev.kiln.core.projection.WakeReason.MANUAL);
    }
}
