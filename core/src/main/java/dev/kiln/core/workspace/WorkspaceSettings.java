package dev.kiln.core.workspace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The settings of one workspace, from its {@code kiln.json}. Every field is optional; a missing file means
 * all defaults.
 *
 * @param interval minimum spacing between projections, and the fixed interval when degraded
 * @param heartbeat projection when nothing changes, to bound staleness of time-derived fields
 * @param reconcile full re-enumeration at least this often while watched
 * @param apiPort daemon port (0 = any free port)
 * @param apiBind daemon bind address
 * @param archiveCacheMaxBytes bound of the archive cache
 * @param seedsDir where seed caches live (relative paths resolve against the workspace)
 * @param uv the {@code uv} executable, if not found on PATH
 * @param startupTimeout default startup timeout of an MCP server
 */
public record WorkspaceSettings(
        Duration interval,
        Duration heartbeat,
        Duration reconcile,
        int apiPort,
        String apiBind,
        long archiveCacheMaxBytes,
        Path seedsDir,
        Optional<Path> uv,
        Duration startupTimeout) {

    public static final String FILE_NAME = "kiln.json";

    public static WorkspaceSettings defaults() {
        return new WorkspaceSettings(Duration.ofSeconds(1), Duration.ofSeconds(15), Duration.ofMinutes(5), 7117,
                "127.0.0.1", 256L * 1024 * 1024, Path.of("seeds"), Optional.empty(), Duration.ofSeconds(30));
    }

    /**
     * Reads {@code kiln.json} in {@code root}; absent means defaults.
     *
     * @throws WorkspaceException naming the file and the field when it is malformed
     */
    public static WorkspaceSettings read(Path root) {
        Path file = root.resolve(FILE_NAME);
        JsonNode json;
        try {
            json = new ObjectMapper().readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            return defaults();
        } catch (IOException e) {
            throw new WorkspaceException(file + ": cannot read settings: " + e.getMessage()
                    + ". Fix or delete the file (every setting is optional).", e);
        }
        if (json == null || !json.isObject()) {
            throw new WorkspaceException(file + ": settings must be a JSON object");
        }
        WorkspaceSettings d = defaults();
        try {
            return new WorkspaceSettings(
                    duration(json, "interval", d.interval()),
                    duration(json, "heartbeat", d.heartbeat()),
                    duration(json, "reconcile", d.reconcile()),
                    json.path("api").path("port").asInt(d.apiPort()),
                    json.path("api").path("bind").asText(d.apiBind()),
                    json.path("archive_cache_max_bytes").asLong(d.archiveCacheMaxBytes()),
                    json.hasNonNull("seeds_dir") ? Path.of(json.get("seeds_dir").asText()) : d.seedsDir(),
                    json.hasNonNull("uv") ? Optional.of(Path.of(json.get("uv").asText())) : Optional.empty(),
                    duration(json, "startup_timeout", d.startupTimeout()));
        } catch (IllegalArgumentException e) {
            throw new WorkspaceException(file + ": " + e.getMessage(), e);
        }
    }

    private static Duration duration(JsonNode json, String field, Duration fallback) {
        JsonNode n = json.get(field);
        if (n == null || n.isNull()) {
            return fallback;
        }
        Duration d = n.isNumber() ? Duration.ofMillis(Math.round(n.asDouble() * 1000)) : Durations.parse(n.asText());
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("field '" + field + "' must be a positive duration, got " + n);
        }
        return d;
    }
}
