package dev.kiln.app.cli;

import java.nio.file.Path;

/** The only class of the CLI that touches the UI module, so headless commands never load JavaFX. */
final class Console {
    private Console() {
    }

    static void open(Path workspace) {
        dev.kiln.ui.KilnConsole.open(workspace.toAbsolutePath().normalize());
    }
}
