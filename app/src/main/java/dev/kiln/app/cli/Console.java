package dev.kiln.app.cli;

import dev.kiln.app.common.CliException;
import java.nio.file.Path;

/** The only class of the CLI that touches the UI module, so headless commands never load JavaFX. */
final class Console {
    private Console() {
    }

    static void open(Path workspace, String page) {
        if (!page.isEmpty() && !dev.kiln.ui.KilnConsole.pageNames().contains(page.toLowerCase(java.util.Locale.ROOT))) {
            throw new CliException("no page '" + page + "'; pages are " + String.join(", ", dev.kiln.ui.KilnConsole.pageNames()));
        }
        dev.kiln.ui.KilnConsole.daemonList(DaemonArgs.listFile());
        dev.kiln.ui.KilnConsole.open(workspace.toAbsolutePath().normalize(), page,
                dev.kiln.app.UserDirs.consoleSettings(System.getenv()));
    }

    /** {@code kiln attach}: the console on {@code daemon}, starting over the local {@code workspace}. */
    static void attach(dev.kiln.core.fleet.DaemonEntry daemon, Path workspace) {
        dev.kiln.ui.KilnConsole.daemonList(DaemonArgs.listFile());
        dev.kiln.ui.KilnConsole.attach(daemon, workspace.toAbsolutePath().normalize(),
                dev.kiln.app.UserDirs.consoleSettings(System.getenv()));
    }

    /** {@code kiln screenshot}: one page to PNG, headless; {@code theme} is {@code light} or {@code dark}. */
    static void screenshot(Path workspace, String page, String theme, int width, int height, Path out, double settle) {
        if (!dev.kiln.ui.KilnConsole.pageNames().contains(page.toLowerCase(java.util.Locale.ROOT))) {
            throw new CliException("no page '" + page + "'; pages are " + String.join(", ", dev.kiln.ui.KilnConsole.pageNames()));
        }
        dev.kiln.ui.KilnConsole.daemonList(DaemonArgs.listFile());
        try {
            dev.kiln.ui.KilnConsole.screenshot(workspace.toAbsolutePath().normalize(), page,
                    dev.kiln.ui.shell.Theme.parse(theme).orElseThrow(), width, height, out, settle);
        } catch (IllegalStateException e) {
            throw new CliException(e.getMessage());
        }
    }
}
