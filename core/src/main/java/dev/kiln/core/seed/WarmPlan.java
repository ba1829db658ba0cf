package dev.kiln.core.seed;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What a warm of one target would do, computed without writing anything (a dry run).
 *
 * @param target the target's name
 * @param hash the current lockfile hash
 * @param seededHash the hash the seed holds now, if a seed exists
 * @param warmNeeded whether a warm would run uv
 * @param seedDir where the seed lives
 * @param command the exact command a warm runs (the uv path as found now, or {@code uv} when it is missing)
 * @param environment the variables Kiln sets for uv on top of the allowlisted caller environment
 * @param uvProblem why uv cannot be used, when it cannot
 */
public record WarmPlan(String target, String hash, Optional<String> seededHash, boolean warmNeeded, Path seedDir,
        List<String> command, List<String> environment, Optional<String> uvProblem) {

    public WarmPlan {
        command = List.copyOf(command);
        environment = List.copyOf(environment);
    }
}
