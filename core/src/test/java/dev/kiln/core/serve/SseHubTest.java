package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A delta says exactly which leaves were added, changed and removed, whether the hub gets the projector's parts or
 * only a document, and whatever moved between two revisions.
 */
class SseHubTest {
    private static final ObjectMapper M = new ObjectMapper();

    /** A revision as the projector publishes it (ids and JSON text in document order) or as a bare document. */
    private static Published published(long revision, Map<String, String> leaves, boolean withParts) throws Exception {
        ObjectNode doc = M.createObjectNode().put("revision", revision);
        ArrayNode arr = doc.putArray("leaves");
        for (String json : leaves.values()) {
            arr.add(M.readTree(json));
        }
        doc.putArray("failures");
        doc.putObject("meta");
        byte[] bytes = M.writeValueAsBytes(doc);
        return withParts
                ? new Published(revision, bytes, List.copyOf(leaves.keySet()), List.copyOf(leaves.values()), "[]", "{}")
                : new Published(revision, bytes);
    }

    private static String leaf(String id, String title) throws Exception {
        return M.writeValueAsString(M.createObjectNode().put("leaf_id", id).put("title", title));
    }

    private static JsonNode nextDelta(SseHub.Client c) throws Exception {
        String frame = c.queue.poll();
        assertThat(frame).isNotNull().contains("event: delta");
        StringBuilder data = new StringBuilder();
        for (String line : frame.split("\n")) {
            if (line.startsWith("data: ")) {
                data.append(line.substring(6));
            }
        }
        return M.readTree(data.toString());
    }

    @Test
    void delta_afterRandomEdits_namesExactlyWhatChanged() throws Exception {
        for (long seed = 1; seed <= 30; seed++) {
            for (boolean withParts : new boolean[] {true, false}) {
                Random rnd = new Random(seed);
                SseHub hub = new SseHub(1_000, 10, 4);
                Map<String, String> leaves = new LinkedHashMap<>();
                for (int i = 0; i < 5 + rnd.nextInt(40); i++) {
                    leaves.put("area/leaf-" + i, leaf("area/leaf-" + i, "t" + i));
                }
                hub.publish(published(1, leaves, withParts));
                SseHub.Client c = hub.connect(null);
                assertThat(c.queue.poll()).contains("event: snapshot");
                int fresh = 0;
                for (long rev = 2; rev < 15; rev++) {
                    List<String> ids = new ArrayList<>(leaves.keySet());
                    Set<String> added = new HashSet<>();
                    Set<String> changed = new HashSet<>();
                    Set<String> removed = new HashSet<>();
                    for (int k = 0; k < 1 + rnd.nextInt(4); k++) {
                        int op = rnd.nextInt(3);
                        if (op == 0 || ids.isEmpty()) {
                            String id = "area/new-" + fresh++;
                            ids.add(rnd.nextInt(ids.size() + 1), id);
                            leaves.put(id, leaf(id, "new"));
                            added.add(id);
                        } else if (op == 1) {
                            String id = ids.remove(rnd.nextInt(ids.size()));
                            leaves.remove(id);
                            if (!added.remove(id)) {
                                changed.remove(id);
                                removed.add(id);
                            }
                        } else {
                            String id = ids.get(rnd.nextInt(ids.size()));
                            leaves.put(id, leaf(id, "edit " + rev + " " + k));
                            if (!added.contains(id)) {
                                changed.add(id);
                            }
                        }
                    }
                    Map<String, String> ordered = new LinkedHashMap<>();
                    for (String id : ids) {
                        ordered.put(id, leaves.get(id));
                    }
                    leaves = ordered;
                    hub.publish(published(rev, leaves, withParts));

                    JsonNode d = nextDelta(c);
                    assertThat(d.path("revision").asLong()).isEqualTo(rev);
                    assertThat(names(d.path("added"))).as("seed %d rev %d added", seed, rev).isEqualTo(added);
                    assertThat(names(d.path("changed"))).as("seed %d rev %d changed", seed, rev).isEqualTo(changed);
                    Set<String> gone = new HashSet<>();
                    d.path("removed").forEach(n -> gone.add(n.asText()));
                    assertThat(gone).as("seed %d rev %d removed", seed, rev).isEqualTo(removed);
                    d.path("changed").fields().forEachRemaining(e -> assertThat(e.getValue().path("title").asText()).startsWith("edit"));
                }
            }
        }
    }

    @Test
    void delta_addedAndChanged_inDocumentOrder() throws Exception {
        Map<String, String> before = new LinkedHashMap<>();
        for (String id : List.of("a", "c", "e")) {
            before.put(id, leaf(id, "x"));
        }
        SseHub hub = new SseHub(10, 10, 1);
        hub.publish(published(1, before, true));
        SseHub.Client c = hub.connect(null);
        c.queue.poll();
        Map<String, String> after = new LinkedHashMap<>();
        after.put("a", leaf("a", "y"));
        after.put("b", leaf("b", "new"));
        after.put("c", leaf("c", "x"));
        after.put("d", leaf("d", "new"));
        after.put("e", leaf("e", "y"));

        hub.publish(published(2, after, true));

        JsonNode d = nextDelta(c);
        assertThat(fieldNames(d.path("added"))).containsExactly("b", "d");
        assertThat(fieldNames(d.path("changed"))).containsExactly("a", "e");
        assertThat(d.path("removed").size()).isZero();
    }

    private static Set<String> names(JsonNode object) {
        return new HashSet<>(fieldNames(object));
    }

    private static List<String> fieldNames(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.fieldNames().forEachRemaining(out::add);
        return Collections.unmodifiableList(out);
    }

    @Test
    void connectWithHistory_theRingsEventsBeforeTheResumePoint_noDeltas_thenTheResume() throws Exception {
        SseHub hub = new SseHub(64, 64, 4, 100);
        hub.publish(published(1, Map.of("a", leaf("a", "one")), true)); // id 100: the first revision
        hub.publishEvent("warm_output", "{\"line\":\"w1\"}"); // 101
        hub.publish(published(2, Map.of("a", leaf("a", "two")), true)); // 102: a delta, in the state already
        hub.publishEvent("warm_output", "{\"line\":\"w2\"}"); // 103: the state the client loaded ends here
        hub.publishEvent("warm_output", "{\"line\":\"w3\"}"); // 104: after it, a resume brings it
        SseHub.Client c = hub.connectWithHistory("103", null, null, 0);
        assertThat(c).isNotNull();
        assertThat(c.history).isEqualTo(2);
        List<String> frames = new ArrayList<>(c.queue);
        assertThat(frames).hasSize(3);
        assertThat(frames.get(0)).startsWith("id: 101\n").contains("w1");
        assertThat(frames.get(1)).startsWith("id: 103\n").contains("w2");
        assertThat(frames.get(2)).startsWith("id: 104\n").contains("w3");

        SseHub.Client fresh = hub.connectWithHistory(null, null, null, 0); // no state: every event, then the snapshot
        assertThat(fresh.history).isEqualTo(3);
        List<String> all = new ArrayList<>(fresh.queue);
        assertThat(all).hasSize(4);
        assertThat(all.get(3)).contains("event: snapshot");
        assertThat(all).noneMatch(f -> f.contains("event: delta"));
    }
}
