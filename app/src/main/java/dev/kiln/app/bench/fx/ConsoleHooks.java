package dev.kiln.app.bench.fx;

import dev.kiln.ui.ConsoleLaunch;
import dev.kiln.ui.shell.Theme;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import javafx.animation.PauseTransition;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.layout.StackPane;
import javafx.stage.Stage;
import javafx.util.Duration;

/**
 * What the benchmarks, the package test and {@code kiln screenshot} do to the console's stage, kept out of the shipped
 * ui (which only runs a launch's hooks): the first-frame signal ({@code -Dkiln.firstFrameFile}, with
 * {@code -Dkiln.exitAfterFirstFrame}), the empty Stage of {@code kiln bench startup} ({@code -Dkiln.emptyStage}), a
 * picture of the window ({@code kiln screenshot}, or {@code -Dkiln.screenshot} with {@code -Dkiln.screenshot.delay}),
 * and Monocle's headless platform.
 */
public final class ConsoleHooks {
    private ConsoleHooks() {
    }

    /** {@code launch} with the hooks the system properties ask for (none: unchanged). */
    public static ConsoleLaunch fromProperties(ConsoleLaunch launch, Properties p) {
        ConsoleLaunch l = launch;
        String frameFile = p.getProperty("kiln.firstFrameFile", "");
        boolean exit = Boolean.parseBoolean(p.getProperty("kiln.exitAfterFirstFrame", "false"));
        if (Boolean.parseBoolean(p.getProperty("kiln.emptyStage", "false"))) {
            // kiln bench startup: JavaFX's floor for this image, theme and machine
            l = l.withInstead((stage, theme) -> {
                emptyStage(stage, theme);
                if (!frameFile.isEmpty()) {
                    signalFirstFrame(stage, Path.of(frameFile), exit);
                }
            });
        }
        if (!frameFile.isEmpty()) {
            l = l.withShown((stage, theme) -> signalFirstFrame(stage, Path.of(frameFile), exit));
        }
        String shot = p.getProperty("kiln.screenshot", "");
        if (!shot.isEmpty()) {
            double delay = Double.parseDouble(p.getProperty("kiln.screenshot.delay", "3"));
            l = l.withShown((stage, theme) -> pictureAndExit(stage, Path.of(shot), delay, new AtomicReference<>()));
        }
        return l;
    }

    /**
     * Chooses Monocle's headless glass and software rendering for this process (screenshots, the UI benchmark).
     * Glass reads these once, when the toolkit starts: call before it starts, never after.
     *
     * @throws IllegalStateException when Monocle is not on the runtime
     */
    public static void useHeadlessPlatform() {
        System.setProperty("glass.platform", "Monocle");
        System.setProperty("monocle.platform", "Headless");
        System.setProperty("prism.order", "sw");
        System.setProperty("prism.text", "t2k");
        System.setProperty("java.awt.headless", "true");
        try {
            Class.forName("com.sun.glass.ui.monocle.MonoclePlatformFactory", false, ConsoleHooks.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            try {
                Class.forName("com.sun.glass.ui.monocle.MonoclePlatformFactory", false, Platform.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e2) {
                throw new IllegalStateException("headless rendering needs Monocle (openjfx-monocle) patched into javafx.graphics;"
                        + " run through ./kiln, which adds it");
            }
        }
    }

    /**
     * {@code kiln screenshot}: renders {@code launch} headless, waits {@code settleSeconds} for the page to settle,
     * writes the window to the PNG {@code out} and returns. Must be called before anything else starts JavaFX in this
     * process: it chooses the headless platform.
     *
     * @throws IllegalStateException when Monocle is not on the runtime, or the picture could not be written
     */
    public static void screenshot(ConsoleLaunch launch, Path out, double settleSeconds) {
        useHeadlessPlatform();
        AtomicReference<String> error = new AtomicReference<>();
        Path file = out.toAbsolutePath();
        dev.kiln.ui.KilnConsole.launch(launch.withShown((stage, theme) -> pictureAndExit(stage, file, settleSeconds, error)));
        if (error.get() != null) {
            throw new IllegalStateException(error.get());
        }
    }

    /**
     * Once the first pulse has laid the scene out (its frame is then handed to the renderer), writes the wall-clock
     * epoch millis to {@code file} (temp file + rename, so a poller never reads half a number) and optionally exits.
     */
    static void signalFirstFrame(Stage stage, Path file, boolean exit) {
        Runnable[] once = new Runnable[1];
        once[0] = () -> {
            stage.getScene().removePostLayoutPulseListener(once[0]);
            Platform.runLater(() -> {
                String now = Long.toString(System.currentTimeMillis());
                try {
                    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
                    Files.writeString(tmp, now);
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (IOException e) {
                    System.err.println("kiln: could not write first-frame file " + file + ": " + e.getMessage());
                }
                if (exit) {
                    stage.hide();
                    Platform.exit();
                }
            });
        };
        stage.getScene().addPostLayoutPulseListener(once[0]);
    }

    /**
     * {@code kiln bench startup}'s floor: a Stage as large as the console's, with the same theme (AtlantaFX's sheet
     * and Kiln's) and nothing in it. What the console's first frame costs beyond it is Kiln's.
     */
    static void emptyStage(Stage stage, Theme theme) {
        Application.setUserAgentStylesheet(theme.userAgentStylesheet());
        Scene scene = new Scene(new StackPane(), dev.kiln.ui.KilnConsole.DEFAULT_WIDTH, dev.kiln.ui.KilnConsole.DEFAULT_HEIGHT);
        scene.getStylesheets().add(dev.kiln.ui.KilnConsole.stylesheet());
        stage.setTitle("Kiln");
        stage.setScene(scene);
        stage.show();
    }

    /** Waits for the page to settle, writes what the window shows, and exits; a failure goes to {@code error}. */
    private static void pictureAndExit(Stage stage, Path file, double seconds, AtomicReference<String> error) {
        PauseTransition wait = new PauseTransition(Duration.seconds(seconds));
        wait.setOnFinished(e -> {
            try {
                dev.kiln.ui.util.PngSnapshot.write(stage.getScene(), file);
                System.err.println("kiln: screenshot written to " + file);
            } catch (IOException ex) {
                error.set("could not write screenshot " + file + ": " + ex.getMessage());
                System.err.println("kiln: " + error.get());
            }
            Platform.exit();
        });
        wait.play();
    }
}
