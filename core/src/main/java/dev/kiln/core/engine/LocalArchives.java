package dev.kiln.core.engine;

import dev.kiln.core.archive.ArchiveCache;
import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.archive.ArchiveEntry;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The {@link Archives} of this process: the workspace's {@link ArchiveCache}, with the workspace's bounds on what an
 * archive may hold.
 *
 * <p>Thread-safety: thread-safe, as the cache is; it holds no state of its own.
 */
final class LocalArchives implements Archives {
    private final WorkspaceLayout layout;
    private final ArchiveCache archives;

    LocalArchives(WorkspaceLayout layout, ArchiveCache archives) {
        this.layout = layout;
        this.archives = archives;
    }

    @Override
    public ArchiveCacheStats stats() {
        return archives.stats();
    }

    @Override
    public List<ArchiveEntry> entries() {
        return archives.entries();
    }

    @Override
    public long maximumBytes() {
        return archives.maximumBytes();
    }

    @Override
    public String policy() {
        return archives.policy().name().toLowerCase(Locale.ROOT);
    }

    /**
     * The archive of {@code members} of {@code directory} (relative to the workspace), from the cache or built.
     *
     * <p>Refused before any file is read: a directory or member whose real path leaves the workspace (a lexical
     * check alone let a symlink inside the workspace archive {@code /etc/ssh});
     * {@link EngineException.Refusal#OUTSIDE_WORKSPACE}), and member files adding up to more than the cache's
     * bound ({@code archive_max_bytes}: an archive is built in memory, and a 1.5 GB tree ran the daemon out of
     * heap; {@link EngineException.Refusal#TOO_LARGE}). The walk itself never follows a symlink.
     */
    /** The archive {@link #archive} answers, as its bytes (the cache's copy when nothing changed): what a push uploads. */
    dev.kiln.core.archive.SourceArchive source(String directory, List<String> members) {
        Path root = archive(directory, members).root();
        return archives.get(root, members, dev.kiln.core.archive.SourceArchive.DEFAULT_EXCLUDES, archives.maximumBytes());
    }

    @Override
    public ArchiveEntry archive(String directory, List<String> members) {
        Path workspace = realPath(layout.root(), "the workspace " + layout.root());
        Path lexical = layout.root().resolve(directory).normalize();
        if (!lexical.startsWith(layout.root().normalize())) {
            throw outside("'" + directory + "' is outside the workspace " + layout.root());
        }
        if (!Files.exists(lexical)) {
            throw new EngineException(EngineException.Kind.REJECTED, lexical + " is not a directory (it does not exist)");
        }
        Path root = realPath(lexical, lexical.toString());
        if (!root.startsWith(workspace)) {
            throw outside("'" + directory + "' leads out of the workspace " + workspace + " through a symlink (it is "
                    + root + "); archives are made only of the workspace's own files");
        }
        if (!Files.isDirectory(root)) {
            throw new EngineException(EngineException.Kind.REJECTED, root + " is not a directory");
        }
        for (String m : members) {
            Path member = root.resolve(m.strip()).normalize();
            if (!member.startsWith(root)) {
                throw outside("member '" + m + "' is outside " + root);
            }
            // A symlinked member is archived as a link, never followed; one that leads out is refused all the same.
            if (Files.exists(member) && !realPath(member, member.toString()).startsWith(workspace)) {
                throw outside("member '" + m + "' of " + root + " leads out of the workspace " + workspace + " through a"
                        + " symlink; archives are made only of the workspace's own files");
            }
        }
        try {
            archives.get(root, members, dev.kiln.core.archive.SourceArchive.DEFAULT_EXCLUDES, archives.maximumBytes());
        } catch (dev.kiln.core.archive.ArchiveTooLargeException e) {
            throw new EngineException(EngineException.Refusal.TOO_LARGE, java.util.Objects.requireNonNullElse(e.getMessage(), e.toString()));
        }
        return archives.entries().stream().filter(e -> e.root().equals(root)).findFirst()
                .orElseThrow(() -> new EngineException(EngineException.Kind.FAILED, "The archive of " + root
                        + " was built but not held (larger than the cache's bound of " + archives.maximumBytes() + " bytes?)"));
    }

    private static EngineException outside(String message) {
        return new EngineException(EngineException.Refusal.OUTSIDE_WORKSPACE, message);
    }

    private static Path realPath(Path p, String what) {
        try {
            return p.toRealPath();
        } catch (java.io.IOException e) {
            throw new EngineException(EngineException.Kind.REJECTED, "Cannot resolve " + what + ": " + e.getMessage());
        }
    }

    @Override
    public void invalidate() {
        archives.invalidateAll();
    }
}
