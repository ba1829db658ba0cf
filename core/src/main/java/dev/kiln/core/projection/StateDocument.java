package dev.kiln.core.projection;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.snapshot.SnapshotFailure;
import dev.kiln.core.snapshot.SnapshotStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The state.json document: its stable content (leaves, failures, meta — what decides "changed") and the
 * volatile rest (revision, generated_at, the last tick's counters), rendered as JSON.
 */
final class StateDocument {
    static final int FORMAT = 1;
    static final ObjectMapper MAPPER = new ObjectMapper();

    /** What decides whether the projection changed. Records, so equality is structural and cheap. */
    record Stable(List<LeafState> leaves, List<SnapshotFailure> failures, JsonNode meta) {
    }

    private StateDocument() {
    }

    /** The key inside {@code meta} for runtime instrumentation: volatile, never part of the stable content. */
    static final String RUNTIME_META = "daemon";

    static byte[] render(Path workspace, long revision, Instant generatedAt, Stable stable, TickResult tick) {
        return render(workspace, revision, generatedAt, stable, tick, null);
    }

    /** Renders, adding {@code runtime} (if not null) as {@code meta.daemon}, which does not count as a change. */
    static byte[] render(Path workspace, long revision, Instant generatedAt, Stable stable, TickResult tick, JsonNode runtime) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("format", FORMAT);
        o.put("revision", revision);
        o.put("generated_at", generatedAt.toString());
        o.put("workspace", workspace.toString());
        stableInto(o, stable);
        if (runtime != null && o.get("meta") instanceof ObjectNode meta) {
            meta.set(RUNTIME_META, runtime);
        }
        ObjectNode t = o.putObject("tick");
        t.put("reason", tick.reason().jsonName());
        t.put("at", tick.at().toString());
        SnapshotStats s = tick.stats();
        ObjectNode c = t.putObject("counters");
        c.put("enumerated", s.enumerated()).put("parsed", s.parsed()).put("reused", s.reused())
                .put("failed", s.failed()).put("pruned", s.pruned()).put("build_ms", round(s.buildMillis()));
        ArrayNode drift = t.putArray("drift_pruned");
        tick.driftPruned().forEach(drift::add);
        try {
            return MAPPER.writeValueAsBytes(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
    }

    /** The stable content as it reads back from a file (numbers normalized by the round trip). */
    static JsonNode stableTree(Stable stable) {
        ObjectNode o = MAPPER.createObjectNode();
        stableInto(o, stable);
        try {
            return MAPPER.readTree(MAPPER.writeValueAsBytes(o));
        } catch (IOException e) {
            throw new IllegalStateException("a JSON tree always round-trips", e);
        }
    }

    /** The stable part of an existing document, or {@code null}. */
    static JsonNode stableTree(JsonNode doc) {
        ObjectNode o = MAPPER.createObjectNode();
        for (String f : List.of("leaves", "failures", "meta")) {
            if (doc.has(f)) {
                o.set(f, doc.get(f));
            }
        }
        if (o.get("meta") instanceof ObjectNode meta && meta.has(RUNTIME_META)) {
            ObjectNode stableMeta = meta.deepCopy();
            stableMeta.remove(RUNTIME_META);
            o.set("meta", stableMeta);
        }
        return o;
    }

    /** An existing document: its bytes and its tree. */
    record Existing(byte[] bytes, JsonNode tree) {
    }

    /** The previous document, or {@code null} when there is none or it is not a JSON object. */
    static Existing readExisting(Path file) throws IOException {
        try {
            byte[] bytes = Files.readAllBytes(file);
            JsonNode n = MAPPER.readTree(bytes);
            return n != null && n.isObject() ? new Existing(bytes, n) : null;
        } catch (NoSuchFileException e) {
            return null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private static void stableInto(ObjectNode o, Stable stable) {
        ArrayNode leaves = o.putArray("leaves");
        for (LeafState l : stable.leaves()) {
            ObjectNode n = leaves.addObject();
            n.put("leaf_id", l.leafId());
            n.put("file", l.file());
            n.put("declared_leaf_id", l.declaredLeafId());
            n.put("id_shape", l.idShape().name().toLowerCase(Locale.ROOT));
            n.put("title", l.title());
            n.put("status", l.status());
            n.put("deadline", l.deadline() == null ? null : l.deadline().toString());
            n.put("overdue", l.overdue());
            ArrayNode enc = n.putArray("enclosure");
            l.enclosure().forEach(enc::add);
            if (l.engine() == null) {
                n.putNull("engine");
            } else {
                n.putObject("engine")
                        .put("pid", l.engine().pid())
                        .put("command", l.engine().command())
                        .put("started_at", l.engine().startedAt() == null ? null : l.engine().startedAt().toString())
                        .put("liveness", l.engine().liveness().name().toLowerCase(Locale.ROOT));
            }
        }
        ArrayNode failures = o.putArray("failures");
        for (SnapshotFailure f : stable.failures()) {
            failures.addObject().put("path", f.path()).put("kind", f.kind().name().toLowerCase(Locale.ROOT)).put("reason", f.reason());
        }
        o.set("meta", stable.meta().deepCopy());
    }

    private static double round(double ms) {
        return Math.round(ms * 1000) / 1000.0;
    }
}
