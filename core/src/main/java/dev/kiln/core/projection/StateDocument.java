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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The schema of {@code observer/state.json} (and of the API's {@code state}, the same document): its stable content
 * (leaves, failures, meta — what decides "changed") and the volatile rest (revision, generated_at, the last tick's
 * counters). The one place that knows the document's field names: {@link #render} makes the bytes the writer
 * ({@link StateFile}) puts on disk, and {@link #read}, {@link #parse} and {@link #revisionOf} are how everything else
 * (the projector at startup, the staleness doctor, tests) reads them back. Stateless; safe from any thread.
 */
final class StateDocument {
    static final int FORMAT = 1;
    static final ObjectMapper MAPPER = new ObjectMapper();
    // The field names, written and read only here.
    static final String REVISION = "revision";
    static final String GENERATED_AT = "generated_at";
    static final String LEAVES = "leaves";
    static final String LEAF_ID = "leaf_id";
    static final String FAILURES = "failures";
    static final String PATH = "path";
    static final String META = "meta";
    static final String TICK = "tick";
    static final String REASON = "reason";

    /** What decides whether the projection changed. Records, so equality is structural and cheap. */
    record Stable(List<LeafState> leaves, List<SnapshotFailure> failures, JsonNode meta) {
    }

    private StateDocument() {
    }

    /** The key inside {@code meta} for runtime instrumentation: volatile, never part of the stable content. */
    static final String RUNTIME_META = "daemon";

    /**
     * A rendered document and its parts as JSON text: each leaf's id and object in document order (what SSE deltas
     * compare and embed without re-parsing the document), the failures array and the stable meta object. The bytes
     * are kept as {@link Segments} (head, leaf chunks, tail), never as one array: chunks are shared between
     * revisions, so a one-leaf change costs one chunk, not the document.
     */
    record Rendered(Segments segments, List<String> leafIds, List<String> leafJson, String failures, String meta) {
        /** The whole document as one array (assembled on each call: for tests and small consumers). */
        byte[] bytes() {
            return segments.bytes();
        }
    }

    /**
     * A document as {@code head + chunk + "," + chunk + … + tail}; immutable (no array is ever written after it is
     * made), so it can be handed to the background writer and to HTTP threads without copying.
     */
    static final class Segments {
        private static final byte[] COMMA = {','};
        private final byte[] head;
        private final byte[][] chunks;
        private final byte[] tail;
        private final long length;

        Segments(byte[] head, byte[][] chunks, byte[] tail) {
            this.head = head;
            this.chunks = chunks;
            this.tail = tail;
            long n = head.length + tail.length + Math.max(0, chunks.length - 1L);
            for (byte[] c : chunks) {
                n += c.length;
            }
            this.length = n;
        }

        /** A document known only as its bytes (an unchanged state.json found at startup). */
        static Segments of(byte[] whole) {
            return new Segments(whole, new byte[0][], new byte[0]);
        }

        long length() {
            return length;
        }

        /** Buffers for a gathering write, in document order. */
        java.nio.ByteBuffer[] buffers() {
            List<java.nio.ByteBuffer> b = new java.util.ArrayList<>(chunks.length * 2 + 2);
            b.add(java.nio.ByteBuffer.wrap(head));
            for (int i = 0; i < chunks.length; i++) {
                if (i > 0) {
                    b.add(java.nio.ByteBuffer.wrap(COMMA));
                }
                b.add(java.nio.ByteBuffer.wrap(chunks[i]));
            }
            b.add(java.nio.ByteBuffer.wrap(tail));
            return b.toArray(new java.nio.ByteBuffer[0]);
        }

        /** The document as one new array. */
        byte[] bytes() {
            if (length > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("a state document of " + length + " bytes does not fit one array");
            }
            byte[] out = new byte[(int) length];
            int at = 0;
            System.arraycopy(head, 0, out, at, head.length);
            at += head.length;
            for (int i = 0; i < chunks.length; i++) {
                if (i > 0) {
                    out[at++] = ',';
                }
                System.arraycopy(chunks[i], 0, out, at, chunks[i].length);
                at += chunks[i].length;
            }
            System.arraycopy(tail, 0, out, at, tail.length);
            return out;
        }

        /** Whether {@code other[from …]} starts with the leaf chunks joined by commas; returns where they end, or -1. */
        int leavesMatch(byte[] other, int from) {
            int at = from;
            for (int i = 0; i < chunks.length; i++) {
                if (i > 0) {
                    if (at >= other.length || other[at++] != ',') {
                        return -1;
                    }
                }
                byte[] c = chunks[i];
                if (at + c.length > other.length
                        || !Arrays.equals(c, 0, c.length, other, at, at + c.length)) {
                    return -1;
                }
                at += c.length;
            }
            return at;
        }

        int chunkCount() {
            return chunks.length;
        }
    }

    static Rendered render(Path workspace, long revision, Instant generatedAt, Stable stable, TickResult tick) {
        return render(workspace, revision, generatedAt, stable, tick, null, new LeafJsonCache());
    }

    /**
     * Renders the document, adding {@code runtime} (if not null) as {@code meta.daemon}, which does not count as a
     * change. Leaves come from {@code cache}: serializing every leaf, or even copying every leaf's bytes, on every
     * tick costs far more than the incremental snapshot at 100,000 leaves, so leaves are grouped in chunks and a
     * chunk whose leaves are the very instances of the last render is reused whole.
     */
    static Rendered render(Path workspace, long revision, Instant generatedAt, Stable stable, TickResult tick,
            @Nullable JsonNode runtime, LeafJsonCache cache) {
        byte[] head;
        byte[] tail;
        String failuresJson;
        String metaJson;
        try {
            ObjectNode headNode = MAPPER.createObjectNode();
            headNode.put("format", FORMAT);
            headNode.put(REVISION, revision);
            headNode.put(GENERATED_AT, generatedAt.toString());
            headNode.put("workspace", workspace.toString());
            byte[] h = MAPPER.writeValueAsBytes(headNode);
            byte[] open = LEAVES_OPEN;
            head = Arrays.copyOf(h, h.length - 1 + open.length); // without its closing brace
            System.arraycopy(open, 0, head, h.length - 1, open.length);
            failuresJson = MAPPER.writeValueAsString(failuresNode(stable.failures()));
            metaJson = MAPPER.writeValueAsString(stable.meta());
            ObjectNode meta = stable.meta() instanceof ObjectNode m ? m.deepCopy() : MAPPER.createObjectNode();
            if (runtime != null) {
                meta.set(RUNTIME_META, runtime);
            }
            ObjectNode t = MAPPER.createObjectNode();
            t.put(REASON, tick.reason().jsonName());
            t.put("at", tick.at().toString());
            t.set("counters", tick.stats().toJson());
            ArrayNode drift = t.putArray("drift_pruned");
            tick.driftPruned().forEach(drift::add);
            tail = ("],\"" + FAILURES + "\":" + failuresJson + ",\"" + META + "\":" + MAPPER.writeValueAsString(meta) + ",\"" + TICK
                    + "\":" + MAPPER.writeValueAsString(t) + "}").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("rendering to memory cannot fail", e);
        }
        LeafJsonCache.Leaves leaves = cache.render(stable.leaves());
        return new Rendered(new Segments(head, leaves.chunks(), tail), Collections.unmodifiableList(Arrays.asList(leaves.ids())),
                Collections.unmodifiableList(Arrays.asList(leaves.texts())), failuresJson, metaJson);
    }

    private static final byte[] LEAVES_OPEN = (",\"" + LEAVES + "\":[").getBytes(StandardCharsets.UTF_8);
    private static final byte[] LEAVES_CLOSE = "],".getBytes(StandardCharsets.UTF_8);

    private static ArrayNode failuresNode(List<SnapshotFailure> failures) {
        ArrayNode a = MAPPER.createArrayNode();
        for (SnapshotFailure f : failures) {
            a.addObject().put(PATH, f.path()).put("kind", f.kind().name().toLowerCase(Locale.ROOT)).put("reason", f.reason());
        }
        return a;
    }

    /**
     * Whether {@code existing} (a state.json found at startup) already says what {@code rendered} says in its
     * stable content (leaves, failures, meta without {@code meta.daemon}). Compares the leaves byte for byte
     * against the rendered chunks and parses only the small rest, so it needs no tree of 100,000 leaves; a
     * document in another layout (another writer, pretty-printed) counts as different, which costs one revision.
     */
    static boolean sameStable(byte[] existing, Rendered rendered, Stable stable) {
        int open = indexOf(existing, LEAVES_OPEN);
        if (open < 0) {
            return false;
        }
        int end;
        if (rendered.segments().chunkCount() == 0) {
            end = open + LEAVES_OPEN.length;
        } else {
            end = rendered.segments().leavesMatch(existing, open + LEAVES_OPEN.length);
        }
        if (end < 0 || end + LEAVES_CLOSE.length > existing.length
                || !Arrays.equals(LEAVES_CLOSE, 0, LEAVES_CLOSE.length, existing, end, end + LEAVES_CLOSE.length)) {
            return false;
        }
        byte[] rest = new byte[existing.length - end - 1];
        rest[0] = '{';
        System.arraycopy(existing, end + LEAVES_CLOSE.length, rest, 1, rest.length - 1);
        try {
            JsonNode tail = MAPPER.readTree(rest);
            if (tail == null || !tail.isObject()) {
                return false;
            }
            ObjectNode want = MAPPER.createObjectNode();
            want.set(FAILURES, failuresNode(stable.failures()));
            want.set(META, stable.meta().deepCopy());
            JsonNode wantTree = MAPPER.readTree(MAPPER.writeValueAsBytes(want));
            ObjectNode got = MAPPER.createObjectNode();
            got.set(FAILURES, tail.get(FAILURES));
            JsonNode meta = tail.get(META);
            if (meta instanceof ObjectNode m && m.has(RUNTIME_META)) {
                ObjectNode copy = m.deepCopy();
                copy.remove(RUNTIME_META);
                meta = copy;
            }
            got.set(META, meta);
            return wantTree.equals(got);
        } catch (IOException e) {
            return false;
        }
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int k = 0; k < needle.length; k++) {
                if (hay[i + k] != needle[k]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /**
     * Each leaf's JSON text and the chunks the last document was made of, kept across renders. Leaves are grouped
     * into chunks whose boundaries depend on the leaf ids only (a chunk ends after a leaf whose id hashes to a
     * boundary, about every {@link #CHUNK} leaves, or at {@link #MAX_CHUNK}), so adding or removing a leaf moves
     * the boundaries of its own chunk only. A chunk whose leaves are the very instances of a chunk of the last
     * render (the projector reuses an unchanged leaf's instance) is reused whole: its bytes and its leaves' text
     * instances (SSE compares by identity first). A changed leaf's text is found by value when an equal leaf was
     * rendered before (a re-parse of unchanged content), else serialized. The value map holds every leaf of the
     * last render and at most about as many older ones.
     */
    static final class LeafJsonCache {
        /** Leaves per chunk on average: a one-leaf edit re-assembles about this many leaves' bytes (~80 KB). */
        static final int CHUNK_BITS = 8;
        static final int CHUNK = 1 << CHUNK_BITS;
        static final int MAX_CHUNK = 4 * CHUNK;

        private Object[] lastLeaves = new Object[0];
        private String[] lastTexts = new String[0];
        private Chunk[] lastChunks = new Chunk[0];
        private Map<LeafState, String> byValue = new HashMap<>();

        /** A run of leaves {@code [start, start + count)} and their JSON objects joined by commas. */
        private record Chunk(int start, int count, byte[] bytes) {
        }

        /** The leaves' ids, JSON texts and chunks in document order. */
        record Leaves(String[] ids, String[] texts, byte[][] chunks) {
        }

        /**
         * Positions whose leaf may differ from the last render (every other one is the very instance of the last
         * render at the same position), for the next render only; null: unknown, compare everything.
         */
        private java.util.@Nullable BitSet hint;
        private String[] lastIds = new String[0];

        void hint(java.util.@Nullable BitSet positions) {
            this.hint = positions == null ? null : (java.util.BitSet) positions.clone();
        }

        /** The leaves of a document, remembered for the next render. */
        Leaves render(List<LeafState> leaves) {
            java.util.BitSet h = hint;
            hint = null;
            if (h != null && leaves.size() == lastLeaves.length && lastLeaves.length > 0) {
                Leaves fast = renderChanged(leaves, h);
                if (fast != null) {
                    return fast;
                }
            }
            return renderAll(leaves);
        }

        /**
         * The render when only the positions in {@code changed} may hold other leaves, with the same ids (edits):
         * the chunks keep their boundaries, the untouched ones are reused, and nothing else is visited. Null when a
         * changed position holds another leaf id (then boundaries may move: the full render decides).
         */
        private @Nullable Leaves renderChanged(List<LeafState> leaves, java.util.BitSet changed) {
            Object[] before = lastLeaves;
            List<Integer> dirty = new ArrayList<>();
            for (int i = changed.nextSetBit(0); i >= 0; i = changed.nextSetBit(i + 1)) {
                if (i >= before.length) {
                    return null;
                }
                LeafState l = leaves.get(i);
                if (l != before[i]) {
                    if (!l.leafId().equals(lastIds[i])) {
                        return null;
                    }
                    dirty.add(i);
                }
            }
            Object[] now = before.clone();
            String[] texts = lastTexts.clone();
            Chunk[] cs = lastChunks.clone();
            int lastChunk = -1;
            for (int i : dirty) {
                now[i] = leaves.get(i);
                texts[i] = json((LeafState) now[i]);
            }
            for (int i : dirty) {
                int c = chunkOf(cs, i);
                if (c == lastChunk) {
                    continue;
                }
                lastChunk = c;
                Chunk old = cs[c];
                StringBuilder b = new StringBuilder(old.bytes().length + 256);
                for (int k = old.start(); k < old.start() + old.count(); k++) {
                    if (k > old.start()) {
                        b.append(',');
                    }
                    b.append(texts[k]);
                }
                cs[c] = new Chunk(old.start(), old.count(), b.toString().getBytes(StandardCharsets.UTF_8));
            }
            byte[][] bytes = new byte[cs.length][];
            for (int i = 0; i < cs.length; i++) {
                bytes[i] = cs[i].bytes();
            }
            lastLeaves = now;
            lastTexts = texts;
            lastChunks = cs;
            pruneValues(now, texts);
            return new Leaves(lastIds, texts, bytes);
        }

        private static int chunkOf(Chunk[] cs, int position) {
            int lo = 0;
            int hi = cs.length - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (cs[mid].start() <= position) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            return lo;
        }

        private void pruneValues(Object[] now, String[] texts) {
            int n = now.length;
            if (byValue.size() > 2 * n + 64) {
                // rare (after about as many changed leaves as there are leaves): hash everything once
                byValue = new HashMap<>(n * 2);
                for (int i = 0; i < n; i++) {
                    byValue.put((LeafState) now[i], texts[i]);
                }
            }
        }

        private Leaves renderAll(List<LeafState> leaves) {
            Object[] now = leaves.toArray();
            int n = now.length;
            Object[] before = lastLeaves;
            String[] beforeTexts = lastTexts;
            int same = Math.min(before.length, n);
            String[] ids = new String[n];
            String[] texts = new String[n];
            IdentityHashMap<Object, Chunk> byFirst = new IdentityHashMap<>(lastChunks.length * 2 + 2);
            for (Chunk c : lastChunks) {
                byFirst.put(before[c.start()], c);
            }
            List<Chunk> chunks = new ArrayList<>(n / CHUNK + 2);
            int start = 0;
            for (int i = 0; i < n; i++) {
                String id = ((LeafState) now[i]).leafId();
                ids[i] = id;
                if (i + 1 < n && !boundary(id, i - start + 1)) {
                    continue;
                }
                int count = i - start + 1;
                Chunk old = byFirst.get(now[start]);
                if (old != null && old.count() == count && sameInstances(before, old.start(), now, start, count)) {
                    System.arraycopy(beforeTexts, old.start(), texts, start, count);
                    chunks.add(new Chunk(start, count, old.bytes()));
                } else {
                    StringBuilder b = new StringBuilder(count * 320);
                    for (int k = start; k <= i; k++) {
                        String t = k < same && before[k] == now[k] ? beforeTexts[k] : json((LeafState) now[k]);
                        texts[k] = t;
                        if (k > start) {
                            b.append(',');
                        }
                        b.append(t);
                    }
                    chunks.add(new Chunk(start, count, b.toString().getBytes(StandardCharsets.UTF_8)));
                }
                start = i + 1;
            }
            Chunk[] cs = chunks.toArray(new Chunk[0]);
            byte[][] bytes = new byte[cs.length][];
            for (int i = 0; i < cs.length; i++) {
                bytes[i] = cs[i].bytes();
            }
            lastLeaves = now;
            lastTexts = texts;
            lastIds = ids;
            lastChunks = cs;
            pruneValues(now, texts);
            return new Leaves(ids, texts, bytes);
        }

        /** Whether a chunk ends after the leaf {@code id}, the {@code size}-th of its chunk. Depends on the id alone. */
        private static boolean boundary(String id, int size) {
            if (size >= MAX_CHUNK) {
                return true;
            }
            return (id.hashCode() * 0x9E3779B9) >>> (32 - CHUNK_BITS) == 0; // one id in CHUNK, spread over the hash
        }

        private static boolean sameInstances(Object[] a, int from, Object[] b, int to, int count) {
            if (from + count > a.length) {
                return false;
            }
            for (int k = 0; k < count; k++) {
                if (a[from + k] != b[to + k]) {
                    return false;
                }
            }
            return true;
        }

        /** The JSON of a leaf that is not the same instance at the same position as last time. */
        private String json(LeafState l) {
            String j = byValue.get(l);
            if (j == null) {
                try {
                    j = MAPPER.writeValueAsString(leafNode(l));
                } catch (JsonProcessingException e) {
                    throw new IllegalStateException("a JSON tree always serializes", e);
                }
                byValue.put(l, j);
            }
            return j;
        }
    }

    static ObjectNode leafNode(LeafState l) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put(LEAF_ID, l.leafId());
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
        for (String f : List.of(LEAVES, FAILURES, META)) {
            if (doc.has(f)) {
                o.set(f, doc.get(f));
            }
        }
        if (o.get(META) instanceof ObjectNode meta && meta.has(RUNTIME_META)) {
            ObjectNode stableMeta = meta.deepCopy();
            stableMeta.remove(RUNTIME_META);
            o.set(META, stableMeta);
        }
        return o;
    }

    /** The revision in the head of a document's bytes, or -1 when they are no state document. */
    static long revisionOf(byte[] doc) {
        try (JsonParser p = MAPPER.getFactory().createParser(doc)) {
            return revisionOf(p);
        } catch (IOException e) {
            return -1;
        }
    }

    /** The revision in the head of the document at {@code file}, streamed (it is among the first fields); -1 if none. */
    static long revisionOf(Path file) {
        try (JsonParser p = MAPPER.getFactory().createParser(file.toFile())) {
            return revisionOf(p);
        } catch (IOException e) {
            return -1;
        }
    }

    private static long revisionOf(JsonParser p) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            return -1;
        }
        for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
            String name = p.currentName();
            p.nextToken();
            if (REVISION.equals(name)) {
                return p.getValueAsLong(-1);
            }
            p.skipChildren();
        }
        return -1;
    }

    /** The document at {@code file}, read; null when there is none. The exception names the file and what is wrong. */
    static @Nullable PublishedState read(Path file) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        }
        return parse(file.toString(), bytes);
    }

    /** Parses a document read from {@code source} (a file or a URL); the exception names it and says what is wrong. */
    static PublishedState parse(String source, byte[] bytes) throws IOException {
        JsonNode doc;
        try {
            doc = MAPPER.readTree(bytes);
        } catch (JsonProcessingException e) {
            throw new IOException(source + " is not valid JSON (" + e.getOriginalMessage() + "); a Kiln state document is"
                    + " rewritten whole by the next projection (kiln project)", e);
        }
        if (doc == null || !doc.isObject() || !doc.path(LEAVES).isArray()) {
            throw new IOException(source + " is not a Kiln state document (no " + LEAVES + " array); a Kiln state document"
                    + " is rewritten whole by the next projection (kiln project)");
        }
        Map<String, JsonNode> leaves = new LinkedHashMap<>(doc.path(LEAVES).size() * 2);
        for (JsonNode l : doc.path(LEAVES)) {
            leaves.put(l.path(LEAF_ID).asText(), l);
        }
        Map<String, JsonNode> failures = new LinkedHashMap<>();
        for (JsonNode f : doc.path(FAILURES)) {
            failures.put(f.path(PATH).asText(), f);
        }
        JsonNode at = doc.path(GENERATED_AT);
        Instant generatedAt = null;
        if (at.isTextual()) {
            try {
                generatedAt = Instant.parse(at.asText());
            } catch (java.time.format.DateTimeParseException e) {
                generatedAt = null; // a time it cannot read says nothing: unknown, not a guess
            }
        }
        return new PublishedState(source, doc.path(REVISION).asLong(0), generatedAt, doc.path(TICK).path(REASON).asText(""),
                leaves, failures, doc.path(META));
    }

    private static void stableInto(ObjectNode o, Stable stable) {
        ArrayNode leaves = o.putArray(LEAVES);
        for (LeafState l : stable.leaves()) {
            leaves.add(leafNode(l));
        }
        ArrayNode failures = o.putArray(FAILURES);
        for (SnapshotFailure f : stable.failures()) {
            failures.addObject().put(PATH, f.path()).put("kind", f.kind().name().toLowerCase(Locale.ROOT)).put("reason", f.reason());
        }
        o.set(META, stable.meta().deepCopy());
    }
}
