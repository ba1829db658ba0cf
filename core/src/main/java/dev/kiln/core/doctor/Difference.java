package dev.kiln.core.doctor;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One contract (or failing file) whose published projection differs from a fresh one, and why.
 *
 * @param key the leaf id (or, for a file that fails and has no leaf, its path under {@code tasks/})
 * @param file the contract file under {@code tasks/}
 * @param kind how it differs
 * @param fields what differs, field by field (empty for an added or removed leaf)
 * @param changedAt when the difference began, as far as the evidence says (a file's ctime, a passed deadline), or null
 * @param explanations the likely cause first, then further evidence; never empty
 */
public record Difference(String key, String file, Kind kind, List<FieldChange> fields, @Nullable Instant changedAt,
        List<Explanation> explanations) {

    public Difference {
        fields = List.copyOf(fields);
        explanations = List.copyOf(explanations);
        if (explanations.isEmpty()) {
            throw new IllegalArgumentException("a difference needs at least one explanation");
        }
    }

    /** How a contract differs between the published and the fresh projection. */
    public enum Kind {
        /** On disk now, not in the published projection. */
        ADDED,
        /** In the published projection, gone from disk. */
        REMOVED,
        /** In both, with different fields. */
        CHANGED,
        /** Fails to parse now (published: a leaf, or another failure). */
        FAILING_NOW,
        /** Failed to parse then (published as a failure), parses now. */
        FAILED_THEN;

        public String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One field's values.
     *
     * @param field the state document's field name ({@code engine.liveness} for a nested one)
     * @param published its published value, as JSON text ({@code (absent)} when missing)
     * @param now its value in a fresh projection
     *     (either is null only where a daemon's answer had none: the doctor itself always writes both)
     */
    public record FieldChange(String field, @Nullable String published, @Nullable String now) {
    }

    /**
     * A cause and the evidence for it, in a sentence.
     *
     * @param cause what it shows
     * @param evidence the facts, for a person
     */
    public record Explanation(Cause cause, String evidence) {
    }

    /** The likely cause. */
    public Cause cause() {
        return explanations.get(0).cause();
    }

    /** Whether only time-derived fields (overdue, engine liveness) differ. */
    public boolean timeDerivedOnly() {
        return kind == Kind.CHANGED && !fields.isEmpty()
                && fields.stream().allMatch(f -> Comparison.TIME_DERIVED.contains(f.field()));
    }

    /** Whether {@code cause} is among the explanations. */
    public boolean explainedBy(Cause cause) {
        return explanations.stream().anyMatch(e -> e.cause() == cause);
    }
}
