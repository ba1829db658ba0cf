package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.testkit.ProcessTest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A probe keeps each server's own conversation, as the MCP Inspector shows it: the real npm memory server's
 * handshake message by message (both ways, with the time each crossed after the spawn) and its stderr banner, in
 * the result and in the saved run's document.
 */
@ProcessTest
class ConversationProbeTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void run_realNpmServer_conversationHoldsTheHandshakeBothWaysAndItsStderr() throws Exception {
        ServerConfig memory = ServerConfig.stdio("memory", dir, "node", List.of(RealServers.npmServer("server-memory").toString()),
                Map.of("MEMORY_FILE_PATH", dir.resolve("memory.json").toString()));

        ProbeReport report = StartupProbe.builder().timeout(Duration.ofSeconds(90)).build().run(List.of(memory));

        ServerResult r = report.results().get(0);
        assertThat(r.outcome()).as(r.reason() + " " + r.stderrTail()).isEqualTo(Outcome.OK);
        Conversation c = r.conversation();
        List<Conversation.Message> m = c.messages();
        // Kiln's initialize, the server's answer to that very id with the version it chose, initialized, tools/list.
        Conversation.Message init = m.stream().filter(x -> "initialize".equals(x.method())).reduce((a, b) -> b).orElseThrow();
        assertThat(init.direction()).isEqualTo(Conversation.Direction.SENT);
        assertThat(JSON.readTree(init.json()).path("params").path("clientInfo").path("name").asText()).isEqualTo("kiln");
        Conversation.Message answer = m.stream().filter(x -> x.direction() == Conversation.Direction.RECEIVED
                && init.id().equals(x.id()) && x.method() == null).findFirst().orElseThrow();
        JsonNode result = JSON.readTree(answer.json()).path("result");
        assertThat(result.path("protocolVersion").asText()).isEqualTo(r.protocolVersion());
        assertThat(result.path("serverInfo").path("name").asText()).isNotEmpty();
        assertThat(m).extracting(Conversation.Message::method).contains("notifications/initialized", "tools/list");
        Conversation.Message list = m.stream().filter(x -> "tools/list".equals(x.method())).findFirst().orElseThrow();
        Conversation.Message tools = m.stream().filter(x -> x.direction() == Conversation.Direction.RECEIVED
                && list.id().equals(x.id())).findFirst().orElseThrow();
        assertThat(JSON.readTree(tools.json()).path("result").path("tools").size()).isEqualTo(r.tools());
        // In the order they crossed, timed after the spawn; the answer at its initialize figure.
        assertThat(m).extracting(Conversation.Message::atMs).isSorted().allSatisfy(t -> assertThat(t).isNotNegative());
        assertThat(answer.atMs()).isCloseTo(r.initializeMs(), org.assertj.core.data.Offset.offset(0.01));
        assertThat(m.indexOf(init)).isLessThan(m.indexOf(answer));
        // The server's one stderr line, whole.
        assertThat(c.stderr()).contains("Knowledge Graph MCP Server running on stdio");
        assertThat(c.stderrTruncated()).isFalse();
        assertThat(c.stderrBytes()).isEqualTo(c.stderr().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);

        // Saved with the run: the document reads back to the same conversation.
        JsonNode saved = JSON.readTree(JSON.writeValueAsString(report.toJson())).path("servers").get(0).path("conversation");
        assertThat(ProbeReport.conversation(saved)).isEqualTo(c);
    }
}
