package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerConfigsTest {
    @TempDir
    Path dir;

    private Path file(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void read_mcpServersJson_stdioAndRemoteInFileOrder() throws Exception {
        Path f = file("servers.json", """
                {"mcpServers": {
                  "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "tasks"],
                         "env": {"DEBUG": "1"}, "cwd": "sub"},
                  "remote": {"url": "http://127.0.0.1:3001/mcp", "headers": {"Authorization": "Bearer t"}},
                  "typed": {"type": "streamable-http", "url": "https://example.invalid/mcp"},
                  "off": {"command": "python3", "disabled": true, "startup_timeout_sec": 2.5}
                }}""");

        List<ServerConfig> servers = ServerConfigs.read(f);

        assertThat(servers).extracting(ServerConfig::name).containsExactly("fs", "remote", "typed", "off");
        ServerConfig fs = servers.get(0);
        assertThat(fs.transport()).isEqualTo(ServerConfig.Transport.STDIO);
        assertThat(fs.args()).containsExactly("-y", "@modelcontextprotocol/server-filesystem", "tasks");
        assertThat(fs.env()).isEqualTo(Map.of("DEBUG", "1"));
        assertThat(fs.cwd()).isEqualTo(dir.resolve("sub").toAbsolutePath());
        assertThat(fs.source()).isEqualTo(f.toAbsolutePath());
        assertThat(servers.get(1).transport()).isEqualTo(ServerConfig.Transport.HTTP);
        assertThat(servers.get(1).url()).isEqualTo(URI.create("http://127.0.0.1:3001/mcp"));
        assertThat(servers.get(1).headers()).containsEntry("Authorization", "Bearer t");
        assertThat(servers.get(2).transport()).isEqualTo(ServerConfig.Transport.HTTP);
        assertThat(servers.get(3).enabled()).isFalse();
        assertThat(servers.get(3).startupTimeout()).contains(Duration.ofMillis(2500));
        assertThat(servers.get(3).cwd()).as("default: the file's directory").isEqualTo(dir.toAbsolutePath());
    }

    @Test
    void read_codexConfigToml_mcpServersTables() throws Exception {
        Path f = file("config.toml", """
                model = "o4-mini"

                [mcp_servers.docs]
                command = "uvx"
                args = ["mcp-server-fetch"]
                startup_timeout_sec = 20
                env = { "HTTP_PROXY" = "" }

                [mcp_servers.remote]
                url = "http://127.0.0.1:8080/mcp"
                http_headers = { "X-Team" = "kiln" }
                enabled = false
                """);

        List<ServerConfig> servers = ServerConfigs.read(f);

        assertThat(servers).extracting(ServerConfig::name).containsExactly("docs", "remote");
        assertThat(servers.get(0).command()).isEqualTo("uvx");
        assertThat(servers.get(0).startupTimeout()).isEqualTo(Optional.of(Duration.ofSeconds(20)));
        assertThat(servers.get(0).env()).containsEntry("HTTP_PROXY", "");
        assertThat(servers.get(1).headers()).containsEntry("X-Team", "kiln");
        assertThat(servers.get(1).enabled()).isFalse();
    }

    @Test
    void read_badFields_errorNamesFileServerAndField() throws Exception {
        Path f = file("servers.json", "{\"mcpServers\": {\"broken\": {\"command\": \"x\", \"args\": \"--flag\"}}}");
        assertThatThrownBy(() -> ServerConfigs.read(f)).isInstanceOf(ServerConfigException.class)
                .hasMessage(f.toAbsolutePath() + ": server 'broken': field 'args' must be an array of strings");

        Path g = file("g.json", "{\"mcpServers\": {\"nothing\": {\"env\": {}}}}");
        assertThatThrownBy(() -> ServerConfigs.read(g)).hasMessage(g.toAbsolutePath()
                + ": server 'nothing': field 'command' is missing: a server needs a command (stdio) or a url (Streamable HTTP)");

        Path h = file("h.toml", "[mcp_servers.slow]\ncommand = \"x\"\nstartup_timeout_sec = \"soon\"\n");
        assertThatThrownBy(() -> ServerConfigs.read(h)).hasMessage(h.toAbsolutePath()
                + ": server 'slow': field 'startup_timeout_sec' must be a positive number, got \"soon\"");

        Path i = file("i.json", "{\"mcpServers\": {\"old\": {\"type\": \"sse\", \"url\": \"http://127.0.0.1/sse\"}}}");
        assertThatThrownBy(() -> ServerConfigs.read(i)).hasMessageContaining("server 'old': field 'type' is 'sse'");

        Path j = file("j.json", "{\"mcpServers\": {\"u\": {\"url\": \"ftp://x/mcp\"}}}");
        assertThatThrownBy(() -> ServerConfigs.read(j)).hasMessageContaining("field 'url' must be http:// or https://");
    }

    @Test
    void read_malformedOrMissingFile_errorSaysWhere() throws Exception {
        Path f = file("servers.json", "{\"mcpServers\": {\"a\": {\"command\": \"x\",}");
        assertThatThrownBy(() -> ServerConfigs.read(f)).isInstanceOf(ServerConfigException.class)
                .hasMessageStartingWith(f.toAbsolutePath() + ": not valid JSON:").hasMessageContaining("(line 1)");
        assertThatThrownBy(() -> ServerConfigs.read(dir.resolve("none.json")))
                .hasMessageStartingWith(dir.resolve("none.json").toAbsolutePath() + ": no such file");
        Path g = file("other.json", "{\"servers2\": {}}");
        assertThatThrownBy(() -> ServerConfigs.read(g)).hasMessageContaining("no \"mcpServers\" object");
    }
}
