package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.util.FxBackground;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The workspace menu lists the daemons remembered from earlier runs; choosing one that is not running any more
 * connects through the console's one connect path and ends in its clear notice, the window keeping its workspace.
 */
@FxTest
@ExtendWith(ApplicationExtension.class)
class RecentDaemonsTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private Stage stage;
    private Path workspace;
    private KilnConsole.Window window;
    private DaemonEntry gone;
    private DaemonEntry older;

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        workspace = Files.createTempDirectory("kiln-ui-recent-daemons").resolve("ws");
        // without its malformed contract: the contract-failures alert's notification is a popup of its own, and under
        // Monocle it takes the click meant for the workspace menu
        Files.delete(workspace.resolve(new DemoWorkspace().write(workspace, 10, 3, false).malformed()));
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // free once closed: nothing listens there
        }
        gone = DaemonEntry.of("gone-1", "http://127.0.0.1:" + port + "/", "", "");
        older = DaemonEntry.of("eval-2", "https://eval-2.internal:7117/", "/keys/eval-2.token", "AB:".repeat(31) + "AB");
        ConsoleSettings remembered = ConsoleSettings.empty().withRecentDaemon(older).withRecentDaemon(gone);
        window = new KilnConsole.Window(stage, BACKGROUND, Theme.LIGHT, remembered);
        window.open(WorkspaceLayout.of(workspace));
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    /**
     * The open menu in both themes, for a person to look at ({@code -Dkiln.shots=DIR}, default {@code target/shots}):
     * the window with the menu's popup drawn where it opened (a popup is a window of its own, outside the scene).
     * The menu's items are labels in the popup, readable, with the section titles not greyed out like disabled items.
     */
    @Test
    void openMenu_bothThemes_showsTheRecentDaemonsSection(FxRobot robot) throws Exception {
        Path dir = Files.createDirectories(Path.of(System.getProperty("kiln.shots", "target/shots")));
        for (Theme theme : Theme.values()) {
            robot.interact(() -> window.model().setTheme(theme));
            javafx.scene.control.Label found = null;
            for (int attempt = 0; found == null && attempt < 5; attempt++) {
                // an alert's notification (the demo's stale seed) is a popup window of its own; under Monocle it can
                // take the click meant for the menu, so it is closed first (a desktop's window manager does not)
                robot.interact(() -> new java.util.ArrayList<>(javafx.stage.Window.getWindows()).stream()
                        .filter(w -> w instanceof javafx.stage.PopupWindow && !(w instanceof javafx.scene.control.ContextMenu))
                        .forEach(javafx.stage.Window::hide));
                robot.clickOn("#workspace-menu");
                WaitForAsyncUtils.waitForFxEvents();
                found = robot.lookup((javafx.scene.Node n) -> n instanceof javafx.scene.control.Label l
                        && "Recent daemons".equals(l.getText()) && n.getScene() != null && n.getScene().getWindow().isShowing())
                        .<javafx.scene.control.Label>tryQuery().orElse(null);
            }
            assertThat(found).as("the workspace menu's Recent daemons section").isNotNull();
            javafx.scene.control.Label header = found;
            assertThat(header.getScene().getWindow()).isNotSameAs(stage);
            Path file = dir.resolve("workspace-menu-" + theme.key() + ".png");
            robot.interact(() -> {
                javafx.stage.Window popup = header.getScene().getWindow();
                javafx.scene.image.ImageView back = new javafx.scene.image.ImageView(stage.getScene().snapshot(null));
                // The popup's root with its shadow, over the window (its scene's own fill would paint the shadow's margin).
                javafx.scene.Node root = popup.getScene().getRoot();
                javafx.scene.SnapshotParameters clear = new javafx.scene.SnapshotParameters();
                clear.setFill(javafx.scene.paint.Color.TRANSPARENT);
                javafx.scene.image.ImageView menu = new javafx.scene.image.ImageView(root.snapshot(clear, null));
                javafx.geometry.Bounds at = root.localToScreen(root.getBoundsInLocal());
                javafx.geometry.Point2D origin = stage.getScene().getRoot().localToScreen(0, 0);
                menu.relocate(at.getMinX() - origin.getX(), at.getMinY() - origin.getY());
                try {
                    dev.kiln.ui.util.PngSnapshot.write(new javafx.scene.Scene(new javafx.scene.Group(back, menu)), file);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                assertThat(header.getParent().getOpacity() * header.getOpacity()).as("a title, not a disabled item").isEqualTo(1.0);
            });
            robot.type(javafx.scene.input.KeyCode.ESCAPE);
            WaitForAsyncUtils.waitForFxEvents();
            assertThat(file).isNotEmptyFile();
        }
        robot.interact(() -> stage.hide());
    }

    @Test
    void menu_listsRecentDaemonsNewestFirst_choosingOneThatIsDown_notifiesWhy_andKeepsTheWorkspace(FxRobot robot) throws Exception {
        MenuButton menu = robot.lookup("#workspace-menu").queryAs(MenuButton.class);
        assertThat(menu.getItems()).extracting(MenuItem::getText).containsSubsequence("Connect to daemon…", "Recent daemons",
                "gone-1  ·  " + gone.url(), "eval-2  ·  https://eval-2.internal:7117/  ·  pinned");

        robot.clickOn("#workspace-menu");
        robot.clickOn("gone-1  ·  " + gone.url());

        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> WaitForAsyncUtils.asyncFx(() -> {
            Notices.Notice n = window.model().lastNoticeProperty().get();
            return n != null && n.kind() == Notices.Kind.FAILED;
        }).get());
        Notices.Notice n = window.model().lastNoticeProperty().get();
        assertThat(n.title()).isEqualTo("Cannot open gone-1");
        assertThat(n.text()).contains("nothing listens there").contains("is kiln serve running");
        assertThat(stage.getTitle()).isEqualTo("Kiln — " + workspace.toAbsolutePath().normalize());
        assertThat(window.memory().daemons()).as("a daemon that never answered is not moved up").containsExactly(gone, older);
        robot.interact(() -> stage.hide());
    }
}
