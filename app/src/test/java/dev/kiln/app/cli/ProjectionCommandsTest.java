package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.testkit.DaemonTest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DaemonTest
class ProjectionCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void project_demoWorkspace_writesStateAndPrintsCountersAsJson() throws Exception {
        Path ws = dir.resolve("ws");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "120").exit()).isZero();

        CliRun first = CliRun.kiln("project", ws.toString(), "--json");
        CliRun second = CliRun.kiln("project", ws.toString(), "--json");

        assertThat(first.exit()).isZero();
        JsonNode a = JSON.readTree(first.out());
        assertThat(a.get("changed").asBoolean()).isTrue();
        assertThat(a.get("revision").asLong()).isEqualTo(1);
        assertThat(a.get("counters").get("enumerated").asInt()).isEqualTo(120);
        assertThat(a.get("failures")).hasSize(1); // the demo's planted malformed contract
        JsonNode b = JSON.readTree(second.out());
        assertThat(b.get("changed").asBoolean()).isFalse();
        assertThat(b.get("revision").asLong()).isEqualTo(1);
        assertThat(JSON.readTree(ws.resolve("observer/state.json").toFile()).get("leaves")).hasSize(119);
    }

    @Test
    void heal_dryRunThenReal_listsThenRewritesAndASecondRunFindsNothing() throws Exception {
        Path ws = dir.resolve("ws");
        CliRun.kiln("demo", ws.toString(), "--contracts", "200");

        JsonNode dry = JSON.readTree(CliRun.kiln("heal", ws.toString(), "--dry-run", "--json").out());
        CliRun real = CliRun.kiln("heal", ws.toString());
        JsonNode again = JSON.readTree(CliRun.kiln("heal", ws.toString(), "--json").out());

        assertThat(dry.get("dry_run").asBoolean()).isTrue();
        assertThat(dry.get("changes")).hasSize(2);
        assertThat(real.exit()).isZero();
        assertThat(real.out()).startsWith("Healed 2 of 200 contracts").contains("->");
        assertThat(again.get("changes")).isEmpty();
        assertThat(again.get("problems")).hasSize(1);
    }

    @Test
    void projectAndHeal_notAWorkspace_failWithExitTwoAndSayWhatToDo() throws Exception {
        Files.createDirectories(dir.resolve("empty"));

        CliRun project = CliRun.kiln("project", dir.resolve("empty").toString());
        CliRun heal = CliRun.kiln("heal", dir.resolve("empty").toString());

        assertThat(project.exit()).isEqualTo(2);
        assertThat(project.err()).contains("not a Kiln workspace").contains("kiln demo");
        assertThat(heal.exit()).isEqualTo(2);
    }

    @Test
    void project_workspaceAKilnServeOwns_asksTheDaemonInsteadOfWriting() throws Exception {
        Path ws = dir.resolve("served");
        assertThat(CliRun.kiln("demo", ws.toString(), "--contracts", "60").exit()).isZero();
        dev.kiln.core.workspace.WorkspaceLayout layout = dev.kiln.core.workspace.WorkspaceLayout.of(ws);
        try (dev.kiln.core.serve.ProjectionDaemon daemon = dev.kiln.core.serve.ProjectionDaemon.builder(layout).port(0).start()) {
            daemon.awaitFirstProjection(java.time.Duration.ofSeconds(60));
            long manual = daemon.metrics().byReason().getOrDefault(dev.kiln.core.projection.WakeReason.MANUAL, 0L);

            CliRun r = CliRun.kiln("project", ws.toString(), "--json");

            assertThat(r.exit()).as(r.err()).isZero();
            JsonNode o = JSON.readTree(r.out());
            assertThat(o.get("served_by").asText()).contains("pid " + ProcessHandle.current().pid()).contains(daemon.url().toString());
            assertThat(o.get("revision").asLong()).isEqualTo(daemon.revision());
            assertThat(o.get("leaves").asInt()).isEqualTo(59);
            assertThat(daemon.metrics().byReason().get(dev.kiln.core.projection.WakeReason.MANUAL)).isEqualTo(manual + 1);
            assertThat(JSON.readTree(ws.resolve("observer/state.json").toFile()).get("revision").asLong())
                    .as("the daemon's sequence, nobody else's").isEqualTo(daemon.revision());

            Files.delete(layout.apiTokenFile());
            CliRun refused = CliRun.kiln("project", ws.toString());
            assertThat(refused.exit()).isNotZero();
            assertThat(refused.err()).contains("owns").contains("cannot read the API token");
        }
    }
}
