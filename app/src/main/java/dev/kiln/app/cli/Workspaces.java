package dev.kiln.app.cli;

import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Path;

/** Checks shared by the headless commands that take a workspace directory. */
final class Workspaces {
    private Workspaces() {
    }

    /** {@code dir}, if it is a Kiln workspace. */
    static Path require(Path dir) {
        if (!WorkspaceLayout.of(dir).isWorkspace()) {
            throw new CliException(dir.toAbsolutePath() + " is not a Kiln workspace (no kiln.json or tasks/)."
                    + " Create one with: kiln demo " + dir);
        }
        return dir.toAbsolutePath().normalize();
    }
}
