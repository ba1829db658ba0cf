package dev.kiln.core.doctor;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the doctor found: a verdict, a one-line headline ("up to date", "stale by N contracts since HH:MM:SS because
 * …"), each difference with its explanation, the workspace-level evidence, and what to do. Immutable.
 *
 * @param verdict up to date, stale (explained), or cannot tell (and {@link #headline()} says why)
 * @param headline the verdict in one line
 * @param workspace the workspace directory, or null when it could not be found
 * @param source what was compared with the disk: a state.json path or a daemon's /api/state URL, or null
 * @param publishedRevision the published document's revision, or -1
 * @param publishedAt when the published document's tick ran, or null
 * @param checkedAt the instant of the fresh projection (or of the check, when there was none)
 * @param contracts contracts (leaves) in the fresh projection, -1 when there was none
 * @param differences what differs, likely cause first in each
 * @param evidence facts about the workspace (the daemon, the lock, the watch, the clock), one sentence each
 * @param remedies what to do, most relevant first
 * @param elapsedMillis how long the diagnosis took
 */
public record Diagnosis(Verdict verdict, String headline, @Nullable String workspace, @Nullable String source, long publishedRevision,
        @Nullable Instant publishedAt, Instant checkedAt, int contracts, List<Difference> differences, List<String> evidence,
        List<String> remedies, double elapsedMillis) {

    /** The doctor's verdict, with the exit code scripts see. */
    public enum Verdict {
        UP_TO_DATE(0), STALE(1), CANNOT_TELL(2);

        private final int exitCode;

        Verdict(int exitCode) {
            this.exitCode = exitCode;
        }

        public int exitCode() {
            return exitCode;
        }

        public String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Diagnosis {
        differences = List.copyOf(differences);
        evidence = List.copyOf(evidence);
        remedies = List.copyOf(remedies);
    }

    /** A diagnosis that could not be made, and why. */
    static Diagnosis cannotTell(String why, @Nullable String workspace, @Nullable String source, Instant at, List<String> evidence,
            List<String> remedies, double elapsedMillis) {
        return new Diagnosis(Verdict.CANNOT_TELL, "cannot tell: " + why, workspace, source, -1, null, at, -1, List.of(),
                evidence, remedies, elapsedMillis);
    }

    /** 0 up to date, 1 stale, 2 cannot tell. */
    public int exitCode() {
        return verdict.exitCode();
    }

    /** Differences per likely cause, in the causes' order. */
    public Map<Cause, Integer> causes() {
        Map<Cause, Integer> m = new EnumMap<>(Cause.class);
        differences.forEach(d -> m.merge(d.cause(), 1, Integer::sum));
        return m;
    }

    /** Whether any difference names {@code cause}, as its likely cause or as further evidence. */
    public boolean mentions(Cause cause) {
        return differences.stream().anyMatch(d -> d.explainedBy(cause));
    }

    /** The structured diagnosis, as {@code kiln doctor --json} prints it. */
    public ObjectNode toJson() {
        ObjectNode o = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        o.put("verdict", verdict.jsonName());
        o.put("exit_code", exitCode());
        o.put("headline", headline);
        o.put("workspace", workspace);
        o.put("source", source);
        ObjectNode p = o.putObject("published");
        p.put("revision", publishedRevision);
        p.put("generated_at", publishedAt == null ? null : publishedAt.toString());
        o.put("checked_at", checkedAt.toString());
        o.put("contracts", contracts);
        o.put("elapsed_ms", Math.round(elapsedMillis * 10) / 10.0);
        ObjectNode counts = o.putObject("causes");
        causes().forEach((c, n) -> counts.put(c.jsonName(), n));
        ArrayNode ds = o.putArray("differences");
        for (Difference d : differences) {
            ObjectNode n = ds.addObject();
            n.put("key", d.key());
            n.put("file", d.file());
            n.put("kind", d.kind().jsonName());
            n.put("cause", d.cause().jsonName());
            Instant changedAt = d.changedAt();
            n.put("changed_at", changedAt == null ? null : changedAt.toString());
            ArrayNode fs = n.putArray("fields");
            d.fields().forEach(f -> fs.addObject().put("field", f.field()).put("published", f.published()).put("now", f.now()));
            ArrayNode es = n.putArray("explanations");
            d.explanations().forEach(e -> es.addObject().put("cause", e.cause().jsonName()).put("evidence", e.evidence()));
        }
        ArrayNode ev = o.putArray("evidence");
        evidence.forEach(ev::add);
        ArrayNode rs = o.putArray("remedies");
        remedies.forEach(rs::add);
        return o;
    }

    /** The diagnosis for a person: the headline, what to do, the evidence, then up to {@code maxDifferences}. */
    public String report(int maxDifferences) {
        StringBuilder b = new StringBuilder(headline).append('\n');
        if (!remedies.isEmpty()) {
            b.append("What to do:\n");
            remedies.forEach(r -> b.append("  - ").append(r).append('\n'));
        }
        if (!evidence.isEmpty()) {
            b.append("Evidence:\n");
            evidence.forEach(e -> b.append("  - ").append(e).append('\n'));
        }
        int shown = 0;
        for (Difference d : differences) {
            if (shown++ == maxDifferences) {
                b.append("  … and ").append(differences.size() - maxDifferences).append(" more (--json lists all)\n");
                break;
            }
            b.append(d.kind().jsonName()).append(": ").append(d.key()).append(" (tasks/").append(d.file()).append(")\n");
            for (Difference.FieldChange f : d.fields()) {
                b.append("    ").append(f.field()).append(": ").append(f.published()).append(" → ").append(f.now()).append('\n');
            }
            for (Difference.Explanation e : d.explanations()) {
                b.append("    [").append(e.cause().jsonName()).append("] ").append(e.evidence()).append('\n');
            }
        }
        return b.toString();
    }
}
