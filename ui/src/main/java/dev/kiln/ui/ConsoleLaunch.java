package dev.kiln.ui;

import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.ui.shell.Theme;
import java.nio.file.Path;
import java.util.Objects;
import javafx.stage.Stage;

/**
 * Everything the console is started with, handed to {@link KilnConsole#launch} once (JavaFX makes the application
 * object itself, so this is the one value that crosses into {@code start}). Immutable; the {@code with…} methods
 * return a copy.
 *
 * @param workspace the workspace the window opens on
 * @param page a sidebar title, case-insensitive; empty for the default page
 * @param settings where window bounds, theme and recent workspaces are remembered (a properties file); null: nowhere
 * @param daemonList the daemon list the Fleet page shows and edits; null: none
 * @param attach a daemon whose pages to open as soon as its engine connects ({@code kiln attach}); null: none
 * @param theme the theme to start in; null: the remembered one, else the desktop's
 * @param width the scene's width; 0: the remembered or default size
 * @param height the scene's height; 0: the remembered or default size
 * @param instead dresses the stage instead of the console (the startup benchmark's empty Stage); null: the console
 * @param shown runs on the FX thread once the console is shown (a first-frame signal, a screenshot); null: nothing
 */
public record ConsoleLaunch(Path workspace, String page, Path settings, Path daemonList,
        DaemonEntry attach, Theme theme, double width, double height, StageHook instead,
        StageHook shown) {

    public ConsoleLaunch {
        Objects.requireNonNull(workspace, "workspace");
        page = page == null ? "" : page;
        if (width < 0 || height < 0) {
            throw new IllegalArgumentException("the window size must not be negative, got " + width + "x" + height);
        }
    }

    /** Something done to the stage by whoever launches the console (they live outside the shipped ui: the bench home). */
    @FunctionalInterface
    public interface StageHook {
        /** Called on the FX thread with the stage and the theme it is shown in. */
        void accept(Stage stage, Theme theme);
    }

    /** The console on {@code workspace} at {@code page}, remembering in {@code settings}, the fleet of {@code daemonList}. */
    public static ConsoleLaunch of(Path workspace, String page, Path settings, Path daemonList) {
        return new ConsoleLaunch(workspace, page, settings, daemonList, null, null, 0, 0, null, null);
    }

    /** This launch, opening {@code daemon}'s pages once it connects. */
    public ConsoleLaunch withAttach(DaemonEntry daemon) {
        return new ConsoleLaunch(workspace, page, settings, daemonList, daemon, theme, width, height, instead, shown);
    }

    /** This launch in {@code theme} at {@code width × height}, whatever was remembered. */
    public ConsoleLaunch withLook(Theme theme, double width, double height) {
        return new ConsoleLaunch(workspace, page, settings, daemonList, attach, theme, width, height, instead, shown);
    }

    /** This launch dressing the stage with {@code instead} rather than the console. */
    public ConsoleLaunch withInstead(StageHook instead) {
        return new ConsoleLaunch(workspace, page, settings, daemonList, attach, theme, width, height, instead, shown);
    }

    /** This launch running {@code hook} once the window is shown, after any hook already set. */
    public ConsoleLaunch withShown(StageHook hook) {
        StageHook before = shown;
        StageHook both = before == null ? hook : (s, t) -> {
            before.accept(s, t);
            hook.accept(s, t);
        };
        return new ConsoleLaunch(workspace, page, settings, daemonList, attach, theme, width, height, instead, both);
    }
}
