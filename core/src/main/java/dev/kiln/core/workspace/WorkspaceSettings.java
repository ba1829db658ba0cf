package dev.kiln.core.workspace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The settings of one workspace, from its {@code kiln.json}. Every field is optional; a missing file means
 * all defaults.
 *
 * @param interval minimum spacing between projections, and the fixed interval when degraded
 * @param heartbeat projection when nothing changes, to bound staleness of time-derived fields
 * @param reconcile full re-enumeration at least this often while watched
 * @param apiPort daemon port (0 = any free port)
 * @param apiBind daemon bind address as the file says; use {@link #apiBindFor} to bind
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
    private static final String LOOPBACK = "127.0.0.1";
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F]*:[0-9a-fA-F:.]*(%\\w+)?");

    /**
     * The address the daemon binds: {@code flag} (the operator's {@code --bind}) when given; else {@link #apiBind()}
     * when it is a loopback address; else {@code 127.0.0.1}, and {@code warnings} gets one line naming the file and
     * the flag to use. Why: a workspace is data that may come from anyone (a clone, an archive); its own file may
     * move the API to another loopback address but never open it to the network, silently or not. Only the operator
     * can, on the command line.
     *
     * @param flag the command line's bind address, or null when none was given
     * @param root the workspace whose {@code kiln.json} this is (for the warning)
     */
    public String apiBindFor(@Nullable String flag, Path root, Consumer<String> warnings) {
        if (flag != null) {
            return flag;
        }
        if (isLoopback(apiBind)) {
            return apiBind;
        }
        warnings.accept(root.toAbsolutePath().resolve(FILE_NAME) + " sets api.bind to \"" + apiBind + "\", which is not"
                + " a loopback address: ignored, the API stays on " + LOOPBACK + ". A workspace's own settings cannot"
                + " open the API to the network; to serve on that address, pass --bind " + apiBind
                + " on the command line.");
        return LOOPBACK;
    }

    /** {@code localhost} or a loopback IP literal; a host name is not looked up (what it resolves to can change). */
    static boolean isLoopback(String address) {
        String a = address.trim();
        if (a.equalsIgnoreCase("localhost")) {
            return true;
        }
        if (a.startsWith("[") && a.endsWith("]")) {
            a = a.substring(1, a.length() - 1);
        }
        if (!IPV4.matcher(a).matches() && !IPV6.matcher(a).matches()) {
            return false;
        }
        try {
            return InetAddress.getByName(a).isLoopbackAddress(); // a literal: no lookup
        } catch (UnknownHostException e) {
            return false;
        }
    }

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
