package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.core.snapshot.TestTrees;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.testkit.Await;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import dev.kiln.testkit.SmallDisk;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, item 19: the workspace's disk fills up under a running daemon (a real 1 MiB tmpfs, filled to the last
 * byte). A small state document is written in the tick; its write failing used to freeze {@code /api/v1/state} at the
 * old revision while health said nothing was wrong. The API serves the new revision from memory, and health and
 * {@code /metrics} say that {@code state.json} cannot be written, naming it and the OS's reason, until it can again.
 */
@DaemonTest
@KernelTest
@ProcessTest
class DiskFullTest {
    private static final ObjectMapper M = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void serve_diskFullBelowTheWriteBehindSize_apiServesTheNewRevisionAndHealthSaysTheFileCannotBeWritten() throws Exception {
        Path mount = Files.createDirectories(dir.resolve("small-disk"));
        Assumptions.assumeTrue(SmallDisk.canMount(), "mounting a tmpfs needs root");
        SmallDisk.mount(mount, "1m");
        try {
            diskFillsAndEmpties(mount);
        } finally {
            SmallDisk.unmount(mount);
        }
    }

    private void diskFillsAndEmpties(Path root) throws Exception {
        WorkspaceLayout layout = WorkspaceLayout.of(root);
        Path edited = TestTrees.contract(layout.tasksDir(), "payments/refunds/retry", "running");
        TestTrees.contract(layout.tasksDir(), "search/ranking/backfill", "pending");
        try (ProjectionDaemon daemon = ProjectionDaemon.builder(layout)
                .pacing(new ChangePacer.Settings(Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofHours(1)))
                .port(0).start()) {
            long first = daemon.awaitFirstProjection(Duration.ofSeconds(30));
            Path filler = root.resolve("filler");
            SmallDisk.fill(filler);
            // The edit is made in place (same size, the page the truncation frees is taken again): it fits; a new
            // state.json (temp file, rename) does not.
            String text = Files.readString(edited);
            Files.writeString(edited, text.replace("\"running\"", "\"blocked\""));

            Await.await("the API serves the edited revision", () -> served(daemon).path("revision").asLong() > first);
            JsonNode state = served(daemon);
            assertThat(state.toString()).contains("\"blocked\"");
            assertThat(Projector.publishedRevision(layout.stateFile())).as("the file keeps the old revision").isEqualTo(first);
            JsonNode health = get(daemon, "/api/v1/health");
            assertThat(health.path("state_file_error").asText()).contains(layout.stateFile().toString())
                    .contains("No space left on device");
            DaemonHealth h = ServeClient.of(layout).orElseThrow().health();
            assertThat(h.healthy()).isFalse();
            assertThat(h.problems()).anySatisfy(p -> assertThat(p).contains("state.json cannot be written")
                    .contains("No space left on device").contains("from memory"));
            assertThat(get(daemon, "/api/v1/metrics").path("state_file").path("write_error").asText())
                    .contains("No space left on device");
            assertThat(text(daemon, "/metrics")).contains("kiln_state_file_write_failing 1.0");

            Files.delete(filler); // space again: the retry writes the served revision, and every report clears
            long servedRevision = state.path("revision").asLong();
            Await.await("state.json written again", () -> Projector.publishedRevision(layout.stateFile()) == servedRevision);
            Await.await("health clears", () -> !get(daemon, "/api/v1/health").has("state_file_error"));
            assertThat(ServeClient.of(layout).orElseThrow().health().healthy()).isTrue();
            assertThat(text(daemon, "/metrics")).contains("kiln_state_file_write_failing 0.0");
            assertThat(M.readTree(Files.readString(layout.stateFile())).toString()).contains("\"blocked\"");
        }
    }

    private static JsonNode served(ProjectionDaemon daemon) {
        return get(daemon, "/api/v1/state");
    }

    private static JsonNode get(ProjectionDaemon daemon, String path) {
        try {
            return M.readTree(text(daemon, path));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String text(ProjectionDaemon daemon, String path) {
        try {
            Http.Response r = Http.call("GET", daemon.url().resolve(path));
            assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
            return r.body();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

}
