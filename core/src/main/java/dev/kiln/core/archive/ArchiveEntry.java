package dev.kiln.core.archive;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * One archive the cache holds now: what it packs ({@code root}, {@code members} requested, {@code files} packed),
 * its size and digest, how often it was served from the cache, when it was built and when a hit last re-validated
 * it against the file system (empty before its first validated hit, and always under {@link ArchiveCache.Policy#SNAPSHOT}).
 */
public record ArchiveEntry(Path root, int members, int files, long bytes, String sha256, long hits, Instant builtAt,
        Optional<Instant> lastValidated) {
}
