package dev.kiln.core.startup;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One MCP server as a user configured it for an agent client: a command to spawn (stdio) or a URL (Streamable HTTP).
 *
 * @param name the server's key in its config file
 * @param transport how Kiln talks to it
 * @param command the program to spawn (stdio only, else null)
 * @param args its arguments
 * @param env extra environment variables, laid over Kiln's own environment
 * @param cwd working directory; the config file's directory when the file names none
 * @param url the endpoint (HTTP only, else null)
 * @param headers extra HTTP headers (HTTP only)
 * @param startupTimeout the server's own startup timeout ({@code startup_timeout_sec}), if configured
 * @param enabled false when the config disables it ({@code enabled = false} or {@code "disabled": true})
 * @param source the file it was read from (for messages), or null when built in code
 */
public record ServerConfig(String name, Transport transport, @Nullable String command, List<String> args, Map<String, String> env,
        @Nullable Path cwd, @Nullable URI url, Map<String, String> headers, Optional<Duration> startupTimeout, boolean enabled, @Nullable Path source) {

    /** How a server is reached. */
    public enum Transport {
        /** A child process speaking newline-delimited JSON-RPC on stdin/stdout. */
        STDIO,
        /** A running server reached by Streamable HTTP. */
        HTTP;

        /** The lower-case name used in JSON output. */
        public String label() {
            return this == STDIO ? "stdio" : "http";
        }
    }

    public ServerConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(transport, "transport");
        args = List.copyOf(args == null ? List.of() : args);
        env = Map.copyOf(env == null ? Map.of() : env);
        headers = Map.copyOf(headers == null ? Map.of() : headers);
        startupTimeout = startupTimeout == null ? Optional.empty() : startupTimeout;
        if (transport == Transport.STDIO && (command == null || command.isBlank())) {
            throw new IllegalArgumentException("server '" + name + "': a stdio server needs a command");
        }
        if (transport == Transport.HTTP && url == null) {
            throw new IllegalArgumentException("server '" + name + "': an HTTP server needs a url");
        }
    }

    /** A stdio server run from {@code cwd}. */
    public static ServerConfig stdio(String name, Path cwd, String command, List<String> args, Map<String, String> env) {
        return new ServerConfig(name, Transport.STDIO, command, args, env, cwd, null, Map.of(), Optional.empty(), true, null);
    }

    /** A Streamable HTTP server at {@code url}. */
    public static ServerConfig http(String name, URI url, Map<String, String> headers) {
        return new ServerConfig(name, Transport.HTTP, null, List.of(), Map.of(), null, url, headers, Optional.empty(), true, null);
    }

    /** The same server with its own startup timeout. */
    public ServerConfig withStartupTimeout(Duration timeout) {
        return new ServerConfig(name, transport, command, args, env, cwd, url, headers, Optional.of(timeout), enabled, source);
    }

    /** The program of a stdio server (its {@code command}); an HTTP server has none to run. */
    public String program() {
        if (command == null) {
            throw new IllegalStateException("server '" + name + "' is reached over HTTP at " + url + ": it has no command to run");
        }
        return command;
    }

    /** The command line as one string, for people. */
    public String commandLine() {
        if (transport == Transport.HTTP) {
            return String.valueOf(url); // the constructor made sure an HTTP server has one
        }
        StringBuilder b = new StringBuilder(program());
        for (String a : args) {
            b.append(' ').append(a.isEmpty() || a.contains(" ") ? "'" + a + "'" : a);
        }
        return b.toString();
    }
}
