package dev.kiln.ui.record;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.Kiln;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.recording.Recorder;
import dev.kiln.core.recording.ReplayEngine;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.Ticker;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.FxTest;
import dev.kiln.ui.KilnConsole;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.Page;
import dev.kiln.ui.shell.Theme;
import dev.kiln.ui.util.FxBackground;
import dev.kiln.ui.util.PngSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javafx.scene.control.ButtonBase;
import javafx.scene.control.Slider;
import javafx.scene.control.TableView;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * A recording replayed in a real (headless) window: the replay bar with its slider above the same pages, every
 * page's buttons disabled saying why, a seek moving the Contracts rows; screenshots of the Contracts and Events
 * pages in both themes at the default size and at 1600x1000.
 */
@FxTest
@ExtendWith(ApplicationExtension.class)
class ReplayPageTest {
    private static final FxBackground BACKGROUND = new FxBackground();
    private Stage stage;
    private static Path file;
    private ReplayEngine replay;
    private MainViewModel model;

    /** Records a local demo workspace through its engine's frames: the state, then five edits a few seconds apart. */
    private static Path record(Path dir) throws Exception {
        Path ws = dir.resolve("demo");
        new DemoWorkspace().write(ws, 60, 3, false);
        Path out = dir.resolve("session.kilnrec");
        try (Kiln kiln = Kiln.open(ws, new EventBus(), Clock.systemUTC()); Engine engine = kiln.engine()) {
            engine.projection().start(false);
            try (Recorder rec = Recorder.builder().file(out).source("local", ws.toString(), ws.toString(), Duration.ofSeconds(30))
                    .build(); AutoCloseable feed = engine.frames((e, d) -> {
                        try {
                            rec.frame(e, d);
                        } catch (IOException ex) {
                            throw new IllegalStateException(ex);
                        }
                    })) {
                Await.await("the state recorded", () -> rec.frames() >= 1);
                List<Path> contracts;
                try (Stream<Path> s = Files.walk(ws.resolve("tasks"))) {
                    contracts = s.filter(p -> p.getFileName().toString().equals("contract.json")).sorted().collect(Collectors.toList());
                }
                for (int i = 0; i < 5; i++) {
                    Thread.sleep(300);
                    Path f = contracts.get(5 + i * 9);
                    Files.writeString(f, Files.readString(f).replaceFirst("\"status\" : \"[^\"]*\"", "\"status\" : \"done\"")
                            .replaceFirst("\"title\" : \"[^\"]*\"", "\"title\" : \"Replayed edit " + i + "\""));
                    long before = rec.frames();
                    engine.projection().projectNow();
                    Await.await("the edit recorded", () -> rec.frames() >= before + 2);
                }
            }
        }
        return out;
    }

    @org.junit.jupiter.api.BeforeAll
    static void recordOnce() throws Exception {
        file = record(Files.createTempDirectory("kiln-ui-replay")); // off the FX thread: the window opens on the file
    }

    @Start
    void start(Stage stage) throws Exception {
        this.stage = stage;
        replay = ReplayEngine.open(file, Ticker.systemTicker());
        model = new MainViewModel(replay.layout(), "Recording " + file.getFileName(), replay.location());
        KilnConsole.show(stage, replay, model, BACKGROUND, false, Theme.DARK, 1180, 740);
        model.navigate(Page.CONTRACTS);
    }

    @AfterAll
    static void cleanUp() {
        BACKGROUND.close();
    }

    @Test
    void replay_slider_seeksTheSamePagesReadOnly_bothThemesBothSizes(FxRobot robot) throws Exception {
        @SuppressWarnings("unchecked")
        TableView<dev.kiln.ui.contracts.ContractRow> table = robot.lookup("#contracts-table").queryAs(TableView.class);
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> !table.getItems().isEmpty());
        assertThat(robot.lookup("#replay-badge").queryLabeled().getText()).isEqualTo("Read-only recording");
        ButtonBase heal = robot.lookup("#contracts-heal").queryAs(ButtonBase.class);
        assertThat(heal.isDisabled()).isTrue();
        assertThat(heal.getTooltip().getText()).contains("read-only");
        assertThat(table.getItems()).noneMatch(r -> r.title().startsWith("Replayed edit"));

        // to the end: every edit shows; the slider follows
        robot.interact(() -> replay.seek(replay.end()));
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> table.getItems().stream().filter(r -> r.title().startsWith("Replayed edit")).count() == 5);
        Slider slider = robot.lookup("#replay-slider").queryAs(Slider.class);
        WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> slider.getValue() > 0.99);
        // back to the middle through the slider's model: fewer edits show
        robot.interact(() -> slider.setValue(0.5));
        robot.interact(() -> slider.setValueChanging(true));
        robot.interact(() -> slider.setValueChanging(false));
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> {
            long n = table.getItems().stream().filter(r -> r.title().startsWith("Replayed edit")).count();
            return n > 0 && n < 5;
        });
        assertThat(robot.lookup("#replay-position").queryLabeled().getText()).contains("UTC");

        Path dir = Files.createDirectories(Path.of(System.getProperty("kiln.shots", "target/shots")));
        for (double[] size : new double[][] {{1180, 740}, {1600, 1000}}) {
            robot.interact(() -> {
                stage.setX(0); // at the screen's corner, as the pictures of the other pages are taken
                stage.setY(0);
                stage.setWidth(size[0]);
                stage.setHeight(size[1]);
            });
            for (Page page : List.of(Page.CONTRACTS, Page.EVENTS)) {
                for (Theme t : Theme.values()) {
                    robot.interact(() -> {
                        model.navigate(page);
                        model.setTheme(t);
                    });
                    WaitForAsyncUtils.waitForFxEvents();
                    robot.interact(() -> {
                        try {
                            PngSnapshot.write(stage.getScene(), dir.resolve("replay-" + page.name().toLowerCase() + "-" + t.key() + "-"
                                    + (int) size[0] + "x" + (int) size[1] + ".png"));
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
                }
            }
        }
        assertThat(Files.size(dir.resolve("replay-contracts-dark-1180x740.png"))).isGreaterThan(10_000);
    }
}
