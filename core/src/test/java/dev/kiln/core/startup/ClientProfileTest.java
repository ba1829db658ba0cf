package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What each client counts against its timeout, where it keeps its servers, and its verdict on one report. */
class ClientProfileTest {
    static final Instant T = Instant.parse("2026-12-02T00:00:00Z");

    @TempDir
    Path tmp;

    private static ServerResult ok(String name, double initMs, double toolsMs, long timeoutMs) {
        return new ServerResult(name, ServerConfig.Transport.STDIO, 1, Outcome.OK, null, "", "2025-11-25", initMs, toolsMs, 3,
                timeoutMs, new Timeline(0.0, initMs - 1, null, initMs, toolsMs, toolsMs + 5), List.of());
    }

    @Test
    void verdicts_codexCountsToolsList_lateWhereInitializeAloneFits() {
        ProbeReport r = new ProbeReport(T, "", 1, BytecodeMode.AS_IS, List.of(ok("slow-tools", 29_000, 31_000, 30_000)),
                new ProbeReport.CpuLimit(0.5, "cgroup-v1", "g", null, null, ""), HandshakeOrder.INITIALIZE_FIRST);

        assertThat(ClientProfile.CODEX.verdicts(r)).contains("LATE: 31000 ms of 30 s")
                .contains("startup_timeout_sec = 48").contains("at a 0.5-CPU share");
        assertThat(ClientProfile.CLAUDE_CODE.verdicts(r)).contains("in time: 29000 ms");
    }

    @Test
    void verdicts_clineHardCoded_andUnsqueezedRecommendsNothing() {
        ProbeReport r = new ProbeReport(T, "", 1, BytecodeMode.AS_IS, List.of(ok("s", 1_800, 1_900, 30_000)));

        assertThat(ClientProfile.CLINE.verdicts(r)).contains("LATE: 1800 ms of 1.500 s").doesNotContain("recommend:")
                .contains("kiln probe --recommend --client cline");
        assertThat(ClientProfile.CURSOR.verdicts(r)).contains("no documented default");
    }

    @Test
    void findConfig_eachClientsOwnFile() throws Exception {
        Files.createDirectories(tmp.resolve("proj/.vscode"));
        Files.writeString(tmp.resolve("proj/.vscode/mcp.json"), "{\"servers\": {}}");
        Files.createDirectories(tmp.resolve("home/.codex"));
        Files.writeString(tmp.resolve("home/.codex/config.toml"), "");

        assertThat(ClientProfile.VSCODE.findConfig(tmp.resolve("home"), tmp.resolve("proj")))
                .contains(tmp.resolve("proj/.vscode/mcp.json"));
        assertThat(ClientProfile.CODEX.findConfig(tmp.resolve("home"), tmp.resolve("proj")))
                .contains(tmp.resolve("home/.codex/config.toml"));
        assertThat(ClientProfile.CURSOR.findConfig(tmp.resolve("home"), tmp.resolve("proj"))).isEmpty();
        assertThat(ClientProfile.parse("openai-agents").defaultTimeout()).contains(Duration.ofSeconds(5));
        assertThatThrownBy(() -> ClientProfile.parse("emacs")).hasMessageContaining("codex, claude-code");
    }
}
