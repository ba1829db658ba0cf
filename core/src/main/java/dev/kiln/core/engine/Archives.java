package dev.kiln.core.engine;

import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.archive.ArchiveEntry;
import java.util.List;

/**
 * The source archive cache on the engine's host. Implemented once in process (shared by the local engine and the
 * daemon's routes), once over {@code /api/v1}.
 *
 * <p>Thread-safety: thread-safe. Methods documented "from memory" never block; the others may block on disk or the
 * network.
 */
public interface Archives {
    /** The archive cache's counters now. */
    ArchiveCacheStats stats();

    /** The archives it holds now, most recently used first. */
    List<ArchiveEntry> entries();

    /** The bound on the bytes it holds. From memory. */
    long maximumBytes();

    /** Its policy, {@code validated} or {@code snapshot}. From memory. */
    String policy();

    /**
     * Asks the cache for the archive of {@code members} (all when empty) of {@code directory}, relative to the
     * workspace root: a hit when nothing changed, a rebuild when a member did.
     */
    ArchiveEntry archive(String directory, List<String> members);

    /** Drops every held archive. */
    void invalidate();
}
