package dev.kiln.core.contract;

import java.util.List;

/**
 * What a {@link LeafIdHeal} sweep found and did. Paths are relative to {@code tasks/}, {@code /}-separated.
 *
 * @param dryRun whether the sweep only planned (nothing was written)
 * @param scanned contract files looked at
 * @param changes stem-shaped ids rewritten to canonical (or planned to be, in a dry run)
 * @param misplaced ids that disagree with their location; left alone for a person to decide
 * @param problems files that could not be judged or rewritten, with the reason
 */
public record HealReport(boolean dryRun, int scanned, List<Change> changes, List<Misplaced> misplaced, List<Problem> problems) {

    public HealReport {
        changes = List.copyOf(changes);
        misplaced = List.copyOf(misplaced);
        problems = List.copyOf(problems);
    }

    /** A stem-shaped id rewritten to the canonical one. */
    public record Change(String file, String from, String to) {
    }

    /** An id that names another place than where its contract lives. */
    public record Misplaced(String file, String declared, String expected) {
    }

    /** A file the sweep could not handle, and why. */
    public record Problem(String file, String reason) {
    }

    /** Whether a sweep (not a dry run) would find nothing left to rewrite. */
    public boolean clean() {
        return changes.isEmpty();
    }
}
