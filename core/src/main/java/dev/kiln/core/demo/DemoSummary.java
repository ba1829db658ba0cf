package dev.kiln.core.demo;

import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What {@link DemoWorkspace#write} planted, with paths relative to the workspace root.
 *
 * @param root the workspace
 * @param contracts contract files written (including the malformed one)
 * @param seed the generator seed
 * @param legacyIds contracts whose {@code leaf_id} is the legacy stem shape
 * @param malformed the contract that is not valid JSON
 * @param enginePid the contract that declares an engine pid
 * @param pastDeadline contracts whose deadline is in the past
 */
public record DemoSummary(Path root, int contracts, long seed, List<String> legacyIds, @Nullable String malformed,
        @Nullable String enginePid, List<String> pastDeadline) {
}
