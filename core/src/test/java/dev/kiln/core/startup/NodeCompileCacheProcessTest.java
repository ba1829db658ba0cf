package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Node's compile cache with a real Node 24 from the npm registry and a real npm server: {@code kiln bytecode compile}'s
 * warm leaves a cache a killed server never leaves (Node writes it only at a normal exit), the audit sees it, and the
 * probe of the server with the cache still answers; a Node older than 22.1 is told so and nothing is written.
 */
@ProcessTest
class NodeCompileCacheProcessTest {
    @TempDir
    Path tmp;

    @Test
    void warm_node24_serverExitsNormally_cacheWrittenAndAudited_olderNodeSaysSo() throws Exception {
        Path node = RealServers.currentNode();
        Path entry = RealServers.npmServer("server-memory");
        ServerConfig server = ServerConfig.stdio("memory", tmp, node.toString(), List.of(entry.toString()),
                Map.of("MEMORY_FILE_PATH", tmp.resolve("m.jsonl").toString()));

        NodeCompileCache.Report none = NodeCompileCache.audit(server);
        assertThat(none.supported()).as(none.nodeVersion()).isTrue();
        assertThat(none.note()).contains("sets no NODE_COMPILE_CACHE").contains("kiln bytecode compile memory");

        Path cache = tmp.resolve("ncc");
        NodeCompileCache.Report warmed = NodeCompileCache.warm(server, cache);
        assertThat(warmed.note()).as("the server exited normally and Node wrote its cache").startsWith("warmed ");
        assertThat(warmed.files()).isPositive();
        // A killed Node leaves ~8 KB; the SDK's modules compiled are far more (about 1.5 MB for the reference servers).
        assertThat(warmed.bytes()).isGreaterThan(200 * 1024);

        ServerConfig using = ServerConfig.stdio("memory", tmp, node.toString(), List.of(entry.toString()),
                Map.of("MEMORY_FILE_PATH", tmp.resolve("m.jsonl").toString(), "NODE_COMPILE_CACHE", cache.toString()));
        NodeCompileCache.Report audit = NodeCompileCache.audit(using);
        assertThat(audit.files()).isEqualTo(warmed.files());
        assertThat(audit.note()).startsWith("warm: ");
        ServerResult r = StartupProbe.builder().build().run(List.of(using)).results().get(0);
        assertThat(r.outcome()).as(r.reason()).isEqualTo(Outcome.OK);

        ServerConfig old = ServerConfig.stdio("old", tmp, "node", List.of(entry.toString()), Map.of());
        NodeCompileCache.Report older = NodeCompileCache.audit(old);
        if (!older.supported()) { // the machine's own Node (20 here); a newer machine Node makes this part moot
            Path never = tmp.resolve("never");
            NodeCompileCache.Report refused = NodeCompileCache.warm(old, never);
            assertThat(refused.note()).contains("has no compile cache").contains("22.1");
            assertThat(Files.exists(never)).as("nothing written for an older Node").isFalse();
        }
    }
}
