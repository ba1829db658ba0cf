package dev.kiln.core.serve.wire;

import static dev.kiln.core.serve.wire.WireTypes.constant;
import static dev.kiln.core.serve.wire.WireTypes.list;
import static dev.kiln.core.serve.wire.WireTypes.name;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.kiln.core.doctor.Cause;
import dev.kiln.core.doctor.Diagnosis;
import dev.kiln.core.doctor.Difference;
import dev.kiln.core.serve.wire.WireTypes.Codec;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /api/v1/doctor}'s wire type: the same shape {@code kiln doctor --json} prints
 * ({@link Diagnosis#toJson()}), so a script reads both alike. Naming rule: {@link WireTypes}.
 */
final class WireDoctor {
    private WireDoctor() {
    }

    /** The published document the fresh projection was compared with. */
    record Published(@JsonProperty("revision") long revision, @JsonProperty("generated_at") @Nullable Instant generatedAt) {
    }

    record FieldChange(@JsonProperty("field") String field, @JsonProperty("published") @Nullable String published,
            @JsonProperty("now") @Nullable String now) {
    }

    record Explanation(@JsonProperty("cause") String cause, @JsonProperty("evidence") String evidence) {
    }

    /** One contract that differs; {@code cause} is the likely one (the first explanation's). */
    record Change(@JsonProperty("key") String key, @JsonProperty("file") String file, @JsonProperty("kind") String kind,
            @JsonProperty("cause") String cause, @JsonProperty("changed_at") @Nullable Instant changedAt,
            @JsonProperty("fields") List<FieldChange> fields, @JsonProperty("explanations") List<Explanation> explanations) {
        static Change of(Difference d) {
            return new Change(d.key(), d.file(), name(d.kind()), name(d.cause()), d.changedAt(),
                    d.fields().stream().map(f -> new FieldChange(f.field(), f.published(), f.now())).toList(),
                    d.explanations().stream().map(e -> new Explanation(name(e.cause()), e.evidence())).toList());
        }

        Difference core() {
            return new Difference(key, file, constant(Difference.Kind.class, kind), list(fields).stream()
                    .map(f -> new Difference.FieldChange(f.field(), f.published(), f.now())).toList(), changedAt,
                    list(explanations).stream().map(e -> new Difference.Explanation(constant(Cause.class, e.cause()),
                            e.evidence())).toList());
        }
    }

    /** The diagnosis; {@code exit_code} and {@code causes} are derived (what a script branches on) and not read back. */
    record Verdict(@JsonProperty("verdict") String verdict, @JsonProperty("exit_code") int exitCode,
            @JsonProperty("headline") String headline, @JsonProperty("workspace") @Nullable String workspace,
            @JsonProperty("source") @Nullable String source, @JsonProperty("published") Published published,
            @JsonProperty("checked_at") Instant checkedAt, @JsonProperty("contracts") int contracts,
            @JsonProperty("elapsed_ms") double elapsedMs, @JsonProperty("causes") Map<String, Integer> causes,
            @JsonProperty("differences") List<Change> differences, @JsonProperty("evidence") List<String> evidence,
            @JsonProperty("remedies") List<String> remedies) {
        static Verdict of(Diagnosis d) {
            Map<String, Integer> causes = new LinkedHashMap<>();
            d.causes().forEach((c, n) -> causes.put(name(c), n));
            return new Verdict(name(d.verdict()), d.exitCode(), d.headline(), d.workspace(), d.source(),
                    new Published(d.publishedRevision(), d.publishedAt()), d.checkedAt(), d.contracts(),
                    Math.round(d.elapsedMillis() * 10) / 10.0, causes, d.differences().stream().map(Change::of).toList(),
                    d.evidence(), d.remedies());
        }

        Diagnosis core() {
            Published p = published == null ? new Published(-1, null) : published;
            return new Diagnosis(constant(Diagnosis.Verdict.class, verdict), headline, workspace, source, p.revision(),
                    p.generatedAt(), checkedAt, contracts, list(differences).stream().map(Change::core).toList(), list(evidence),
                    list(remedies), elapsedMs);
        }
    }

    static final List<Codec<?, ?>> CODECS = List.of(Codec.of(Diagnosis.class, Verdict.class, Verdict::of, Verdict::core));
}
