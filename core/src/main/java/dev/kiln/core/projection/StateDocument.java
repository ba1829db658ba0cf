package dev.kiln.core.projection;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.snapshot.SnapshotFailure;
import dev.kiln.core.snapshot.SnapshotStats;
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
        byte[] head;
        byte[] bytes;
        LeafJson[] parts;
        String failuresJson;
        String metaJson;
        try {
            ObjectNode headNode = MAPPER.createObjectNode();
            headNode.put("format", FORMAT);
            headNode.put("revision", revision);
            headNode.put("generated_at", generatedAt.toString());
            headNode.put("workspace", workspace.toString());
            byte[] h = MAPPER.writeValueAsBytes(headNode);
            byte[] open = ",\"leaves\":[".getBytes(StandardCharsets.UTF_8);
            head = java.util.Arrays.copyOf(h, h.length - 1 + open.length); // without its closing brace
            System.arraycopy(open, 0, head, h.length - 1, open.length);
            parts = new LeafJson[stable.leaves().size()];
            int leafBytes = 0;
            for (int i = 0; i < parts.length; i++) {
                LeafState l = stable.leaves().get(i);
                LeafJson j = cache.json(i, l);
                parts[i] = j;
                leafBytes += j.utf8().length;
                leafJson.put(l.leafId(), j.text());
            }
            leafBytes += Math.max(0, parts.length - 1); // the commas between leaves
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
            byte[] tail = ("],\"failures\":" + failuresJson + ",\"meta\":" + MAPPER.writeValueAsString(meta) + ",\"tick\":"
                    + MAPPER.writeValueAsString(t) + "}").getBytes(StandardCharsets.UTF_8);
            // assembled once into an array of the exact size: the document is megabytes at 10,000 leaves
            bytes = new byte[head.length + leafBytes + tail.length];
            System.arraycopy(head, 0, bytes, 0, head.length);
            int at = head.length;
            for (int i = 0; i < parts.length; i++) {
                if (i > 0) {
                    bytes[at++] = ',';
                }
                byte[] u = parts[i].utf8();
                System.arraycopy(u, 0, bytes, at, u.length);
                at += u.length;
            }
            System.arraycopy(tail, 0, bytes, at, tail.length);
        } catch (IOException e) {
            throw new IllegalStateException("rendering to memory cannot fail", e);
        }
        cache.retain(stable.leaves(), parts);
        return new Rendered(bytes, Collections.unmodifiableMap(leafJson), failuresJson, metaJson);
    }

    /** One leaf's JSON object, as text (for SSE deltas) and as the UTF-8 bytes the document is assembled from. */
    record LeafJson(String text, byte[] utf8) {
    }

    /**
     * Each leaf's JSON, kept across ticks. An unchanged leaf is usually the very instance at the same position of
     * the last render (the projector reuses it), so it costs an identity check and keeps the very same text
     * instance (so SSE compares by identity first); an equal leaf in a new instance or at a new position (a
     * re-parse of unchanged content, a leaf added before it) is found by value. The value map holds every leaf of
     * the last render and at most about as many older ones.
     */
    static final class LeafJsonCache {
        private List<LeafState> lastLeaves = List.of();
        private LeafJson[] lastJson = new LeafJson[0];
        private Map<LeafState, LeafJson> byValue = new HashMap<>();

        /** The JSON of {@code l}, the leaf at {@code position} of the render in progress. */
        LeafJson json(int position, LeafState l) {
            if (position < lastJson.length && lastLeaves.get(position) == l) {
                return lastJson[position];
            }
            LeafJson j = byValue.get(l);
            if (j == null) {
                try {
                    String text = MAPPER.writeValueAsString(leafNode(l));
                    j = new LeafJson(text, text.getBytes(StandardCharsets.UTF_8));
                } catch (JsonProcessingException e) {
                    throw new IllegalStateException("a JSON tree always serializes", e);
                }
                byValue.put(l, j);
            }
            return j;
        }

        /** Keeps what the render just finished used: {@code json[i]} is the JSON of {@code leaves.get(i)}. */
        void retain(List<LeafState> leaves, LeafJson[] json) {
            lastLeaves = leaves;
            lastJson = json;
            if (byValue.size() > 2 * json.length + 64) {
                // rare (after about as many changed leaves as there are leaves): hash everything once
                byValue = new HashMap<>(json.length * 2);
                for (int i = 0; i < json.length; i++) {
                    byValue.put(leaves.get(i), json[i]);
                }
            }
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
