package dev.kiln.ui;

import atlantafx.base.theme.PrimerDark;
import dev.kiln.core.Kiln;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.icons.Icons;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.MainWindow;
import dev.kiln.ui.util.FxBackground;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import javafx.application.Application;
import javafx.scene.image.Image;
import javafx.stage.Stage;

/** The console application. {@link #open(Path)} is the only way in from the launcher. */
public final class KilnConsole extends Application {
    private static volatile WorkspaceLayout startWorkspace;
    private static volatile String startPage = "";
    private FxBackground background;

    /**
     * Opens the console window on {@code workspace}, showing {@code page} (a sidebar title, case-insensitive;
     * empty for the default), and returns when it is closed.
     */
    public static void open(Path workspace, String page) {
        startWorkspace = WorkspaceLayout.of(workspace);
        startPage = page == null ? "" : page;
        Application.launch(KilnConsole.class);
    }

    /** The page titles {@link #open} accepts. */
    public static java.util.List<String> pageNames() {
        return java.util.Arrays.stream(dev.kiln.ui.shell.Page.values()).map(p -> p.title().toLowerCase(java.util.Locale.ROOT)).toList();
    }

    @Override
    public void start(Stage stage) {
        background = new FxBackground();
        MainViewModel model = show(stage, Objects.requireNonNull(startWorkspace, "no workspace: start through KilnConsole.open"), background);
        for (dev.kiln.ui.shell.Page p : dev.kiln.ui.shell.Page.values()) {
            if (p.title().equalsIgnoreCase(startPage)) {
                model.navigate(p);
            }
        }
        String frameFile = System.getProperty("kiln.firstFrameFile", "");
        if (!frameFile.isEmpty()) {
            signalFirstFrame(stage, Path.of(frameFile), Boolean.getBoolean("kiln.exitAfterFirstFrame"));
        }
        String shot = System.getProperty("kiln.screenshot", "");
        if (!shot.isEmpty()) {
            screenshotAndExit(stage, Path.of(shot), Double.parseDouble(System.getProperty("kiln.screenshot.delay", "3")));
        }
    }

    /** Dresses {@code stage} as the console on {@code workspace}; used by {@link #start} and by UI tests. */
    public static MainViewModel show(Stage stage, WorkspaceLayout workspace, dev.kiln.ui.util.Background background) {
        return show(stage, workspace, background, true);
    }

    /** As {@link #show(Stage, WorkspaceLayout, dev.kiln.ui.util.Background)}; {@code live} false ticks only on demand. */
    public static MainViewModel show(Stage stage, WorkspaceLayout workspace, dev.kiln.ui.util.Background background, boolean live) {
        Application.setUserAgentStylesheet(new PrimerDark().getUserAgentStylesheet());
        MainViewModel model = new MainViewModel(workspace);
        Kiln kiln = Kiln.open(workspace.root(), new EventBus(), Clock.systemUTC());
        MainWindow window = new MainWindow(model, background, kiln);
        stage.setOnHidden(e -> {
            window.close();
            kiln.close();
        });
        stage.setTitle(model.windowTitle());
        for (int size : Icons.SIZES) {
            try (InputStream in = Icons.appIconPng(size)) {
                stage.getIcons().add(new Image(in));
            } catch (IOException e) {
                // An icon is decoration; a window without one still works.
            }
        }
        stage.setScene(window.scene());
        stage.show();
        window.startProjection(live);
        return model;
    }

    /**
     * For the startup benchmark and the package test: once the first pulse has laid the scene out (its frame is
     * then handed to the renderer), writes the wall-clock epoch millis to {@code file} (temp file + rename, so a
     * poller never reads half a number) and optionally exits.
     */
    private static void signalFirstFrame(Stage stage, Path file, boolean exit) {
        Runnable[] once = new Runnable[1];
        once[0] = () -> {
            stage.getScene().removePostLayoutPulseListener(once[0]);
            javafx.application.Platform.runLater(() -> {
                String now = Long.toString(System.currentTimeMillis());
                try {
                    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
                    java.nio.file.Files.writeString(tmp, now);
                    java.nio.file.Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                } catch (IOException e) {
                    System.err.println("kiln: could not write first-frame file " + file + ": " + e.getMessage());
                }
                if (exit) {
                    stage.hide();
                    javafx.application.Platform.exit();
                }
            });
        };
        stage.getScene().addPostLayoutPulseListener(once[0]);
    }

    /** For docs and reviews: waits for the page to settle, writes what the window shows, and exits. */
    private static void screenshotAndExit(Stage stage, Path file, double seconds) {
        javafx.animation.PauseTransition wait = new javafx.animation.PauseTransition(javafx.util.Duration.seconds(seconds));
        wait.setOnFinished(e -> {
            try {
                dev.kiln.ui.util.PngSnapshot.write(stage.getScene(), file);
                System.err.println("kiln: screenshot written to " + file);
            } catch (IOException ex) {
                System.err.println("kiln: could not write screenshot " + file + ": " + ex.getMessage());
            }
            javafx.application.Platform.exit();
        });
        wait.play();
    }

    @Override
    public void stop() {
        if (background != null) {
            background.close();
        }
    }
}
