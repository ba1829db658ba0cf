package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.startup.Launcher;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.workspace.WorkspaceException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading a launcher's command line into a seedable package, the seed's hash, and the snippets; no process runs. */
class ServerSeedsSpecTest {
    @TempDir
    Path tmp;

    private static ServerConfig stdio(String command, String... args) {
        return ServerConfig.stdio("srv", Path.of("/tmp"), command, List.of(args), Map.of());
    }

    private static ServerSeeds.Spec spec(ServerConfig s) {
        return ServerSeeds.Spec.parse(s, Launcher.of(s));
    }

    @Test
    void parse_npxScopedPinned_packageVersionAndServerArgs() {
        ServerSeeds.Spec s = spec(stdio("npx", "-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "/data"));

        assertThat(s.pkg()).isEqualTo("@modelcontextprotocol/server-filesystem");
        assertThat(s.version()).isEqualTo("2026.8.31");
        assertThat(s.exact()).isTrue();
        assertThat(s.serverArgs()).containsExactly("/data");
    }

    @Test
    void parse_unpinnedSpecs_areMarkedForResolution() {
        assertThat(spec(stdio("npx", "-y", "@modelcontextprotocol/server-memory")).version()).isEqualTo("latest");
        assertThat(spec(stdio("npx", "-y", "pkg@^1.2")).exact()).isFalse();
        assertThat(spec(stdio("npm", "exec", "--yes", "--package=pkg@1.0.0", "--", "pkg-bin")).pkg()).isEqualTo("pkg");
        ServerSeeds.Spec uv = spec(stdio("uvx", "mcp-server-time"));
        assertThat(uv.version()).isEqualTo("latest");
        assertThat(spec(stdio("uvx", "mcp-server-time>=2026")).version()).isEqualTo(">=2026");
        assertThat(spec(stdio("uvx", "mcp-server-time@latest")).version()).isEqualTo("latest");
    }

    @Test
    void parse_uvxFromAndToolRun_executableAndExactVersion() {
        ServerSeeds.Spec s = spec(stdio("uvx", "--from", "mcp-server-git==2026.10.19", "mcp-server-git", "--repository", "."));

        assertThat(s.pkg()).isEqualTo("mcp-server-git");
        assertThat(s.version()).isEqualTo("2026.10.19");
        assertThat(s.executable()).isEqualTo("mcp-server-git");
        assertThat(s.serverArgs()).containsExactly("--repository", ".");
        assertThat(spec(stdio("uv", "tool", "run", "mcp-server-time==2026.10.19")).version()).isEqualTo("2026.10.19");
    }

    @Test
    void parse_notALauncherKilnSeeds_namesTheServerAndSaysWhy() {
        assertThatThrownBy(() -> spec(stdio("node", "dist/index.js"))).isInstanceOf(WorkspaceException.class)
                .hasMessageContaining("server srv").hasMessageContaining("not a launcher Kiln seeds");
        assertThatThrownBy(() -> spec(ServerConfig.http("web", URI.create("http://127.0.0.1:1/mcp"), Map.of())))
                .hasMessageContaining("server web").hasMessageContaining("HTTP");
        assertThatThrownBy(() -> spec(stdio("uvx", "--with", "x", "mcp-server-time"))).hasMessageContaining("--with");
        assertThatThrownBy(() -> spec(stdio("npx", "-y"))).hasMessageContaining("no package");
    }

    @Test
    void parse_flagWithoutItsValue_namesTheServerAndTheFlag() {
        assertThatThrownBy(() -> spec(stdio("npx", "-y", "--package"))).isInstanceOf(WorkspaceException.class)
                .hasMessageContaining("server srv").hasMessageContaining("'--package' needs a value");
        assertThatThrownBy(() -> spec(stdio("npm", "exec", "-p"))).isInstanceOf(WorkspaceException.class)
                .hasMessageContaining("'-p' needs a value");
        assertThatThrownBy(() -> spec(stdio("uvx", "--from"))).isInstanceOf(WorkspaceException.class)
                .hasMessageContaining("server srv").hasMessageContaining("'--from' needs a value");
    }

    @Test
    void hash_aChangedByte_isSeenAndWhatLaunchersRewriteIsNot() throws Exception {
        Path seed = tmp.resolve("seed");
        Files.createDirectories(seed.resolve("npm-cache/_cacache/content-v2"));
        Files.createDirectories(seed.resolve("npm-cache/_logs"));
        Files.writeString(seed.resolve("npm-cache/_cacache/content-v2/blob"), "tarball bytes");
        String before = ServerSeeds.hash(seed).sha();

        Files.writeString(seed.resolve("npm-cache/_logs/debug-0.log"), "a run's log");
        assertThat(ServerSeeds.hash(seed).sha()).isEqualTo(before);
        Files.writeString(seed.resolve("npm-cache/_cacache/content-v2/blob"), "tarball bytez");
        assertThat(ServerSeeds.hash(seed).sha()).isNotEqualTo(before);
    }

    @Test
    void find_corruptedOrHalfWrittenSeed_isNeverUsed() throws Exception {
        ServerSeeds seeds = ServerSeeds.of(SeedCaches.of(tmp), Map.of(), Clock.systemUTC());
        Path dir = tmp.resolve("seeds/servers/npm-pkg-1.0.0-abc");
        ServerSeeds.Plan plan = new ServerSeeds.Plan("srv", Launcher.NPX, "pkg", "1.0.0", "1.0.0", "pkg", List.of(),
                "node v20", "https://registry.npmjs.org/", "npm-pkg-1.0.0-abc", dir);
        Files.createDirectories(dir.resolve("npm-cache"));
        Files.writeString(dir.resolve("npm-cache/blob"), "content");
        assertThat(seeds.find(plan)).as("half-written: no hash file yet").isEmpty();

        Files.writeString(dir.resolve(SeedStore.HASH_FILE), ServerSeeds.hash(dir).sha() + "\n");
        assertThat(seeds.find(plan)).isPresent();

        Files.writeString(dir.resolve("npm-cache/blob"), "c0ntent");
        assertThat(seeds.find(plan)).as("corrupted: its files no longer hash to what was warmed").isEmpty();
    }

    @Test
    void snippet_eachClientFormat_givesTheEnvOrTheRewrittenCommand() {
        ServerSeeds seeds = ServerSeeds.of(SeedCaches.of(tmp), Map.of(), Clock.systemUTC());
        Path dir = tmp.resolve("seeds/servers/uv-mcp-server-time-2026.10.19-abc");
        ServerSeeds.Plan plan = new ServerSeeds.Plan("time", Launcher.UVX, "mcp-server-time", "latest", "2026.10.19",
                "mcp-server-time", List.of("--local-timezone", "UTC"), "uv 0.13.9", "https://pypi.org/simple", "k", dir);
        ServerSeeds.Seed seed = new ServerSeeds.Seed(plan, WarmOutcome.WARMED, "", "sha", 1);
        ServerConfig server = ServerConfig.stdio("time", tmp, "uvx", List.of("mcp-server-time", "--local-timezone", "UTC"),
                Map.of("API_TOKEN", "s3cret"));

        assertThat(plan.pinned()).isFalse();
        assertThat(plan.pinnedSpec()).isEqualTo("mcp-server-time==2026.10.19");
        assertThat(seeds.snippet(server, seed, ServerSeeds.Form.CACHE, "json")).contains("\"mcpServers\"")
                .contains("\"UV_CACHE_DIR\" : \"" + dir.resolve("uv-cache") + "\"").contains("\"UV_OFFLINE\" : \"1\"")
                .doesNotContain("s3cret");
        assertThat(seeds.snippet(server, seed, ServerSeeds.Form.CACHE, "vscode")).contains("\"servers\"")
                .contains("\"type\" : \"stdio\"");
        assertThat(seeds.snippet(server, seed, ServerSeeds.Form.INSTALLED, "codex")).startsWith("[mcp_servers.time]\n")
                .contains("command = \"" + dir.resolve("uv-tools/mcp-server-time/bin/python") + "\"")
                .contains("\"--local-timezone\", \"UTC\"]");
        ServerConfig installed = seeds.seeded(server, seed, ServerSeeds.Form.INSTALLED);
        assertThat(installed.args()).endsWith("--local-timezone", "UTC");
        assertThat(Launcher.of(installed)).isEqualTo(Launcher.PYTHON);
    }
}
