package dev.kiln.core.seed;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * One target's seed as it is on disk, for {@code kiln seed ls} and the console.
 *
 * @param target the target's name
 * @param seedDir where its seed lives
 * @param seeded whether a complete seed exists
 * @param hash the lockfile hash the seed was warmed for
 * @param currentHash the target's lockfile hash now, if the target could be read
 * @param uvVersion the uv that warmed it
 * @param warmedAt when it was swapped in
 * @param warmDuration how long that warm took
 * @param bytes bytes of the seed
 * @param files regular files of the seed
 * @param wheels unpacked wheels in the seed
 * @param problem why the target could not be read, if it could not
 */
public record SeedInfo(String target, Path seedDir, boolean seeded, Optional<String> hash, Optional<String> currentHash,
        Optional<String> uvVersion, Optional<Instant> warmedAt, Optional<java.time.Duration> warmDuration, long bytes,
        long files, long wheels, Optional<String> problem) {

    /** Whether the seed matches the target's lockfile as it is now. */
    public boolean current() {
        return seeded && hash.isPresent() && hash.equals(currentHash);
    }
}
