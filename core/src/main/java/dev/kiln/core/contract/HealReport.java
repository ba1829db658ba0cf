package dev.kiln.core.contract;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
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

    /**
     * The one JSON rendering of a sweep ({@code kiln heal --json}, {@code POST /api/heal}): {@code dry_run},
     * {@code scanned}, and the arrays {@code changes}, {@code misplaced}, {@code problems} (always present).
     */
    public ObjectNode toJson() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("dry_run", dryRun);
        o.put("scanned", scanned);
        ArrayNode c = o.putArray("changes");
        changes.forEach(x -> c.addObject().put("file", x.file()).put("from", x.from()).put("to", x.to()));
        ArrayNode m = o.putArray("misplaced");
        misplaced.forEach(x -> m.addObject().put("file", x.file()).put("declared", x.declared()).put("expected", x.expected()));
        ArrayNode p = o.putArray("problems");
        problems.forEach(x -> p.addObject().put("file", x.file()).put("reason", x.reason()));
        return o;
    }

    /** Whether a sweep (not a dry run) would find nothing left to rewrite. */
    public boolean clean() {
        return changes.isEmpty();
    }
}
