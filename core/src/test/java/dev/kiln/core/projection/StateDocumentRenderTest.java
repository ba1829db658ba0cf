package dev.kiln.core.projection;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.contract.LeafIds;
import dev.kiln.core.snapshot.SnapshotFailure;
import dev.kiln.core.snapshot.SnapshotStats;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The streamed, per-leaf-cached rendering says exactly what the tree rendering says. */
class StateDocumentRenderTest {
    private static final Instant NOW = Instant.parse("2026-02-01T10:00:00Z");

    private static LeafState leaf(String id, String title, EngineFact.Liveness liveness) {
        return new LeafState(id, id + "/contract.json", id, LeafIds.Shape.CANONICAL, title, "running", NOW.plusSeconds(60), false,
                List.of("src/" + id, "src/\"quoted\" é"),
                liveness == null ? null : new LeafState.Engine(4242, "python -m worker", NOW, liveness));
    }

    @Test
    void render_warmCache_sameBytesAsColdAndSameContentAsTheTree() throws Exception {
        ObjectNode meta = StateDocument.MAPPER.createObjectNode();
        meta.putObject("watch").put("mode", "live");
        StateDocument.Stable stable = new StateDocument.Stable(
                List.of(leaf("a/one", "One", null), leaf("a/two", "Two ✓", EngineFact.Liveness.ALIVE)),
                List.of(new SnapshotFailure("b/contract.json", SnapshotFailure.Kind.MALFORMED, "bad \"json\"")), meta);
        TickResult tick = new TickResult(WakeReason.CHANGE, NOW, 3, true, 2, 1, SnapshotStats.empty(), 1_000, List.of(), null);
        StateDocument.LeafJsonCache cache = new StateDocument.LeafJsonCache();
        JsonNode runtime = StateDocument.MAPPER.createObjectNode().put("projections", 9);

        StateDocument.Rendered cold = StateDocument.render(Path.of("/ws"), 3, NOW, stable, tick, runtime, cache);
        StateDocument.Rendered warm = StateDocument.render(Path.of("/ws"), 3, NOW, stable, tick, runtime, cache);

        assertThat(warm.bytes()).isEqualTo(cold.bytes());
        assertThat(warm.leafIds()).containsExactly("a/one", "a/two");
        assertThat(warm.leafJson().get(1)).as("an unchanged leaf keeps its text instance").isSameAs(cold.leafJson().get(1));
        JsonNode doc = StateDocument.MAPPER.readTree(warm.bytes());
        assertThat(doc.path("revision").asLong()).isEqualTo(3);
        assertThat(doc.path("meta").path("daemon").path("projections").asInt()).isEqualTo(9);
        assertThat(StateDocument.stableTree(doc)).as("meta.daemon is no stable content").isEqualTo(StateDocument.stableTree(stable));
        assertThat(doc.path("tick").path("reason").asText()).isEqualTo("change");
        assertThat(StateDocument.MAPPER.readTree(warm.leafJson().get(0)).path("enclosure").get(1).asText())
                .isEqualTo("src/\"quoted\" é");
    }

    /**
     * Whatever happens between renders (leaves replaced, added, removed, moved, a whole list of new instances), a
     * render that copies unchanged runs from the last document gives the bytes of a render from scratch.
     */
    @Test
    void render_afterRandomChanges_sameBytesAsACacheFreeRender() throws Exception {
        StateDocument.Stable empty = new StateDocument.Stable(List.of(), List.of(), StateDocument.MAPPER.createObjectNode());
        for (long seed = 1; seed <= 40; seed++) {
            java.util.Random rnd = new java.util.Random(seed);
            StateDocument.LeafJsonCache warm = new StateDocument.LeafJsonCache();
            List<LeafState> leaves = new java.util.ArrayList<>();
            for (int i = 0; i < rnd.nextInt(30); i++) {
                leaves.add(leaf("t/leaf-" + i, "Leaf " + i, null));
            }
            for (int step = 0; step < 25; step++) {
                int ops = 1 + rnd.nextInt(3);
                for (int k = 0; k < ops; k++) {
                    int at = leaves.isEmpty() ? 0 : rnd.nextInt(leaves.size());
                    switch (rnd.nextInt(6)) {
                        case 0 -> leaves.add(Math.min(at, leaves.size()), leaf("t/new-" + seed + "-" + step + "-" + k, "New ✓", null));
                        case 1 -> {
                            if (!leaves.isEmpty()) {
                                leaves.remove(at);
                            }
                        }
                        case 2 -> {
                            if (!leaves.isEmpty()) { // an edit: a new instance with other content
                                LeafState l = leaves.get(at);
                                leaves.set(at, leaf(l.leafId(), "edited " + step, EngineFact.Liveness.ALIVE));
                            }
                        }
                        case 3 -> {
                            if (!leaves.isEmpty()) { // a re-parse: a new instance with equal content
                                LeafState l = leaves.get(at);
                                leaves.set(at, leaf(l.leafId(), l.title(), l.engine() == null ? null : l.engine().liveness()));
                            }
                        }
                        case 4 -> {
                            if (!leaves.isEmpty()) { // a move: the same instance at another position
                                java.util.Collections.swap(leaves, at, rnd.nextInt(leaves.size()));
                            }
                        }
                        default -> {
                            if (rnd.nextInt(5) == 0) {
                                leaves.clear();
                            }
                        }
                    }
                }
                StateDocument.Stable stable = new StateDocument.Stable(List.copyOf(leaves), List.of(), empty.meta());
                TickResult tick = new TickResult(WakeReason.CHANGE, NOW, step, true, leaves.size(), 0, SnapshotStats.empty(), 1, List.of(), null);
                StateDocument.Rendered got = StateDocument.render(Path.of("/ws"), step, NOW, stable, tick, null, warm);
                StateDocument.Rendered want = StateDocument.render(Path.of("/ws"), step, NOW, stable, tick, null,
                        new StateDocument.LeafJsonCache());
                assertThat(new String(got.bytes(), java.nio.charset.StandardCharsets.UTF_8)).as("seed %d step %d", seed, step)
                        .isEqualTo(new String(want.bytes(), java.nio.charset.StandardCharsets.UTF_8));
                assertThat(got.leafIds()).isEqualTo(want.leafIds());
                assertThat(got.leafJson()).isEqualTo(want.leafJson());
                assertThat(StateDocument.MAPPER.readTree(got.bytes()).path("leaves").size()).isEqualTo(leaves.size());
            }
        }
    }

    @Test
    void parse_documentItRendered_readsBackRevisionTimesLeavesAndFailures() throws Exception {
        ObjectNode meta = StateDocument.MAPPER.createObjectNode();
        meta.putObject("watch").put("mode", "live");
        StateDocument.Stable stable = new StateDocument.Stable(List.of(leaf("a/one", "One", null)),
                List.of(new SnapshotFailure("b/contract.json", SnapshotFailure.Kind.MALFORMED, "bad")), meta);
        TickResult tick = new TickResult(WakeReason.CHANGE, NOW, 7, true, 1, 1, SnapshotStats.empty(), 1_000, List.of(), null);
        byte[] bytes = StateDocument.render(Path.of("/ws"), 7, NOW, stable, tick).bytes();

        PublishedState read = PublishedState.parse("/ws/observer/state.json", bytes);

        assertThat(read.revision()).isEqualTo(7);
        assertThat(StateDocument.revisionOf(bytes)).as("the streamed head reader agrees").isEqualTo(7);
        assertThat(read.generatedAt()).isEqualTo(NOW);
        assertThat(read.tickReason()).isEqualTo(WakeReason.CHANGE.jsonName());
        assertThat(read.leaves()).containsOnlyKeys("a/one");
        assertThat(read.leaves().get("a/one").path("title").asText()).isEqualTo("One");
        assertThat(read.failures()).containsOnlyKeys("b/contract.json");
        assertThat(read.meta().path("watch").path("mode").asText()).isEqualTo("live");
    }

    @Test
    void read_malformedOrForeignFile_errorNamesTheFileAndWhatIsWrong(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path cut = dir.resolve("state.json");
        java.nio.file.Files.writeString(cut, "{\"format\":1,\"revision\":3,\"leaves\":[{\"leaf_id\"");
        Path foreign = dir.resolve("other.json");
        java.nio.file.Files.writeString(foreign, "{\"revision\":3}");

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PublishedState.read(cut))
                .isInstanceOf(java.io.IOException.class).hasMessageStartingWith(cut + " is not valid JSON");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PublishedState.read(foreign))
                .isInstanceOf(java.io.IOException.class)
                .hasMessageStartingWith(foreign + " is not a Kiln state document (no leaves array)");
        assertThat(PublishedState.read(dir.resolve("absent.json"))).as("nothing published yet").isNull();
        assertThat(StateDocument.revisionOf(cut)).as("the head is readable before the cut").isEqualTo(3);
    }
}
