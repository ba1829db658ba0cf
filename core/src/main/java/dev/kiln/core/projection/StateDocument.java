package dev.kiln.core.projection;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.snapshot.SnapshotFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

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
     * A rendered document and its parts as JSON text: each leaf's id and object in document order (what SSE deltas
     * compare and embed without re-parsing the document), the failures array and the stable meta object.
     */
    record Rendered(byte[] bytes, List<String> leafIds, List<String> leafJson, String failures, String meta) {
    }

    static byte[] render(Path workspace, long revision, Instant generatedAt, Stable stable, TickResult tick) {
        return render(workspace, revision, generatedAt, stable, tick, null, new LeafJsonCache()).bytes();
    }

    /**
     * Renders the document, adding {@code runtime} (if not null) as {@code meta.daemon}, which does not count as a
     * change. Leaves come from {@code cache}: at 10,000 leaves, serializing every leaf, or even visiting each leaf's
     * bytes, on every tick costs far more than the incremental snapshot, so a run of leaves that are the very
     * instances of the last render at the same positions is copied from the last document in one piece.
     */
    static Rendered render(Path workspace, long revision, Instant generatedAt, Stable stable, TickResult tick,
            JsonNode runtime, LeafJsonCache cache) {
        byte[] head;
        byte[] tail;
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
            head = Arrays.copyOf(h, h.length - 1 + open.length); // without its closing brace
            System.arraycopy(open, 0, head, h.length - 1, open.length);
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
            t.set("counters", tick.stats().toJson());
            ArrayNode drift = t.putArray("drift_pruned");
            tick.driftPruned().forEach(drift::add);
            tail = ("],\"failures\":" + failuresJson + ",\"meta\":" + MAPPER.writeValueAsString(meta) + ",\"tick\":"
                    + MAPPER.writeValueAsString(t) + "}").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("rendering to memory cannot fail", e);
        }
        LeafJsonCache.Leaves leaves = cache.render(stable.leaves(), head, tail);
        return new Rendered(leaves.bytes(), Collections.unmodifiableList(Arrays.asList(leaves.ids())),
                Collections.unmodifiableList(Arrays.asList(leaves.texts())), failuresJson, metaJson);
    }

    /** One leaf's JSON object, as text (for SSE deltas) and as the UTF-8 bytes the document is assembled from. */
    record LeafJson(String text, byte[] utf8) {
    }

    /**
     * Each leaf's JSON and where it sits in the last document, kept across renders. An unchanged leaf is usually
     * the very instance at the same position of the last render (the projector reuses it): it costs an identity
     * check, its bytes are copied along with its unchanged neighbours from the last document, and it keeps the very
     * same text instance (so SSE compares by identity first). An equal leaf in a new instance or at a new position
     * (a re-parse of unchanged content, a leaf added before it) is found by value. The value map holds every leaf
     * of the last render and at most about as many older ones.
     */
    static final class LeafJsonCache {
        private List<LeafState> lastLeaves = List.of();
        private LeafJson[] lastJson = new LeafJson[0];
        private String[] lastIds = new String[0];
        private String[] lastTexts = new String[0];
        /** The last document and, per position, where the leaf's bytes start in it and how long they are. */
        private byte[] lastDoc;
        private int[] lastStart = new int[0];
        private int[] lastLength = new int[0];
        private Map<LeafState, LeafJson> byValue = new HashMap<>();

        /** A rendered document's bytes, with its leaves' ids and JSON text in document order. */
        record Leaves(byte[] bytes, String[] ids, String[] texts) {
        }

        /** The document {@code head + leaves joined by commas + tail}, remembered for the next render. */
        Leaves render(List<LeafState> leaves, byte[] head, byte[] tail) {
            int n = leaves.size();
            LeafJson[] json = new LeafJson[n];
            String[] ids = new String[n];
            String[] texts = new String[n];
            int[] length = new int[n];
            boolean[] kept = new boolean[n];
            int prev = lastDoc == null ? 0 : lastLeaves.size();
            long size = head.length + tail.length + Math.max(0, n - 1L); // the commas between leaves
            int same = Math.min(prev, n);
            // bulk copies first: at 10,000 leaves, element-wise copying was most of the render
            System.arraycopy(lastJson, 0, json, 0, same);
            System.arraycopy(lastIds, 0, ids, 0, same);
            System.arraycopy(lastTexts, 0, texts, 0, same);
            System.arraycopy(lastLength, 0, length, 0, same);
            Object[] now = leaves.toArray();
            Object[] before = lastLeaves.toArray();
            for (int i = 0; i < n; i++) {
                if (i < same && before[i] == now[i]) {
                    kept[i] = true;
                } else {
                    LeafState l = (LeafState) now[i];
                    LeafJson j = json(l);
                    json[i] = j;
                    ids[i] = l.leafId();
                    texts[i] = j.text();
                    length[i] = j.utf8().length;
                }
                size += length[i];
            }
            // assembled once into an array of the exact size: the document is megabytes at 10,000 leaves
            byte[] bytes = new byte[(int) size];
            int[] start = new int[n];
            System.arraycopy(head, 0, bytes, 0, head.length);
            int at = head.length;
            for (int i = 0; i < n;) {
                if (i > 0) {
                    bytes[at++] = ',';
                }
                if (kept[i]) {
                    int j = i; // a run of kept leaves sits in the last document as it will in this one, commas included
                    while (j + 1 < n && kept[j + 1]) {
                        j++;
                    }
                    int from = lastStart[i];
                    int to = lastStart[j] + lastLength[j];
                    System.arraycopy(lastDoc, from, bytes, at, to - from);
                    int shift = at - from;
                    for (int k = i; k <= j; k++) {
                        start[k] = lastStart[k] + shift;
                    }
                    at += to - from;
                    i = j + 1;
                } else {
                    byte[] u = json[i].utf8();
                    start[i] = at;
                    System.arraycopy(u, 0, bytes, at, u.length);
                    at += u.length;
                    i++;
                }
            }
            System.arraycopy(tail, 0, bytes, at, tail.length);
            retain(leaves, json, ids, texts, bytes, start, length);
            return new Leaves(bytes, ids, texts);
        }

        /** The JSON of a leaf that is not the same instance at the same position as last time. */
        private LeafJson json(LeafState l) {
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

        private void retain(List<LeafState> leaves, LeafJson[] json, String[] ids, String[] texts, byte[] doc,
                int[] start, int[] length) {
            lastLeaves = leaves;
            lastJson = json;
            lastIds = ids;
            lastTexts = texts;
            lastDoc = doc;
            lastStart = start;
            lastLength = length;
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
    static @Nullable JsonNode stableTree(JsonNode doc) {
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

    /**
     * The revision of the document at {@code file}, read from its head only (the revision is among the first
     * fields), or 0 when there is none or it cannot be read.
     */
    static long revisionOnDisk(Path file) {
        try (JsonParser p = MAPPER.getFactory().createParser(file.toFile())) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return 0;
            }
            for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME;
                    t = p.nextToken()) {
                String name = p.currentName();
                p.nextToken();
                if ("revision".equals(name)) {
                    return p.getValueAsLong(0);
                }
                p.skipChildren();
            }
            return 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** An existing document: its bytes and its tree. */
    record Existing(byte[] bytes, JsonNode tree) {
    }

    /** The previous document, or {@code null} when there is none or it is not a JSON object. */
    static @Nullable Existing readExisting(Path file) throws IOException {
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
}
