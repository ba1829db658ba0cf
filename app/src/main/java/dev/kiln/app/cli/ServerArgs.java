package dev.kiln.app.cli;

import dev.kiln.app.common.CliException;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Finds the server config a command means: a file, a workspace directory (its servers.json), or ./servers.json. */
final class ServerArgs {
    private ServerArgs() {
    }

    static Path configFile(Path given) {
        if (given == null) {
            Path here = Path.of("servers.json");
            if (!Files.isRegularFile(here)) {
                throw new CliException("no servers.json in " + Path.of("").toAbsolutePath()
                        + "; name a config: a servers.json (mcpServers), a Codex config.toml, or a workspace directory");
            }
            return here.toAbsolutePath();
        }
        if (Files.isDirectory(given)) {
            Path inside = given.resolve("servers.json");
            if (!Files.isRegularFile(inside)) {
                throw new CliException(given.toAbsolutePath() + " has no servers.json; name the config file itself");
            }
            return inside.toAbsolutePath();
        }
        return given.toAbsolutePath();
    }

    static List<ServerConfig> select(List<ServerConfig> all, List<String> names, Path file) {
        if (names == null || names.isEmpty()) {
            return all;
        }
        for (String n : names) {
            if (all.stream().noneMatch(s -> s.name().equals(n))) {
                throw new CliException(file + " has no server '" + n + "'; it has: "
                        + String.join(", ", all.stream().map(ServerConfig::name).toList()));
            }
        }
        // A server named explicitly is probed even when its config disables it.
        return all.stream().filter(s -> names.contains(s.name()))
                .map(s -> s.enabled() ? s : new ServerConfig(s.name(), s.transport(), s.command(), s.args(), s.env(), s.cwd(),
                        s.url(), s.headers(), s.startupTimeout(), true, s.source()))
                .toList();
    }

    static List<ServerConfig> read(Path file) {
        return ServerConfigs.read(file);
    }
}
