package dev.kiln.core.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.startup.DemoServer;
import dev.kiln.core.startup.Outcome;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerConfigs;
import dev.kiln.core.startup.StartupProbe;
import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo workspace's servers are the bundled Python server, so probing the demo works offline. */
@ProcessTest
class DemoWorkspaceServersTest {
    @TempDir
    Path dir;

    @Test
    void write_sameSeed_sameServerBytes() throws Exception {
        new DemoWorkspace().write(dir.resolve("a"), 10, 7, false);
        new DemoWorkspace().write(dir.resolve("b"), 10, 7, false);

        for (String rel : List.of("servers.json", "servers/" + DemoServer.FILE_NAME)) {
            assertThat(Files.readAllBytes(dir.resolve("a").resolve(rel))).as(rel)
                    .isEqualTo(Files.readAllBytes(dir.resolve("b").resolve(rel)));
        }
        assertThat(Files.readAllBytes(dir.resolve("a/servers/" + DemoServer.FILE_NAME))).isEqualTo(DemoServer.script());
    }

    @Test
    void write_serversJson_namesTheExtractedScriptAndProbesOk() throws Exception {
        Path ws = dir.resolve("ws");
        new DemoWorkspace().write(ws, 10, 7, false);

        List<ServerConfig> servers = ServerConfigs.read(ws.resolve("servers.json"));

        assertThat(servers).isNotEmpty().allSatisfy(s -> {
            assertThat(s.command()).isEqualTo("python3");
            assertThat(s.cwd().resolve(s.args().get(0))).isRegularFile();
        });
        ProbeReport report = StartupProbe.builder().build()
                .run(servers.stream().filter(s -> s.name().equals("demo-light")).toList());
        assertThat(report.results()).singleElement().satisfies(r -> assertThat(r.outcome()).isEqualTo(Outcome.OK));
    }
}
