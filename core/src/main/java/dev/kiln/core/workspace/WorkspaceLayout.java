package dev.kiln.core.workspace;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where everything of one workspace lives (docs/ARCHITECTURE.md, "The workspace"). Pure paths: nothing here touches the disk
 * except {@link #isWorkspace}.
 *
 * @param root the workspace directory (absolute, normalized)
 */
public record WorkspaceLayout(Path root) {

    public WorkspaceLayout {
        root = root.toAbsolutePath().normalize();
    }

    public static WorkspaceLayout of(Path root) {
        return new WorkspaceLayout(root);
    }

    public Path settingsFile() {
        return root.resolve(WorkspaceSettings.FILE_NAME);
    }

    public Path tasksDir() {
        return root.resolve("tasks");
    }

    public Path observerDir() {
        return root.resolve("observer");
    }

    public Path stateFile() {
        return observerDir().resolve("state.json");
    }

    public Path driftDir() {
        return observerDir().resolve("drift");
    }

    public Path apiTokenFile() {
        return observerDir().resolve("api-token");
    }

    public Path targetsDir() {
        return root.resolve("targets");
    }

    /**
     * Source archives pulled from the object store onto this host ({@code kiln archive pull}), one
     * {@code <sha256>.tar.gz} each: Kiln's output, never watched.
     */
    public Path archivesDir() {
        return observerDir().resolve("archives");
    }

    public Path serversFile() {
        return root.resolve("servers.json");
    }

    /** A directory that holds a {@code kiln.json} or a {@code tasks/} directory is taken as a Kiln workspace. */
    public boolean isWorkspace() {
        return Files.isRegularFile(settingsFile()) || Files.isDirectory(tasksDir());
    }

    /** The workspace's name as shown to people: its directory name. */
    public String name() {
        Path n = root.getFileName();
        return n == null ? root.toString() : n.toString();
    }
}
