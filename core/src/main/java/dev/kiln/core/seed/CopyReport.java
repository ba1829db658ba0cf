package dev.kiln.core.seed;

import java.time.Duration;
import java.util.Optional;

/**
 * What {@link SeedCaches#copyInto} did. A copy is best-effort: on failure {@link #problem()} says why, and the job
 * goes on with whatever cache it has.
 *
 * @param copied whether the whole seed was copied
 * @param files regular files copied
 * @param bytes bytes copied
 * @param links symbolic links recreated (uv's cache links its wheel entries to archives inside itself)
 * @param duration how long the copy took
 * @param problem what went wrong, when something did
 * @param refused whether the copy was refused before it began because the scratch cache and the seed overlap
 *     (compared by real path): a caller's mistake, not a best-effort shortfall, so the CLI exits non-zero
 * @param mode how file contents were moved: {@link CopyMode#KERNEL} unless the kernel path was refused (then
 *     {@link CopyMode#STREAM} for that file and every later one)
 */
public record CopyReport(boolean copied, long files, long bytes, long links, Duration duration, Optional<String> problem,
        boolean refused, CopyMode mode) {
}
