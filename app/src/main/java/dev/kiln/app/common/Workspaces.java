package dev.kiln.app.common;

import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Path;

/** The check shared by every command that takes a workspace directory. */
public final class Workspaces {
    private Workspaces() {
    }

    /** {@code dir}, absolute and normalized, if it is a Kiln workspace; else a {@link CliException} saying how to make one. */
    public static Path require(Path dir) {
        if (!WorkspaceLayout.of(dir).isWorkspace()) {
            throw new CliException(dir.toAbsolutePath() + " is not a Kiln workspace (no kiln.json or tasks/)."
                    + " Create one with: kiln demo " + dir);
        }
        return dir.toAbsolutePath().normalize();
    }
}
