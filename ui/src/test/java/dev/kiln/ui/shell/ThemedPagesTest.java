package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.util.FxBackground;
import dev.kiln.ui.util.PngSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javafx.scene.control.TableView;
import javafx.scene.image.PixelReader;
import javafx.scene.image.WritableImage;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * Every page renders in both themes at 1280×800, and the theme really changes what is drawn. The pictures go to
 * {@code -Dkiln.shots=DIR} (default {@code target/shots}) for a person to look at.
 */
@FxTest
@ExtendWith(ApplicationExtension.class)
class ThemedPagesTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private Stage stage;
    private MainViewModel model;

    @Start
    void start(Stage stage) throws Exception {
        Path workspace = Files.createTempDirectory("kiln-ui-themes");
        new DemoWorkspace().write(workspace, 137, 11, false);
        this.stage = stage;
        this.model = KilnConsole.show(stage, WorkspaceLayout.of(workspace), BACKGROUND, true, Theme.LIGHT, 1280, 800);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void everyPage_bothThemes_rendersAndTheThemeShows(FxRobot robot) throws Exception {
        Path dir = Path.of(System.getProperty("kiln.shots", "target/shots"));
        Files.createDirectories(dir);
        robot.interact(() -> model.navigate(Page.CONTRACTS));
        @SuppressWarnings("unchecked")
        TableView<Object> table = robot.lookup("#contracts-table").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> !table.getItems().isEmpty());
        robot.interact(() -> table.getSelectionModel().select(6)); // the details pane is part of the page
        double[] luminance = new double[Theme.values().length];
        for (Theme theme : Theme.values()) {
            robot.interact(() -> model.setTheme(theme));
            for (Page page : Page.values()) {
                robot.interact(() -> model.navigate(page));
                WaitForAsyncUtils.waitForFxEvents();
                WritableImage[] shot = new WritableImage[1];
                Path file = dir.resolve(page.name().toLowerCase(Locale.ROOT) + "-" + theme.key() + ".png");
                robot.interact(() -> {
                    shot[0] = stage.getScene().snapshot(null);
                    try {
                        PngSnapshot.write(stage.getScene(), file);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                assertThat(shot[0].getWidth()).isEqualTo(1280);
                assertThat(shot[0].getHeight()).isEqualTo(800);
                assertThat(colours(shot[0])).as(page + " in " + theme).isGreaterThan(50);
                luminance[theme.ordinal()] += luminance(shot[0]);
            }
        }
        assertThat(luminance[Theme.LIGHT.ordinal()]).as("light pages are lighter than dark ones")
                .isGreaterThan(luminance[Theme.DARK.ordinal()] * 2);
    }

    @Test
    void ctrlT_togglesTheTheme_ctrlDigitShowsThatPage(FxRobot robot) {
        Theme before = model.themeProperty().get();
        robot.press(javafx.scene.input.KeyCode.CONTROL).type(javafx.scene.input.KeyCode.T).release(javafx.scene.input.KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(model.themeProperty().get()).isEqualTo(before.other());
        robot.press(javafx.scene.input.KeyCode.CONTROL).type(javafx.scene.input.KeyCode.DIGIT5).release(javafx.scene.input.KeyCode.CONTROL);
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(model.pageProperty().get()).isEqualTo(Page.values()[4]);
        robot.clickOn("#theme-toggle");
        assertThat(model.themeProperty().get()).isEqualTo(before);
    }

    /** The search fields are clearable: typing shows ControlsFX's ✕, and clicking it empties the filter. */
    @Test
    void contractsFilter_clearButton_emptiesTheFilter(FxRobot robot) {
        robot.interact(() -> model.navigate(Page.CONTRACTS));
        robot.clickOn("#contracts-filter").write("billing");
        javafx.scene.control.TextField filter = robot.lookup("#contracts-filter").queryAs(javafx.scene.control.TextField.class);
        assertThat(filter.getText()).isEqualTo("billing");
        robot.clickOn(robot.lookup("#contracts-filter .clear-button").queryAs(javafx.scene.Node.class));
        WaitForAsyncUtils.waitForFxEvents();
        assertThat(filter.getText()).isEmpty();
    }

    private static int colours(WritableImage image) {
        Set<Integer> seen = new HashSet<>();
        PixelReader p = image.getPixelReader();
        for (int y = 0; y < image.getHeight(); y += 3) {
            for (int x = 0; x < image.getWidth(); x += 3) {
                seen.add(p.getArgb(x, y));
            }
        }
        return seen.size();
    }

    private static double luminance(WritableImage image) {
        PixelReader p = image.getPixelReader();
        double sum = 0;
        int n = 0;
        for (int y = 0; y < image.getHeight(); y += 7) {
            for (int x = 0; x < image.getWidth(); x += 7) {
                int argb = p.getArgb(x, y);
                sum += 0.2126 * ((argb >> 16) & 0xff) + 0.7152 * ((argb >> 8) & 0xff) + 0.0722 * (argb & 0xff);
                n++;
            }
        }
        return sum / n;
    }
}
