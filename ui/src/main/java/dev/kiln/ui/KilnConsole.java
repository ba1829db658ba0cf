package dev.kiln.ui;

import atlantafx.base.theme.PrimerDark;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.icons.Icons;
import dev.kiln.ui.shell.MainViewModel;
import dev.kiln.ui.shell.MainWindow;
import dev.kiln.ui.util.FxBackground;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Objects;
import javafx.application.Application;
import javafx.scene.image.Image;
import javafx.stage.Stage;

/** The console application. {@link #open(Path)} is the only way in from the launcher. */
public final class KilnConsole extends Application {
    private static volatile WorkspaceLayout startWorkspace;
    private FxBackground background;

    /** Opens the console window on {@code workspace} and returns when it is closed. */
    public static void open(Path workspace) {
        startWorkspace = WorkspaceLayout.of(workspace);
        Application.launch(KilnConsole.class);
    }

    @Override
    public void start(Stage stage) {
        background = new FxBackground();
        show(stage, Objects.requireNonNull(startWorkspace, "no workspace: start through KilnConsole.open"), background);
    }

    /** Dresses {@code stage} as the console on {@code workspace}; used by {@link #start} and by UI tests. */
    public static MainViewModel show(Stage stage, WorkspaceLayout workspace, dev.kiln.ui.util.Background background) {
        Application.setUserAgentStylesheet(new PrimerDark().getUserAgentStylesheet());
        MainViewModel model = new MainViewModel(workspace);
        MainWindow window = new MainWindow(model, background, new EventBus());
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
        return model;
    }

    @Override
    public void stop() {
        if (background != null) {
            background.close();
        }
    }
}
