package dev.kiln.core.archive;

import dev.kiln.core.telemetry.KilnEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What an {@link ArchiveCache} did, as typed events for the console. Every event carries the cache's
 * {@link ArchiveCacheStats} right after it, so a view can show counters without asking the cache.
 */
public sealed interface ArchiveEvent extends KilnEvent {

    /** The source root (real path) the event is about. */
    Path root();

    /** The cache's counters just after this event. */
    ArchiveCacheStats stats();

    /** Why a request missed. */
    enum MissCause {
        /** Nothing cached for the key. */
        ABSENT,
        /** Cached, but validation found the member set changed. */
        CHANGED,
        /** Another thread was building the same key; this request waited for its bytes. */
        JOINED
    }

    /** Why an archive left the cache. */
    enum EvictionCause {
        /** The byte bound needed the room (least recently used first). */
        SIZE,
        /** Stale: its member set changed and a rebuild replaced it. */
        REPLACED,
        /** Dropped on request ({@code invalidateAll}). */
        EXPLICIT
    }

    /**
     * Served from the cache.
     *
     * @param validated whether the member set was re-validated (false under {@code SNAPSHOT})
     * @param validationNanos time the validation took (0 when not validated)
     */
    record Hit(Instant at, Path root, String sha256, long bytes, boolean validated, long validationNanos,
            ArchiveCacheStats stats) implements ArchiveEvent {
        @Override
        public String summary() {
            return "archive hit " + root.getFileName() + " (" + bytes + " B" + (validated
                    ? ", validated in " + validationNanos / 1000 + " µs)" : ", snapshot)");
        }
    }

    /**
     * No usable archive: one will be built (or is being built).
     *
     * @param change what changed, for {@link MissCause#CHANGED} (e.g. {@code "pkg/mod.py changed"}), else null
     */
    record Miss(Instant at, Path root, MissCause cause, @Nullable String change, ArchiveCacheStats stats) implements ArchiveEvent {
        @Override
        public String summary() {
            return "archive miss " + root.getFileName() + " (" + cause.name().toLowerCase(java.util.Locale.ROOT)
                    + (change == null ? "" : ": " + change) + ")";
        }
    }

    /** An archive was built. */
    record Built(Instant at, Path root, List<String> members, String sha256, long bytes, int entries, Duration buildTime,
            List<String> skipped, ArchiveCacheStats stats) implements ArchiveEvent {
        @Override
        public String summary() {
            return "archive built " + root.getFileName() + ": " + entries + " entries, " + bytes + " B in "
                    + buildTime.toMillis() + " ms" + (skipped.isEmpty() ? "" : ", " + skipped.size() + " skipped");
        }
    }

    /** A build failed; nothing was cached. */
    record BuildFailed(Instant at, Path root, String message, ArchiveCacheStats stats) implements ArchiveEvent {
        @Override
        public String summary() {
            return "archive build failed for " + root.getFileName() + ": " + message;
        }
    }

    /** An archive left the cache. */
    record Evicted(Instant at, Path root, String sha256, long bytes, EvictionCause cause, ArchiveCacheStats stats)
            implements ArchiveEvent {
        @Override
        public String summary() {
            return "archive evicted " + root.getFileName() + " (" + bytes + " B, "
                    + cause.name().toLowerCase(java.util.Locale.ROOT) + ")";
        }
    }
}
