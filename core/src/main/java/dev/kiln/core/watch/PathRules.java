package dev.kiln.core.watch;

import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Maps a path the watcher reported to the domain it affects, or to nothing when it must not wake the projector:
 * the projection's own outputs ({@code observer/state.json}, {@code observer/api-token}, the serve lock),
 * {@code *.tmp} files, lock files and dotfiles (editor swap files, {@code .git}). A path under the workspace that
 * matches no rule is {@link ChangeDomain#UNKNOWN}: the caller fails open and re-projects everything.
 */
final class PathRules {
    private final WorkspaceLayout layout;
    private final Path root;
    private final Path tasks;
    private final Path drift;
    private final Path targets;
    private final Path observer;
    private final Path settings;

    PathRules(WorkspaceLayout layout) {
        this.layout = layout;
        this.root = layout.root();
        this.tasks = layout.tasksDir();
        this.drift = layout.driftDir();
        this.targets = layout.targetsDir();
        this.observer = layout.observerDir();
        this.settings = layout.settingsFile();
    }

    /** The domain {@code path} (a file) affects, or empty when it is ignored. */
    Optional<ChangeDomain> classify(Path path) {
        return classify(path, false);
    }

    /**
     * The domain {@code path} affects, or empty when it is ignored. Name suffixes ({@code *.tmp}, lock files) are
     * ignored for files only: a directory so named may hold contracts, and dropping its move would lose them.
     */
    Optional<ChangeDomain> classify(Path path, boolean isDirectory) {
        Path p = path.toAbsolutePath().normalize();
        if (p.equals(settings)) {
            return Optional.of(ChangeDomain.SETTINGS);
        }
        if (!p.startsWith(root)) {
            return Optional.of(ChangeDomain.UNKNOWN);
        }
        if (isIgnoredName(root.relativize(p), isDirectory)) {
            return Optional.empty();
        }
        if (p.startsWith(tasks)) {
            return Optional.of(ChangeDomain.CONTRACTS);
        }
        if (p.startsWith(drift)) {
            return Optional.of(ChangeDomain.DRIFT);
        }
        if (p.startsWith(targets)) {
            return Optional.of(ChangeDomain.TARGETS);
        }
        if (p.equals(observer) || (p.startsWith(observer) && p.getNameCount() == observer.getNameCount() + 1)) {
            // observer/ holds outputs (state.json, api-token, serve.lock) and the drift root; only the latter is an input
            return Optional.empty();
        }
        if (p.getParent() != null && p.getParent().equals(root)) {
            // other top-level entries (servers.json, seeds/, a README) are not inputs of the projection
            return Optional.empty();
        }
        return Optional.of(ChangeDomain.UNKNOWN);
    }

    /** Whether {@code path} is (or may become) one of the watched roots, so the root set must be re-derived. */
    boolean isRootCandidate(Path path) {
        Path p = path.toAbsolutePath().normalize();
        return p.equals(tasks) || p.equals(targets) || p.equals(observer) || p.equals(drift);
    }

    /** Whether a directory met while walking a root is skipped (no watch, no events): dot-directories. */
    static boolean isIgnoredDirectory(Path dir) {
        Path name = dir.getFileName();
        return name != null && name.toString().startsWith(".");
    }

    WorkspaceLayout layout() {
        return layout;
    }

    private static boolean isIgnoredName(Path relative, boolean isDirectory) {
        for (Path segment : relative) {
            if (segment.toString().startsWith(".")) {
                return true;
            }
        }
        Path last = relative.getFileName();
        if (last == null || isDirectory) {
            return false;
        }
        String name = last.toString();
        return name.endsWith(".tmp") || name.endsWith("~") || name.endsWith(".swp") || name.endsWith(".lck")
                // uv.lock is a target's input (its hash keys the seed); any other *.lock is somebody's lock file
                || (name.endsWith(".lock") && !name.equals("uv.lock"));
    }
}
