package dev.kiln.app.common;

import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Path;
import picocli.CommandLine.Parameters;

/**
 * Mixin: the workspace directory as a command's first positional argument ({@code kiln project DIR}, {@code kiln
 * seed ls DIR}, …). A command's own positional arguments start at index 1.
 */
public final class WorkspaceArgument {
    @Parameters(index = "0", paramLabel = "DIR", description = "The workspace directory.")
    Path dir;

    /** The directory as given (for messages that name what the user typed). */
    public Path given() {
        return dir;
    }

    /** The workspace, checked ({@link Workspaces#require}): absolute and normalized. */
    public Path require() {
        return Workspaces.require(dir);
    }

    /** The checked workspace's layout. */
    public WorkspaceLayout layout() {
        return WorkspaceLayout.of(require());
    }
}
