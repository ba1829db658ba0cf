package dev.kiln.core.recording;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The state document as the frames so far make it, kept so that a keyframe can be written without asking anyone:
 * the last {@code snapshot}'s head (everything but its leaves) and each leaf's JSON text by leaf id, updated by every
 * {@code delta} (its added, changed and removed leaves, failures and meta).
 *
 * <p>Concurrency: not thread-safe; the recorder calls it under its lock.
 */
final class StateTracker {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HOLE = "\u0000leaves\u0000";

    private @Nullable ObjectNode head;
    private final Map<String, String> leaves = new LinkedHashMap<>();

    /** Takes in a frame of the state; other frames are no business of the tracker. */
    void apply(String event, String data) throws IOException {
        if (event.equals("snapshot")) {
            JsonNode doc = JSON.readTree(data);
            if (!(doc instanceof ObjectNode o)) {
                throw new IOException("a snapshot frame that is no JSON object");
            }
            leaves.clear();
            for (JsonNode leaf : o.path("leaves")) {
                leaves.put(id(leaf), leaf.toString());
            }
            o.put("leaves", HOLE);
            head = o;
        } else if (event.equals("delta") && head != null) {
            JsonNode d = JSON.readTree(data);
            if (d.path("revision").asLong() <= head.path("revision").asLong()) {
                return;
            }
            d.path("removed").forEach(id -> leaves.remove(id.asText()));
            d.path("added").fields().forEachRemaining(e -> leaves.put(e.getKey(), e.getValue().toString()));
            d.path("changed").fields().forEachRemaining(e -> leaves.put(e.getKey(), e.getValue().toString()));
            head.put("revision", d.path("revision").asLong());
            if (d.has("failures")) {
                head.set("failures", d.path("failures"));
            }
            if (d.has("meta")) {
                head.set("meta", d.path("meta"));
            }
        }
    }

    private static String id(JsonNode leaf) {
        return leaf.path("leaf_id").asText(leaf.path("file").asText(""));
    }

    /** Whether a snapshot has been seen, so that a keyframe can be made. */
    boolean hasState() {
        return head != null;
    }

    /** The whole document now, as a snapshot frame's data. */
    String document() {
        ObjectNode top = head;
        if (top == null) {
            throw new IllegalStateException("no snapshot seen yet: ask hasState() first");
        }
        String h = top.toString();
        String hole = "\"" + HOLE.replace("\u0000", "\\u0000") + "\"";
        int at = h.indexOf(hole);
        StringBuilder b = new StringBuilder(h.length() + leaves.size() * 400);
        b.append(h, 0, at).append('[');
        boolean first = true;
        for (String leaf : leaves.values()) {
            if (!first) {
                b.append(',');
            }
            b.append(leaf);
            first = false;
        }
        return b.append(']').append(h, at + hole.length(), h.length()).toString();
    }
}
