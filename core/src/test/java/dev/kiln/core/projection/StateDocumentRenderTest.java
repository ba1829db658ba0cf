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
        assertThat(warm.leaves().get("a/two")).isSameAs(cold.leaves().get("a/two"));
        JsonNode doc = StateDocument.MAPPER.readTree(warm.bytes());
        assertThat(doc.path("revision").asLong()).isEqualTo(3);
        assertThat(doc.path("meta").path("daemon").path("projections").asInt()).isEqualTo(9);
        assertThat(StateDocument.stableTree(doc)).as("meta.daemon is no stable content").isEqualTo(StateDocument.stableTree(stable));
        assertThat(doc.path("tick").path("reason").asText()).isEqualTo("change");
        assertThat(StateDocument.MAPPER.readTree(warm.leaves().get("a/one")).path("enclosure").get(1).asText())
                .isEqualTo("src/\"quoted\" é");
    }
}
