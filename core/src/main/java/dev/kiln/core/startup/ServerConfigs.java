package dev.kiln.core.startup;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads MCP server configs in the formats users already keep for their agent clients.
 *
 * <ul>
 *   <li>JSON, Claude Desktop / Cursor style: {@code {"mcpServers": {name: {command, args, env, cwd}}}}, remote ones as
 *       {@code {url, headers}} or {@code "type": "http" | "streamable-http"}; VS Code's top-level {@code "servers"} too.
 *   <li>TOML, Codex {@code config.toml}: {@code [mcp_servers.<name>]} with command, args, env, cwd, url, http_headers,
 *       startup_timeout_sec (or startup_timeout_ms), enabled.
 * </ul>
 *
 * <p>Relative {@code cwd}s resolve against the file's directory, which is also the default working directory, so a
 * config that names scripts relative to itself works wherever Kiln runs from. Every error names the file, the server
 * and the field.
 */
public final class ServerConfigs {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TomlMapper TOML = new TomlMapper();

    private ServerConfigs() {
    }

    /**
     * Reads every server of {@code file} (disabled ones included, marked as such), in file order.
     *
     * @throws ServerConfigException when the file is missing, unreadable, malformed or has a bad field
     */
    public static List<ServerConfig> read(Path file) {
        Path abs = file.toAbsolutePath().normalize();
        boolean toml = abs.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".toml");
        JsonNode root;
        try {
            root = toml ? TOML.readTree(abs.toFile()) : JSON.readTree(abs.toFile());
        } catch (NoSuchFileException | java.io.FileNotFoundException e) {
            throw new ServerConfigException(abs + ": no such file. Name a servers.json (mcpServers) or a Codex config.toml.");
        } catch (JacksonException e) {
            throw new ServerConfigException(abs + ": not valid " + (toml ? "TOML" : "JSON") + ": " + e.getOriginalMessage()
                    + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")"), e);
        } catch (IOException e) {
            throw new ServerConfigException(abs + ": cannot read: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new ServerConfigException(abs + ": expected an object at the top level");
        }
        String tableName = toml ? "mcp_servers" : root.has("mcpServers") ? "mcpServers" : "servers";
        JsonNode table = root.get(tableName);
        if (table == null) {
            throw new ServerConfigException(abs + ": no " + (toml ? "[mcp_servers.<name>] tables" : "\"mcpServers\" object")
                    + "; nothing to probe");
        }
        if (!table.isObject()) {
            throw new ServerConfigException(abs + ": '" + tableName + "' must be an object of servers by name");
        }
        Path dir = Objects.requireNonNull(abs.getParent(), "a file that was read has a directory");
        List<ServerConfig> servers = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : table.properties()) {
            servers.add(server(new Where(abs, e.getKey()), e.getValue(), dir, toml));
        }
        return List.copyOf(servers);
    }

    /** Keeps the file and server for error messages. */
    private record Where(Path file, String server) {
        ServerConfigException error(String field, String problem) {
            return new ServerConfigException(file + ": server '" + server + "': field '" + field + "' " + problem);
        }
    }

    private static ServerConfig server(Where w, JsonNode n, Path dir, boolean toml) {
        if (!n.isObject()) {
            throw new ServerConfigException(w.file() + ": server '" + w.server() + "' must be an object");
        }
        String type = text(w, n, "type");
        String url = text(w, n, "url");
        String command = text(w, n, "command");
        ServerConfig.Transport transport;
        if (type != null) {
            transport = switch (type.toLowerCase(Locale.ROOT)) {
                case "stdio" -> ServerConfig.Transport.STDIO;
                case "http", "streamable-http", "streamablehttp" -> ServerConfig.Transport.HTTP;
                case "sse" -> throw w.error("type", "is 'sse': the deprecated HTTP+SSE transport is not probed; "
                        + "use the server's Streamable HTTP endpoint (type \"http\")");
                default -> throw w.error("type", "is '" + type + "'; expected stdio, http or streamable-http");
            };
        } else if (url != null) {
            transport = ServerConfig.Transport.HTTP;
        } else if (command != null) {
            transport = ServerConfig.Transport.STDIO;
        } else {
            throw w.error("command", "is missing: a server needs a command (stdio) or a url (Streamable HTTP)");
        }
        if (transport == ServerConfig.Transport.STDIO && (command == null || command.isBlank())) {
            throw w.error("command", "is missing or empty");
        }
        URI uri = null;
        if (transport == ServerConfig.Transport.HTTP) {
            if (url == null) {
                throw w.error("url", "is missing: an HTTP server needs a url");
            }
            try {
                uri = new URI(url);
            } catch (URISyntaxException ex) {
                throw w.error("url", "is not a URL: " + ex.getMessage());
            }
            if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
                throw w.error("url", "must be http:// or https://, got '" + url + "'");
            }
        }
        List<String> args = strings(w, n, "args");
        Map<String, String> env = stringMap(w, n, "env");
        Map<String, String> headers = new LinkedHashMap<>(stringMap(w, n, toml ? "http_headers" : "headers"));
        String bearerVar = text(w, n, "bearer_token_env_var");
        if (bearerVar != null) {
            String token = System.getenv(bearerVar);
            if (token == null) {
                throw w.error("bearer_token_env_var", "names " + bearerVar + ", which is not set in Kiln's environment");
            }
            headers.put("Authorization", "Bearer " + token);
        }
        Path cwd = dir;
        String cwdText = text(w, n, "cwd");
        if (cwdText != null) {
            cwd = dir.resolve(cwdText).normalize();
        }
        boolean enabled = true;
        if (n.has("enabled")) {
            enabled = bool(w, n, "enabled");
        }
        if (n.has("disabled")) {
            enabled = !bool(w, n, "disabled");
        }
        Optional<Duration> timeout = Optional.empty();
        if (n.has("startup_timeout_sec")) {
            timeout = Optional.of(seconds(w, n, "startup_timeout_sec", 1_000));
        } else if (n.has("startup_timeout_ms")) {
            timeout = Optional.of(seconds(w, n, "startup_timeout_ms", 1));
        }
        return new ServerConfig(w.server(), transport, command, args, env, cwd, uri, headers, timeout, enabled, w.file());
    }

    private static @Nullable String text(Where w, JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw w.error(field, "must be a string, got " + v.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        return v.asText();
    }

    private static boolean bool(Where w, JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (!v.isBoolean()) {
            throw w.error(field, "must be true or false, got " + v);
        }
        return v.asBoolean();
    }

    private static Duration seconds(Where w, JsonNode n, String field, long millisPerUnit) {
        JsonNode v = n.get(field);
        if (!v.isNumber() || v.asDouble() <= 0) {
            throw w.error(field, "must be a positive number, got " + v);
        }
        return Duration.ofNanos(Math.round(v.asDouble() * millisPerUnit * 1_000_000));
    }

    private static List<String> strings(Where w, JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return List.of();
        }
        if (!v.isArray()) {
            throw w.error(field, "must be an array of strings");
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            JsonNode a = v.get(i);
            if (!a.isTextual() && !a.isNumber()) {
                throw w.error(field, "must be an array of strings; item " + i + " is " + a);
            }
            out.add(a.asText());
        }
        return out;
    }

    private static Map<String, String> stringMap(Where w, JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return Map.of();
        }
        if (!v.isObject()) {
            throw w.error(field, "must be an object of string values");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : v.properties()) {
            JsonNode val = e.getValue();
            if (!val.isValueNode() || val.isNull()) {
                throw w.error(field, "must map names to strings; '" + e.getKey() + "' is " + val);
            }
            out.put(e.getKey(), val.asText());
        }
        return out;
    }
}
