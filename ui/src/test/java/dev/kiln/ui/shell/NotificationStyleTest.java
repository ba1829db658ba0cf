package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.util.FxBackground;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javafx.scene.Node;
import javafx.scene.layout.Region;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * A notification pops up styled by the theme in both themes, with no CSS warning: ControlsFX's
 * notificationpopup.css looks up Modena's {@code -fx-outer-border}, which AtlantaFX does not define, so its rule for
 * {@code .notification-bar.dark > .pane} failed to convert (a ClassCastException logged by javafx.css) and the
 * popup had no background. kiln.css overrides those rules with theme variables.
 */
@FxTest
@ExtendWith(ApplicationExtension.class)
class NotificationStyleTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    // JavaFX logs CSS problems through System.Logger, which is java.util.logging here (no other LoggerFinder).
    private static final Logger CSS_LOG = Logger.getLogger("javafx.css");
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final Handler recorder = new Handler() {
        @Override
        public void publish(LogRecord r) {
            warnings.add(r.getMessage() + (r.getThrown() == null ? "" : " " + r.getThrown()));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private MainViewModel model;

    @Start
    void start(Stage stage) throws Exception {
        Path workspace = Files.createTempDirectory("kiln-ui-notify");
        new DemoWorkspace().write(workspace, 20, 5, false);
        CSS_LOG.addHandler(recorder);
        model = KilnConsole.show(stage, WorkspaceLayout.of(workspace), BACKGROUND, false, Theme.DARK, 1280, 800);
    }

    @AfterEach
    void stopRecording() {
        CSS_LOG.removeHandler(recorder);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void notification_bothThemes_hasTheThemesBackground_andNoCssWarning(FxRobot robot) throws Exception {
        for (Theme theme : List.of(Theme.DARK, Theme.LIGHT)) {
            robot.interact(() -> {
                model.setTheme(theme);
                model.notify(new Notices.Notice(Notices.Kind.DONE, "Warm finished " + theme.key(), "bench: fresh in 1.2 s"));
            });
            WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> pane(theme) != null);
            WaitForAsyncUtils.waitForFxEvents();
            Region pane = pane(theme);
            assertThat(pane.getBackground()).as(theme + " notification background").isNotNull();
            assertThat(pane.getBackground().getFills()).isNotEmpty();
            robot.interact(() -> { // a picture for a person to look at
                try {
                    Path dir = Files.createDirectories(Path.of(System.getProperty("kiln.shots", "target/shots")));
                    dev.kiln.ui.util.PngSnapshot.write(pane.getScene(), dir.resolve("notification-" + theme.key() + ".png"));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }
        assertThat(warnings).as("javafx.css warnings").noneMatch(w -> w.contains("notification"));
        assertThat(warnings).as("javafx.css warnings").noneMatch(w -> w.contains("ClassCastException"));
    }

    /** The shown notification's pane whose title says {@code theme}, or null. */
    private static Region pane(Theme theme) {
        try {
            return WaitForAsyncUtils.asyncFx(() -> {
                for (Window w : Window.getWindows()) {
                    if (w.getScene() == null) {
                        continue;
                    }
                    for (Node bar : w.getScene().getRoot().lookupAll(".notification-bar")) {
                        Node title = bar.lookup(".title");
                        if (title instanceof javafx.scene.control.Label l && l.getText().endsWith(theme.key())
                                && bar.lookup(".pane") instanceof Region r) {
                            return r;
                        }
                    }
                }
                return null;
            }).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
