package dev.kiln.core.projection;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.snapshot.SnapshotFailure;
import dev.kiln.core.snapshot.SnapshotStats;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    /**
     * A rendered document and its parts as JSON text: each leaf's object by leaf id (what SSE deltas compare and
     * embed without re-parsing the document), the failures array and the stable meta object.
     */
    record Rendered(byte[] bytes, Map<String, String> leaves, String failures, String meta) {
    }

    static byte[] render(Path workspace, long revision, Instant generatedAt, Stable stable, TickResult tick) {
        return render(workspace, revision, generatedAt, stable, tick, null, new LeafJsonCache()).bytes();
    }

    /**
     * Renders the document, adding {@code runtime} (if not null) as {@code meta.daemon}, which does not count as a
     * change. Each leaf's JSON comes from {@code cache} when an equal leaf was rendered before: at 10,000 leaves,
     * building and writing a tree of every leaf on every tick costs far more than the incremental snapshot.
     */
    static Rendered render(Path workspace, long revision, Instant generatedAt, Stable stable, TickResult tick,
            JsonNode runtime, LeafJsonCache cache) {
        Map<String, String> leafJson = new LinkedHashMap<>(stable.leaves().size() * 2);
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 + stable.leaves().size() * 340);
        String failuresJson;
        String metaJson;
        try {
            ObjectNode head = MAPPER.createObjectNode();
            head.put("format", FORMAT);
            head.put("revision", revision);
            head.put("generated_at", generatedAt.toString());
            head.put("workspace", workspace.toString());
            byte[] h = MAPPER.writeValueAsBytes(head);
            out.write(h, 0, h.length - 1); // without its closing brace
            out.write(",\"leaves\":[".getBytes(StandardCharsets.UTF_8));
            boolean first = true;
            for (LeafState l : stable.leaves()) {
                LeafJson j = cache.json(l);
                leafJson.put(l.leafId(), j.text());
                if (!first) {
                    out.write(',');
                }
                first = false;
                out.write(j.utf8());
            }
            ArrayNode failures = MAPPER.createArrayNode();
            for (SnapshotFailure f : stable.failures()) {
                failures.addObject().put("path", f.path()).put("kind", f.kind().name().toLowerCase(Locale.ROOT)).put("reason", f.reason());
            }
            failuresJson = MAPPER.writeValueAsString(failures);
            metaJson = MAPPER.writeValueAsString(stable.meta());
            ObjectNode meta = stable.meta() instanceof ObjectNode m ? m.deepCopy() : MAPPER.createObjectNode();
            if (runtime != null) {
                meta.set(RUNTIME_META, runtime);
            }
            ObjectNode t = MAPPER.createObjectNode();
            t.put("reason", tick.reason().jsonName());
            t.put("at", tick.at().toString());
            SnapshotStats s = tick.stats();
            ObjectNode c = t.putObject("counters");
            c.put("enumerated", s.enumerated()).put("parsed", s.parsed()).put("reused", s.reused())
                    .put("failed", s.failed()).put("pruned", s.pruned()).put("build_ms", round(s.buildMillis()));
            ArrayNode drift = t.putArray("drift_pruned");
            tick.driftPruned().forEach(drift::add);
            out.write(("],\"failures\":" + failuresJson + ",\"meta\":" + MAPPER.writeValueAsString(meta) + ",\"tick\":"
                    + MAPPER.writeValueAsString(t) + "}").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("rendering to memory cannot fail", e);
        }
        cache.retainOnly();
        return new Rendered(out.toByteArray(), Collections.unmodifiableMap(leafJson), failuresJson, metaJson);
    }

    /** One leaf's JSON object, as text (for SSE deltas) and as the UTF-8 bytes the document is assembled from. */
    record LeafJson(String text, byte[] utf8) {
    }

    /**
     * Each leaf's JSON by leaf value, kept across ticks and pruned to the leaves of the last render: an unchanged
     * leaf costs a hash lookup and a copy of its bytes, and keeps the very same text instance (so SSE compares by
     * identity first).
     */
    static final class LeafJsonCache {
        private Map<LeafState, LeafJson> byLeaf = new HashMap<>();
        private Map<LeafState, LeafJson> next = new HashMap<>();

        LeafJson json(LeafState l) {
            LeafJson j = byLeaf.get(l);
            if (j == null) {
                try {
                    String text = MAPPER.writeValueAsString(leafNode(l));
                    j = new LeafJson(text, text.getBytes(StandardCharsets.UTF_8));
                } catch (JsonProcessingException e) {
                    throw new IllegalStateException("a JSON tree always serializes", e);
                }
            }
            next.put(l, j);
            return j;
        }

        void retainOnly() {
            byLeaf = next;
            next = new HashMap<>(Math.max(16, byLeaf.size() * 4 / 3 + 16));
        }
    }

    static ObjectNode leafNode(LeafState l) {
        ObjectNode n = MAPPER.createObjectNode();
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
        return n;
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
            leaves.add(leafNode(l));
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
