package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.contracts.ContractRow;
import dev.kiln.ui.util.FxBackground;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.Label;
import javafx.scene.control.MenuButton;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The workspace menu: another workspace opens in the same window, and the one before becomes recent. */
@FxTest
@ExtendWith(ApplicationExtension.class)
class WorkspaceSwitchTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private Path first;
    private Path second;
    private KilnConsole.Window window;
    private Stage stage;

    @Start
    void start(Stage stage) throws Exception {
        Path tmp = Files.createTempDirectory("kiln-ui-switch");
        first = tmp.resolve("first");
        second = tmp.resolve("second");
        new DemoWorkspace().write(first, 20, 1, false);
        new DemoWorkspace().write(second, 35, 2, false);
        this.stage = stage;
        window = new KilnConsole.Window(stage, BACKGROUND, Theme.LIGHT, ConsoleSettings.empty());
        window.open(WorkspaceLayout.of(first));
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void openAnother_showsItInTheSameWindow_keepsTheTheme_andListsTheFirstAsRecent(FxRobot robot) throws Exception {
        robot.interact(() -> window.model().setTheme(Theme.DARK));
        robot.interact(() -> window.model().openWorkspace(second));
        WaitForAsyncUtils.waitForFxEvents();

        assertThat(stage.getTitle()).isEqualTo("Kiln — " + second.toAbsolutePath().normalize());
        assertThat(window.model().themeProperty().get()).isEqualTo(Theme.DARK);
        assertThat(window.model().recent()).containsExactly(first.toAbsolutePath().normalize());
        assertThat(robot.lookup("#workspace-menu").queryAs(MenuButton.class).getText()).isEqualTo("second");
        assertThat(robot.lookup("#workspace-menu").queryAs(MenuButton.class).getItems())
                .anyMatch(i -> first.toAbsolutePath().normalize().toString().equals(i.getText()));
        assertThat(robot.lookup("#status-workspace").queryAs(Label.class).getText()).isEqualTo(second.toAbsolutePath().normalize().toString());
        robot.interact(() -> window.model().navigate(Page.CONTRACTS));
        @SuppressWarnings("unchecked")
        TableView<ContractRow> table = robot.lookup("#contracts-table").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> table.getItems().size() == 35);
        assertThat(window.memory().recent()).containsExactly(second.toAbsolutePath().normalize(), first.toAbsolutePath().normalize());
    }
}
