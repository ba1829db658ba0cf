package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which launcher a server's command uses, and how its own output is told from the server's. */
class LauncherTest {

    @Test
    void of_commandLines_recogniseEachFetchingLauncherAndTheDirectRuntimes() {
        assertThat(Launcher.of("npx", List.of("-y", "@modelcontextprotocol/server-memory@2026.8.31"))).isEqualTo(Launcher.NPX);
        assertThat(Launcher.of("/usr/bin/npm", List.of("exec", "--yes", "--", "pkg"))).isEqualTo(Launcher.NPM_EXEC);
        assertThat(Launcher.of("npm", List.of("start"))).isEqualTo(Launcher.OTHER);
        assertThat(Launcher.of("uvx", List.of("mcp-server-time==2026.10.19"))).isEqualTo(Launcher.UVX);
        assertThat(Launcher.of("uv", List.of("tool", "run", "mcp-server-time"))).isEqualTo(Launcher.UV_TOOL_RUN);
        assertThat(Launcher.of("uv", List.of("run", "server.py"))).isEqualTo(Launcher.OTHER);
        assertThat(Launcher.of("pipx", List.of("run", "mcp-server-fetch"))).isEqualTo(Launcher.PIPX_RUN);
        assertThat(Launcher.of("bunx", List.of("pkg"))).isEqualTo(Launcher.BUNX);
        assertThat(Launcher.of("pnpm", List.of("dlx", "pkg"))).isEqualTo(Launcher.PNPM_DLX);
        assertThat(Launcher.of("yarn", List.of("dlx", "pkg"))).isEqualTo(Launcher.YARN_DLX);
        assertThat(Launcher.of("node", List.of("dist/index.js"))).isEqualTo(Launcher.NODE);
        assertThat(Launcher.of("/opt/venv/bin/python3.12", List.of("-m", "x"))).isEqualTo(Launcher.PYTHON);
        assertThat(Launcher.of("./my-server", List.of())).isEqualTo(Launcher.OTHER);
        assertThat(Launcher.of("bunx", List.of()).runtime()).isEqualTo(Launcher.Runtime.UNKNOWN);
        assertThat(Launcher.OTHER.importAdvice()).isEmpty();
        assertThat(Launcher.NODE.fetchAdvice()).isEmpty();
    }

    @Test
    void ownsLine_npmAndUvProgress_areTheLaunchersAndTheServersBannerIsNot() {
        // lines as npm 11 and uv 0.13 print them (captured from real cold runs)
        assertThat(Launcher.NPX.ownsLine("npm http fetch GET 200 https://registry.npmjs.org/zod 49ms (cache miss)")).isTrue();
        assertThat(Launcher.NPX.saysDownloaded("npm http fetch GET 200 https://registry.npmjs.org/zod 49ms (cache miss)")).isTrue();
        assertThat(Launcher.NPX.saysDownloaded("npm warn exec The following package was not found and will be installed:"
                + " @modelcontextprotocol/server-memory@2026.8.31")).isTrue();
        assertThat(Launcher.NPX.ownsLine("Knowledge Graph MCP Server running on stdio")).isFalse();
        assertThat(Launcher.UVX.ownsLine("Installed 31 packages in 178ms")).isTrue();
        assertThat(Launcher.UVX.ownsLine(" Downloaded cryptography")).isTrue();
        assertThat(Launcher.UVX.saysDownloaded("Downloading pydantic-core (2.2MiB)")).isTrue();
        assertThat(Launcher.UVX.saysDownloaded("Installed 31 packages in 178ms")).isFalse();
        assertThat(Launcher.UVX.ownsLine("Resolved 31 packages in 1.20s")).isTrue();
        assertThat(Launcher.UVX.ownsLine("Traceback (most recent call last):")).isFalse();
        assertThat(Launcher.PIPX_RUN.ownsLine("Installed 31 packages in 178ms")).isFalse(); // no reader for pipx
    }

    @Test
    void growingDir_followsTheServersEnvironment() {
        assertThat(Launcher.NPX.growingDir(Map.of("NPM_CONFIG_CACHE", "/c", "HOME", "/h"))).isEqualTo(Path.of("/c/_npx"));
        assertThat(Launcher.NPX.growingDir(Map.of("HOME", "/h"))).isEqualTo(Path.of("/h/.npm/_npx"));
        assertThat(Launcher.UVX.growingDir(Map.of("UV_CACHE_DIR", "/u"))).isEqualTo(Path.of("/u/archive-v0"));
        assertThat(Launcher.UVX.growingDir(Map.of("HOME", "/h"))).isEqualTo(Path.of("/h/.cache/uv/archive-v0"));
        assertThat(Launcher.PIPX_RUN.growingDir(Map.of("HOME", "/h"))).isNull();
    }

    @Test
    void launcherish_wrappersAndLaunchersButNotTheServer() {
        assertThat(FetchWatch.launcherish("npm exec @modelcontextprotocol/server-memory@2026.8.31")).isTrue();
        assertThat(FetchWatch.launcherish("node /usr/bin/npx -y pkg")).isTrue();
        assertThat(FetchWatch.launcherish("/root/.pyenv/libexec/pyenv exec uvx mcp-server-time")).isTrue();
        assertThat(FetchWatch.launcherish("/bin/sh -c echo $$ > x; exec \"$@\" kiln-cpu-quota npx")).isTrue();
        assertThat(FetchWatch.launcherish("/tmp/uvc/archive-v0/abc/bin/python /tmp/uvc/archive-v0/abc/bin/mcp-server-time"))
                .isFalse();
    }
}
