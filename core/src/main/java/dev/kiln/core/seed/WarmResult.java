package dev.kiln.core.seed;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The outcome of one warm, as recorded in the workspace's warm journal.
 *
 * @param target the target's name
 * @param outcome how it ended
 * @param hash the lockfile hash the warm was for (empty when the target could not even be read)
 * @param at when the warm finished
 * @param duration how long it took, from the injected clock
 * @param bytes bytes of the seed afterwards (0 when no seed exists)
 * @param files regular files of the seed afterwards
 * @param message one human-readable line: what happened and, on failure, what to do
 * @param stderrTail the last lines uv wrote to stderr (empty when uv did not run or succeeded)
 */
public record WarmResult(String target, WarmOutcome outcome, String hash, Instant at, Duration duration, long bytes,
        long files, String message, List<String> stderrTail) {

    public WarmResult {
        stderrTail = List.copyOf(stderrTail);
    }
}
