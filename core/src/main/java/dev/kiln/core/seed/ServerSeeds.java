package dev.kiln.core.seed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.startup.Launcher;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.workspace.FileTrees;
import dev.kiln.core.workspace.WorkspaceException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Runtime seeds: one per MCP server launched through {@code npx} or {@code uvx}, keyed by package@exact-version, the
 * runtime's version and the registry, warmed once and then used two ways. The <b>cache</b> form is the package
 * manager's cache with the package and its tree in it (the client keeps launching {@code npx}/{@code uvx}, pointed at
 * it: {@code NPM_CONFIG_CACHE} + {@code NPM_CONFIG_PREFER_OFFLINE}, {@code UV_CACHE_DIR} + {@code UV_OFFLINE}); the
 * <b>installed</b> form is the package installed into the seed (an npm prefix, a uv tool environment), launched
 * directly ({@code node ENTRY}, the environment's interpreter on the tool's script), which skips the package manager.
 *
 * <p>A warm has the target seeds' guarantees: the launcher sees an allow-listed environment only (never the server's
 * own {@code env}, where its secrets live), runs into a fresh directory beside the seed, and the result is swapped in
 * whole ({@link SeedStore#swap}); every outcome is appended to the warm journal. A seed's files are hashed when it is
 * warmed; a seed whose hash no longer matches (corrupted, half-written by something else) is never used.
 *
 * <p>Concurrency: stateless apart from the file system; warms of one seed are serialized by {@link TargetLock}.
 */
public final class ServerSeeds {
    static final String DIR = "servers";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WARM_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(60);
    private static final String NPM_REGISTRY = "https://registry.npmjs.org/";
    private static final String PYPI = "https://pypi.org/simple";

    private final Path seedsDir;
    private final WarmJournal journal;
    private final Map<String, String> environment;
    private final Clock clock;

    private ServerSeeds(Path seedsDir, Path journalFile, Map<String, String> environment, Clock clock) {
        this.seedsDir = seedsDir;
        this.journal = new WarmJournal(journalFile);
        this.environment = Map.copyOf(environment);
        this.clock = clock;
    }

    /** The server seeds of the workspace {@code caches} belongs to, under its seeds directory. */
    public static ServerSeeds of(SeedCaches caches, Map<String, String> environment, Clock clock) {
        return new ServerSeeds(caches.seedsDir().resolve(DIR), caches.journalFile(), environment, clock);
    }

    /** How a seeded server is launched. */
    public enum Form {
        /** The launcher, pointed at the warmed cache. */
        CACHE,
        /** The installed package, launched without the package manager. */
        INSTALLED;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * What a warm of one server's seed is for.
     *
     * @param server the server's name
     * @param launcher {@code npx}, {@code uvx}, …
     * @param pkg the package name
     * @param requested the version the config asked for ({@code latest}, a range, or the exact one)
     * @param version the exact version it resolved to
     * @param executable the program the launcher runs from the package (uv: the tool's script; npm: its bin), or empty
     * @param serverArgs the server's own arguments (after the package)
     * @param runtimeVersion {@code node v20.20.2} / {@code uv 0.13.9}
     * @param registry the registry packages come from
     * @param key the seed's key (directory name): package, version, a digest of runtime and registry
     * @param dir where the seed lives
     */
    public record Plan(String server, Launcher launcher, String pkg, String requested, String version, String executable,
            List<String> serverArgs, String runtimeVersion, String registry, String key, Path dir) {

        public Plan {
            serverArgs = List.copyOf(serverArgs);
        }

        /** Whether the config named an exact version. */
        public boolean pinned() {
            return requested.equals(version);
        }

        /** The exact spec to put in the config: {@code pkg@1.2.3} (npm) or {@code pkg==1.2.3} (uv). */
        public String pinnedSpec() {
            return npm(launcher) ? pkg + "@" + version : pkg + "==" + version;
        }
    }

    /**
     * A server seed on disk, or the outcome of warming one.
     *
     * @param plan what it is for
     * @param outcome how the warm ended ({@link WarmOutcome#UNCHANGED} when the seed was already complete and sound)
     * @param message for people: what happened and, on failure, what to do (names the server)
     * @param contentSha256 the digest of its files at warm time, or empty
     * @param bytes its size
     */
    public record Seed(Plan plan, WarmOutcome outcome, String message, String contentSha256, long bytes) {
    }

    /**
     * Reads what a warm of {@code server} would be for: its launcher, the package and the exact version (an
     * unpinned spec is resolved against the registry), runtime and registry. Writes nothing.
     *
     * @throws WorkspaceException naming the server when it is not launched through npx/npm exec/uvx/uv tool run, its
     *     package cannot be read from the command line, the package does not exist, or the registry is unreachable
     */
    public Plan plan(ServerConfig server) {
        Launcher launcher = Launcher.of(server);
        Spec spec = Spec.parse(server, launcher);
        Map<String, String> env = allowed(server);
        String registry;
        String runtime;
        String version;
        if (npm(launcher)) {
            registry = env.getOrDefault("NPM_CONFIG_REGISTRY", env.getOrDefault("npm_config_registry", NPM_REGISTRY));
            runtime = "node " + query(server, List.of("node", "--version"), env).strip();
            version = spec.exact() ? spec.version : resolveNpm(server, spec, env);
        } else {
            registry = env.getOrDefault("UV_DEFAULT_INDEX", env.getOrDefault("UV_INDEX_URL", PYPI));
            runtime = query(server, List.of("uv", "--version"), env).strip();
            version = spec.exact() ? spec.version : resolveUv(server, spec, env);
        }
        String key = key(launcher, spec.pkg, version, runtime, registry);
        return new Plan(server.name(), launcher, spec.pkg, spec.requested, version, spec.executable, spec.serverArgs, runtime,
                registry, key, seedsDir.resolve(key));
    }

    static String key(Launcher launcher, String pkg, String version, String runtime, String registry) {
        String digest = sha256((pkg + "@" + version + "|" + runtime + "|" + registry).getBytes(StandardCharsets.UTF_8))
                .substring(0, 12);
        return (npm(launcher) ? "npm-" : "uv-") + pkg.replace('@', '_').replace('/', '+') + "-" + version + "-" + digest;
    }

    /** The seed of {@code plan} when it is complete and its files still hash to what was warmed. */
    public Optional<Seed> find(Plan plan) {
        Optional<String> sha = recorded(plan.dir());
        if (sha.isEmpty()) {
            return Optional.empty();
        }
        try {
            Hashed now = hash(plan.dir());
            return now.sha().equals(sha.get())
                    ? Optional.of(new Seed(plan, WarmOutcome.UNCHANGED, "seed of " + plan.server() + " is sound", sha.get(),
                            now.bytes()))
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Warms the seed of {@code plan} (both forms) unless a sound one exists; {@code dryRun} writes nothing and says
     * what would run. Never throws for what the launcher does: the result says it, naming the server.
     */
    public Seed warm(Plan plan, Cancellation cancel, boolean dryRun) {
        Instant begin = clock.instant();
        Optional<Seed> sound = find(plan);
        if (sound.isPresent()) {
            return sound.get();
        }
        boolean damaged = recorded(plan.dir()).isPresent();
        if (dryRun) {
            return new Seed(plan, WarmOutcome.UNCHANGED, "would warm " + plan.server() + " (" + plan.pinnedSpec() + ") into "
                    + plan.dir() + (damaged ? "; its seed there does not match its hash and would be re-warmed" : "")
                    + ": " + String.join(" ; ", commands(plan, plan.dir())), "", 0);
        }
        Seed result;
        try {
            Files.createDirectories(seedsDir);
            Optional<TargetLock> lock = TargetLock.acquire(SeedStore.lockFile(seedsDir, plan.key()), cancel);
            if (lock.isEmpty()) {
                result = new Seed(plan, WarmOutcome.CANCELLED, "server " + plan.server() + ": warm cancelled", "", 0);
            } else {
                try (TargetLock held = lock.get()) {
                    SeedStore.removeLeftovers(seedsDir, plan.key());
                    Optional<Seed> meanwhile = find(plan); // another process may have warmed it while we waited
                    result = meanwhile.isPresent() ? meanwhile.get() : warmLocked(plan, cancel, begin, damaged);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result = new Seed(plan, WarmOutcome.CANCELLED, "server " + plan.server() + ": warm interrupted", "", 0);
        } catch (IOException | RuntimeException e) {
            result = new Seed(plan, WarmOutcome.FAILED, "server " + plan.server() + ": cannot warm its seed in " + seedsDir
                    + ": " + e.getMessage() + (full(e) ? " (the disk is full: free space and warm again)" : ""), "", 0);
        }
        journal.append(new WarmResult("server:" + plan.server(), result.outcome(), plan.key(), clock.instant(),
                Duration.between(begin, clock.instant()), result.bytes(), 0, result.message(), List.of()));
        return result;
    }

    private static boolean full(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("No space left on device")) {
                return true;
            }
        }
        return false;
    }

    private Seed warmLocked(Plan plan, Cancellation cancel, Instant begin, boolean damaged) throws IOException {
        Path fresh = SeedStore.freshDir(seedsDir, plan.key(), plan.key().length() >= 12 ? plan.key().substring(
                plan.key().length() - 12) : "000000000000");
        Files.createDirectories(fresh);
        try {
            List<String> tail = new ArrayList<>();
            for (List<String> cmd : commandLines(plan, fresh)) {
                Map<String, String> env = new TreeMap<>(allowedEnv());
                env.putAll(formEnv(plan, fresh));
                UvLauncher.Run run = UvLauncher.run(onPath(cmd, env), fresh, env, WARM_TIMEOUT, cancel, clock, pid -> { },
                        (l, e) -> { }, false);
                if (!run.succeeded()) {
                    run.stderrTail().forEach(l -> tail.add(Redact.credentials(l)));
                    String why = switch (run.end()) {
                        case CANCELLED -> "cancelled";
                        case TIMED_OUT -> "timed out after " + WARM_TIMEOUT.toMinutes() + " min";
                        case FAILED_TO_START -> run.problem();
                        default -> "exited with " + run.exitCode();
                    };
                    FileTrees.delete(fresh);
                    String last = tail.isEmpty() ? "" : ": " + tail.get(tail.size() - 1);
                    return new Seed(plan, run.end() == UvLauncher.End.CANCELLED ? WarmOutcome.CANCELLED : WarmOutcome.FAILED,
                            "server " + plan.server() + ": " + String.join(" ", cmd) + " " + why + last
                                    + hint(tail), "", 0);
                }
            }
            Hashed h = hash(fresh);
            ObjectNode m = JSON.createObjectNode();
            m.put("server", plan.server());
            m.put("launcher", plan.launcher().label());
            m.put("package", plan.pkg());
            m.put("version", plan.version());
            m.put("requested", plan.requested());
            m.put("executable", plan.executable());
            m.put("runtime", plan.runtimeVersion());
            m.put("registry", plan.registry());
            m.put("warmed_at", clock.instant().toString());
            m.put("duration_ms", Duration.between(begin, clock.instant()).toMillis());
            m.put("bytes", h.bytes());
            m.put("content_sha256", h.sha());
            Files.writeString(fresh.resolve(SeedStore.MANIFEST_FILE), JSON.writerWithDefaultPrettyPrinter()
                    .writeValueAsString(m) + "\n");
            // The hash file last: a seed without it is not complete (SeedStore.seededHash).
            Files.writeString(fresh.resolve(SeedStore.HASH_FILE), h.sha() + "\n", StandardCharsets.US_ASCII);
            SeedStore.swap(fresh, plan.dir(), clock.instant());
            return new Seed(plan, WarmOutcome.WARMED, "warmed " + plan.server() + " (" + plan.pinnedSpec() + ", "
                    + plan.runtimeVersion() + ") in " + Duration.between(begin, clock.instant()).toMillis() + " ms"
                    + (damaged ? "; the seed there did not match its hash and was replaced" : "")
                    + (plan.pinned() ? "" : "; the config asks for " + plan.requested() + ": pin it as " + plan.pinnedSpec()),
                    h.sha(), h.bytes());
        } finally {
            if (Files.exists(fresh)) {
                FileTrees.delete(fresh);
            }
        }
    }

    private static String hint(List<String> tail) {
        String all = String.join("\n", tail);
        if (all.contains("E404") || all.contains("404 Not Found") || all.contains("not found in the package registry")
                || all.contains("No solution found")) {
            return " (the package or version does not exist in the registry: check its name and version)";
        }
        if (all.contains("ENOTFOUND") || all.contains("EAI_AGAIN") || all.contains("ECONNREFUSED")
                || all.contains("Failed to fetch") || all.contains("dns error") || all.contains("Connection refused")) {
            return " (the registry is unreachable: check the network, the proxy or the registry setting)";
        }
        if (all.contains("ENOSPC") || all.contains("No space left")) {
            return " (the disk is full: free space and warm again)";
        }
        return "";
    }

    /** What a warm runs, for people (and {@code --dry-run}). */
    public List<String> commands(Plan plan, Path into) {
        return commandLines(plan, into).stream().map(c -> String.join(" ", c)).toList();
    }

    private static List<List<String>> commandLines(Plan plan, Path into) {
        if (npm(plan.launcher())) {
            // The cache form: npm exec builds exactly the _npx tree `npx -y pkg@v` reuses, running node -e 0, not the server.
            return List.of(List.of("npm", "exec", "--yes", "--package=" + plan.pinnedSpec(), "--", "node", "-e", "0"),
                    List.of("npm", "install", "--prefix", into.resolve("prefix").toString(), "--no-audit", "--no-fund",
                            "--prefer-offline", "--loglevel=error", plan.pinnedSpec()));
        }
        return List.of(List.of("uv", "tool", "run", "--from", plan.pinnedSpec(), "python", "-c", "0"),
                List.of("uv", "tool", "install", "--quiet", plan.pinnedSpec()));
    }

    /** Where the launcher writes during the warm: the seed's cache (and, for uv, its tool directories). */
    private static Map<String, String> formEnv(Plan plan, Path into) {
        Map<String, String> env = new LinkedHashMap<>();
        if (npm(plan.launcher())) {
            env.put("NPM_CONFIG_CACHE", into.resolve("npm-cache").toString());
            env.put("NPM_CONFIG_UPDATE_NOTIFIER", "false");
        } else {
            env.put("UV_CACHE_DIR", into.resolve("uv-cache").toString());
            env.put("UV_TOOL_DIR", into.resolve("uv-tools").toString());
            env.put("UV_TOOL_BIN_DIR", into.resolve("bin").toString());
            // The seed's environments carry their bytecode: a seeded start then skips compiling every import.
            env.put("UV_COMPILE_BYTECODE", "1");
        }
        return env;
    }

    /**
     * {@code server} launched against its seed {@code seed} in {@code form}: the cache form keeps the command and adds
     * the env that points the launcher at the seed offline; the installed form runs the installed package directly.
     */
    public ServerConfig seeded(ServerConfig server, Seed seed, Form form) {
        Plan p = seed.plan();
        Map<String, String> env = new TreeMap<>(server.env());
        List<String> args;
        String command;
        if (form == Form.CACHE) {
            env.putAll(cacheEnv(p));
            command = server.command();
            args = server.args();
        } else {
            List<String> line = installedCommand(p);
            command = line.get(0);
            args = new ArrayList<>(line.subList(1, line.size()));
            args.addAll(p.serverArgs());
        }
        return new ServerConfig(server.name(), server.transport(), command, args, env, server.cwd(), server.url(),
                server.headers(), server.startupTimeout(), server.enabled(), server.source());
    }

    /** The environment that makes the launcher use the seed's cache and stay off the network. */
    public static Map<String, String> cacheEnv(Plan p) {
        Map<String, String> env = new TreeMap<>();
        if (npm(p.launcher())) {
            env.put("NPM_CONFIG_CACHE", p.dir().resolve("npm-cache").toString());
            env.put("NPM_CONFIG_PREFER_OFFLINE", "true");
        } else {
            env.put("UV_CACHE_DIR", p.dir().resolve("uv-cache").toString());
            env.put("UV_OFFLINE", "1");
        }
        return env;
    }

    /** The installed form's command line (before the server's own arguments). */
    public static List<String> installedCommand(Plan p) {
        if (npm(p.launcher())) {
            return List.of("node", npmEntry(p).toString());
        }
        Path env = p.dir().resolve("uv-tools").resolve(p.pkg().toLowerCase(Locale.ROOT).replace('_', '-'));
        // The environment's interpreter on the tool's script: the script's shebang names the warm's directory, which
        // the swap renamed; the interpreter finds its environment by its own path.
        return List.of(env.resolve("bin/python").toString(), env.resolve("bin").resolve(p.executable()).toString());
    }

    private static Path npmEntry(Plan p) {
        Path pkgDir = p.dir().resolve("prefix/node_modules").resolve(p.pkg());
        try {
            JsonNode pj = JSON.readTree(Files.readString(pkgDir.resolve("package.json")));
            JsonNode bin = pj.path("bin");
            String rel = bin.isTextual() ? bin.asText() : bin.isObject() && bin.size() > 0
                    ? (bin.has(p.executable()) ? bin.get(p.executable()) : bin.elements().next()).asText()
                    : pj.path("main").asText("index.js");
            return pkgDir.resolve(rel).normalize();
        } catch (IOException e) {
            throw new WorkspaceException("server " + p.server() + ": its seed has no readable " + pkgDir.resolve("package.json")
                    + "; warm it again (kiln warm --servers)", e);
        }
    }

    /**
     * A paste-ready snippet for one client's config format that makes that client's child use the seed: the env
     * (cache form) or the rewritten command (installed form).
     *
     * @param format {@code json} (mcpServers: Claude Desktop, Claude Code, Cursor, Cline, Gemini), {@code vscode}
     *     ({@code servers}) or {@code codex} (TOML)
     */
    public String snippet(ServerConfig server, Seed seed, Form form, String format) {
        ServerConfig s = seeded(server, seed, form);
        Map<String, String> env = form == Form.CACHE ? cacheEnv(seed.plan()) : Map.of();
        if (format.equals("codex")) {
            StringBuilder b = new StringBuilder("[mcp_servers.").append(server.name()).append("]\n");
            b.append("command = ").append(toml(s.program())).append('\n');
            b.append("args = [").append(String.join(", ", s.args().stream().map(ServerSeeds::toml).toList())).append("]\n");
            if (!env.isEmpty()) {
                b.append("env = { ").append(String.join(", ", env.entrySet().stream()
                        .map(e -> e.getKey() + " = " + toml(e.getValue())).toList())).append(" }\n");
            }
            return b.toString();
        }
        ObjectNode root = JSON.createObjectNode();
        ObjectNode entry = root.putObject(format.equals("vscode") ? "servers" : "mcpServers").putObject(server.name());
        if (format.equals("vscode")) {
            entry.put("type", "stdio");
        }
        entry.put("command", s.program());
        s.args().forEach(entry.putArray("args")::add);
        if (!env.isEmpty()) {
            ObjectNode e = entry.putObject("env");
            env.forEach(e::put);
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String toml(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    // ---- seeds that arrive from elsewhere (the object store) ---------------------------------------------------------

    /**
     * A new, empty directory beside the server seeds for a seed of {@code plan} arriving from elsewhere (on the seeds'
     * own filesystem, so {@link #install} is a rename; hidden from {@link #list}). What a killed earlier arrival left
     * there is removed first.
     */
    public Path stagingDir(Plan plan) throws IOException {
        Path dir = seedsDir.resolve("." + plan.key() + ".pull");
        Files.createDirectories(seedsDir);
        FileTrees.delete(dir);
        Files.createDirectory(dir);
        return dir;
    }

    /**
     * Installs the seed that arrived whole in {@code fresh} (from {@link #stagingDir}) as the seed of {@code plan}, after
     * the checks a warmed seed passes: its files hash to what its hash file records (as {@link #find} checks), its
     * manifest is for {@code plan}'s package and exact version, no link leaves it, it holds only directories, regular
     * files and links. Then it swaps it in under the seed's lock, the warm's atomic swap, so a reader sees the old seed
     * or the new one and a failure keeps the old. {@code fresh} is gone afterwards, installed or deleted.
     *
     * @return the digest of its files (what its warm recorded, checked)
     * @throws IOException naming the server and the reason when a check fails or the swap cannot be made
     */
    public String install(Plan plan, Path fresh, Cancellation cancel) throws IOException {
        try {
            String recorded = recorded(fresh).orElseThrow(() -> new IOException("the arrived seed of " + plan.server()
                    + " has no " + SeedStore.HASH_FILE + " (never completely warmed); not installed"));
            Hashed now = hash(fresh);
            if (!now.sha().equals(recorded)) {
                throw new IOException("the arrived seed of " + plan.server() + " hashes to " + now.sha().substring(0, 12)
                        + ", not the " + recorded.substring(0, Math.min(12, recorded.length())) + " its warm recorded; not installed");
            }
            JsonNode m = manifest(fresh).orElseThrow(() -> new IOException("the arrived seed of " + plan.server()
                    + " has no readable " + SeedStore.MANIFEST_FILE + "; not installed"));
            if (!plan.pkg().equals(m.path("package").asText()) || !plan.version().equals(m.path("version").asText())) {
                throw new IOException("the arrived seed is of " + m.path("package").asText() + "@" + m.path("version").asText()
                        + ", not of " + plan.server() + "'s " + plan.pkg() + "@" + plan.version() + "; not installed");
            }
            try {
                SeedStore.checkArrived(fresh, recorded);
            } catch (IOException e) {
                if (!npm(plan.launcher())) {
                    throw new IOException(e.getMessage() + ": a uv tool environment links its interpreter by absolute path"
                            + " (bin/python, pyvenv.cfg's home), which only the host that warmed it has, so uv seeds do not"
                            + " travel between hosts (docs/ARCHITECTURE.md, \"The object store\"); warm it on this host:"
                            + " kiln warm --servers", e);
                }
                throw e;
            }
            Optional<TargetLock> lock;
            try {
                lock = TargetLock.acquire(SeedStore.lockFile(seedsDir, plan.key()), cancel);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while waiting for the lock of " + plan.server() + "'s seed");
            }
            if (lock.isEmpty()) {
                throw new java.io.InterruptedIOException("cancelled while waiting for the lock of " + plan.server() + "'s seed");
            }
            try (TargetLock held = lock.get()) {
                SeedStore.swap(fresh, plan.dir(), clock.instant());
            }
            return recorded;
        } finally {
            FileTrees.delete(fresh);
        }
    }

    /** Every server seed on disk. */
    public List<Path> list() {
        if (!Files.isDirectory(seedsDir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(seedsDir)) {
            return s.filter(p -> Files.isDirectory(p) && !p.getFileName().toString().startsWith(".")).sorted().toList();
        } catch (IOException e) {
            throw new WorkspaceException("Cannot list server seeds in " + seedsDir + ": " + e.getMessage(), e);
        }
    }

    /** The manifest of the seed in {@code dir} as written at its warm, or empty when incomplete. */
    public static Optional<JsonNode> manifest(Path dir) {
        try {
            return recorded(dir).isEmpty() ? Optional.empty()
                    : Optional.of(JSON.readTree(Files.readString(dir.resolve(SeedStore.MANIFEST_FILE))));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> recorded(Path dir) {
        return SeedStore.seededHash(dir);
    }

    // ---- the inventory and a warm of several servers (the engine's, the API's, the Seeds page's) ---------------

    /** Whether Kiln seeds {@code server}: a stdio server launched through npx, npm exec, uvx or uv tool run. */
    public static boolean seedable(ServerConfig server) {
        Launcher l = Launcher.of(server);
        return server.transport() == ServerConfig.Transport.STDIO && (npm(l) || l == Launcher.UVX || l == Launcher.UV_TOOL_RUN);
    }

    /**
     * Every server seed: one row per seedable server of {@code servers} (its seed for the config as it is now, or
     * {@link ServerSeedInfo.State#MISSING}), then every other seed on disk ({@link ServerSeedInfo.State#STALE} when
     * sound). Each seed's files are hashed against what its warm recorded: a corrupted or half-written one is
     * {@link ServerSeedInfo.State#CORRUPT} and has no snippets. Asks the runtimes for their versions (locally), never
     * the registry: an unpinned spec is matched to the newest seed warmed for it.
     */
    public List<ServerSeedInfo> inventory(List<ServerConfig> servers) {
        Map<String, String> runtimes = new TreeMap<>();
        Map<Path, JsonNode> manifests = new LinkedHashMap<>();
        for (Path d : list()) {
            manifests.put(d, rawManifest(d));
        }
        List<ServerSeedInfo> out = new ArrayList<>();
        java.util.Set<Path> claimed = new java.util.HashSet<>();
        for (ServerConfig server : servers) {
            if (!seedable(server)) {
                continue;
            }
            Launcher launcher = Launcher.of(server);
            Spec spec;
            try {
                spec = Spec.parse(server, launcher);
            } catch (WorkspaceException e) {
                continue; // not a command line Kiln seeds (uvx --with, …): kiln warm --servers says why
            }
            Map<String, String> env = allowedEnv();
            String registry = npm(launcher)
                    ? env.getOrDefault("NPM_CONFIG_REGISTRY", env.getOrDefault("npm_config_registry", NPM_REGISTRY))
                    : env.getOrDefault("UV_DEFAULT_INDEX", env.getOrDefault("UV_INDEX_URL", PYPI));
            String runtime = runtimes.computeIfAbsent(npm(launcher) ? "node" : "uv", r -> {
                try {
                    return r.equals("node") ? "node " + query(server, List.of("node", "--version"), env).strip()
                            : query(server, List.of("uv", "--version"), env).strip();
                } catch (WorkspaceException e) {
                    return "";
                }
            });
            String version = spec.version;
            if (!spec.exact()) {
                version = manifests.values().stream().filter(m -> m.path("server").asText().equals(server.name())
                        && m.path("package").asText().equals(spec.pkg) && m.path("requested").asText().equals(spec.requested))
                        .max(java.util.Comparator.comparing(m -> m.path("warmed_at").asText()))
                        .map(m -> m.path("version").asText()).orElse(spec.version);
            }
            String key = key(launcher, spec.pkg, version, runtime, registry);
            Path dir = seedsDir.resolve(key);
            if (Files.isDirectory(dir)) {
                claimed.add(dir);
                out.add(describe(dir, manifests.getOrDefault(dir, JSON.createObjectNode()), server, spec, launcher));
            } else {
                String why = runtime.isEmpty() ? "cannot read the " + (npm(launcher) ? "node" : "uv") + " version (is it installed?)"
                        : "no seed for " + (npm(launcher) ? spec.pkg + "@" + version : spec.pkg + "==" + version) + " with "
                                + runtime + " yet";
                out.add(new ServerSeedInfo(server.name(), "", launcher.label(), spec.pkg, version, spec.requested, runtime,
                        registry, null, List.of(), 0, "", null, null, ServerSeedInfo.State.MISSING, "server " + server.name()
                                + ": " + why + "; warm it: kiln warm --servers " + (server.source() == null ? "CONFIG"
                                        : server.source()) + " " + server.name(), List.of()));
            }
        }
        for (Map.Entry<Path, JsonNode> e : manifests.entrySet()) {
            if (!claimed.contains(e.getKey())) {
                out.add(describe(e.getKey(), e.getValue(), null, null, null));
            }
        }
        return out;
    }

    private static JsonNode rawManifest(Path dir) {
        try {
            return JSON.readTree(Files.readString(dir.resolve(SeedStore.MANIFEST_FILE)));
        } catch (IOException | RuntimeException e) {
            return JSON.createObjectNode();
        }
    }

    /**
     * The seed in {@code dir} judged by its hash; {@code server} is the server whose current config it belongs to, or
     * null for a seed no server's config uses now.
     */
    private ServerSeedInfo describe(Path dir, JsonNode m, @Nullable ServerConfig server, @Nullable Spec spec,
            @Nullable Launcher launcher) {
        String name = server != null ? server.name() : m.path("server").asText(dir.getFileName().toString());
        Optional<String> recorded = recorded(dir);
        ServerSeedInfo.State state;
        String problem = "";
        long bytes = 0;
        String sha = recorded.orElse("");
        if (recorded.isEmpty()) {
            state = ServerSeedInfo.State.CORRUPT;
            problem = "server " + name + ": its seed in " + dir + " is half-written (no hash was recorded): never used;"
                    + " warm it again (kiln warm --servers)";
        } else {
            try {
                Hashed now = hash(dir);
                bytes = now.bytes();
                if (!now.sha().equals(recorded.get())) {
                    state = ServerSeedInfo.State.CORRUPT;
                    problem = "server " + name + ": its seed in " + dir + " does not match its hash (corrupted or changed"
                            + " since its warm): never used; warm it again (kiln warm --servers) to replace it";
                } else if (server == null) {
                    state = ServerSeedInfo.State.STALE;
                    problem = "no server's config uses this seed now (another version, runtime or registry, or the server is"
                            + " gone): delete it, or point the server back at " + m.path("package").asText() + "@"
                            + m.path("version").asText();
                } else {
                    state = ServerSeedInfo.State.OK;
                }
            } catch (IOException e) {
                state = ServerSeedInfo.State.CORRUPT;
                problem = "server " + name + ": cannot read its seed in " + dir + ": " + e.getMessage() + "; never used";
            }
        }
        List<ServerSeedInfo.Snippet> snippets = new ArrayList<>();
        List<Form> forms = List.of();
        if (state == ServerSeedInfo.State.OK && server != null && spec != null && launcher != null) {
            Plan plan = new Plan(server.name(), launcher, spec.pkg, spec.requested, m.path("version").asText(spec.version),
                    spec.executable, spec.serverArgs, m.path("runtime").asText(), m.path("registry").asText(),
                    dir.getFileName().toString(), dir);
            Seed seed = new Seed(plan, WarmOutcome.UNCHANGED, "", sha, bytes);
            List<Form> usable = new ArrayList<>();
            for (Form form : Form.values()) {
                try {
                    for (dev.kiln.core.startup.ClientProfile c : dev.kiln.core.startup.ClientProfile.values()) {
                        if (c == dev.kiln.core.startup.ClientProfile.OPENAI_AGENTS) {
                            continue; // configured in code, no config file to paste into
                        }
                        String format = c == dev.kiln.core.startup.ClientProfile.VSCODE ? "vscode"
                                : c == dev.kiln.core.startup.ClientProfile.CODEX ? "codex" : "json";
                        snippets.add(new ServerSeedInfo.Snippet(form, c.label(), c.configs().isEmpty() ? "its MCP settings"
                                : c.configs().get(0), snippet(server, seed, form, format)));
                    }
                    usable.add(form);
                } catch (WorkspaceException e) {
                    problem = String.valueOf(e.getMessage()); // the installed form's entry cannot be read: only the cache form is offered
                }
            }
            forms = usable;
        }
        Instant warmedAt = null;
        Duration took = null;
        try {
            warmedAt = m.hasNonNull("warmed_at") ? Instant.parse(m.get("warmed_at").asText()) : null;
            took = m.hasNonNull("duration_ms") ? Duration.ofMillis(m.get("duration_ms").asLong()) : null;
        } catch (RuntimeException e) {
            // an unreadable manifest: the hash already decided the state
        }
        return new ServerSeedInfo(name, dir.getFileName().toString(), m.path("launcher").asText(launcher == null ? ""
                : launcher.label()), m.path("package").asText(spec == null ? "" : spec.pkg), m.path("version").asText(
                        spec == null ? "" : spec.version), m.path("requested").asText(spec == null ? "" : spec.requested),
                m.path("runtime").asText(), m.path("registry").asText(), dir, forms, bytes, sha, warmedAt, took, state,
                problem, snippets);
    }

    /**
     * Copies the cache form of {@code server}'s seed ({@code npm-cache}, {@code uv-cache}) into a job's cache
     * {@code scratchCache}, as {@link SeedCaches#copyInto(String, Path)} copies a target's: real copies, a refused
     * overlap, best-effort. Only a seed that is sound now (its files hash to what was warmed) and is the seed of the
     * server's current config is copied; otherwise the report says why, naming the server, and nothing is copied.
     */
    public CopyReport copyInto(ServerConfig server, Path scratchCache, CopyMode mode) {
        Instant begin = clock.instant();
        Optional<ServerSeedInfo> row = inventory(List.of(server)).stream().filter(i -> i.server().equals(server.name())
                && i.state() != ServerSeedInfo.State.STALE).findFirst();
        Path dir = row.map(ServerSeedInfo::dir).orElse(null);
        if (row.isEmpty() || row.get().state() != ServerSeedInfo.State.OK || dir == null) {
            String problem = row.isEmpty() ? "server " + server.name() + " is not launched through npx, npm exec, uvx or uv"
                    + " tool run: it has no seed to copy" : row.get().problem();
            return new CopyReport(false, 0, 0, 0, Duration.between(begin, clock.instant()),
                    Optional.of(problem + "; the job proceeds without it"), false, mode);
        }
        Path cache = dir.resolve(npm(Launcher.of(server)) ? "npm-cache" : "uv-cache");
        return SeedCopier.copy(cache, scratchCache, clock, mode, SeedCopier.KERNEL);
    }

    /** The variable that points {@code server}'s launcher at a cache: {@code NPM_CONFIG_CACHE} or {@code UV_CACHE_DIR}. */
    public static String cacheVariable(ServerConfig server) {
        return npm(Launcher.of(server)) ? "NPM_CONFIG_CACHE" : "UV_CACHE_DIR";
    }

    /**
     * Warms the seed of each of {@code servers} in turn (a server Kiln does not seed is {@code skipped}, with why); a
     * failure of one is reported and the next is warmed. Stops at a cancel.
     */
    public ServerSeedsWarmed warmAll(List<ServerConfig> servers, Cancellation cancel, boolean dryRun) {
        List<ServerSeedsWarmed.Server> out = new ArrayList<>();
        for (ServerConfig s : servers) {
            if (!seedable(s)) {
                Launcher l = Launcher.of(s);
                out.add(new ServerSeedsWarmed.Server(s.name(), "skipped", l.fetches() ? l.label()
                        + " is recognised but not seeded yet (npx, npm exec, uvx, uv tool run are)"
                        : "it is not launched through a package manager (" + l.label() + "): nothing to fetch, nothing to seed",
                        null));
                continue;
            }
            try {
                Plan p = plan(s);
                Seed seed = warm(p, cancel, dryRun);
                ServerSeedInfo after = seed.outcome().isSuccess() && Files.isDirectory(p.dir())
                        ? describe(p.dir(), rawManifest(p.dir()), s, Spec.parse(s, p.launcher()), p.launcher()) : null;
                out.add(new ServerSeedsWarmed.Server(s.name(), dryRun && seed.contentSha256().isEmpty() ? "would_warm"
                        : seed.outcome().label(), seed.message(), after));
            } catch (WorkspaceException e) {
                out.add(new ServerSeedsWarmed.Server(s.name(), "failed", String.valueOf(e.getMessage()), null));
            }
            if (cancel.isCancelled()) {
                break;
            }
        }
        return new ServerSeedsWarmed(out);
    }

    // ---- reading the command line --------------------------------------------------------------------------------

    static boolean npm(Launcher l) {
        return l == Launcher.NPX || l == Launcher.NPM_EXEC;
    }

    /** The package part of a launcher's command line. */
    record Spec(String pkg, String requested, String version, String executable, List<String> serverArgs) {
        boolean exact() {
            return version.matches("\\d+(\\.\\d+)*([-+][0-9A-Za-z.-]+)?");
        }

        static Spec parse(ServerConfig server, Launcher launcher) {
            if (server.transport() != ServerConfig.Transport.STDIO || !(npm(launcher) || launcher == Launcher.UVX
                    || launcher == Launcher.UV_TOOL_RUN)) {
                throw new WorkspaceException("server " + server.name() + ": " + (server.transport() == ServerConfig.Transport.STDIO
                        ? "'" + server.command() + "' is not a launcher Kiln seeds (npx, npm exec, uvx, uv tool run)"
                        : "it is reached over HTTP") + "; nothing to warm");
            }
            List<String> a = new ArrayList<>(server.args());
            int i = launcher == Launcher.NPM_EXEC ? 1 : launcher == Launcher.UV_TOOL_RUN ? 2 : 0;
            String from = null;
            String positional = null;
            for (; i < a.size(); i++) {
                String x = a.get(i);
                if (x.equals("--")) {
                    continue;
                }
                if (npm(launcher) && (x.startsWith("--package=") || x.equals("-p") || x.equals("--package"))) {
                    from = x.startsWith("--package=") ? x.substring(10) : value(server, a, ++i, x);
                    continue;
                }
                if (!npm(launcher) && (x.equals("--from") || x.startsWith("--from="))) {
                    from = x.startsWith("--from=") ? x.substring(7) : value(server, a, ++i, x);
                    continue;
                }
                if (!npm(launcher) && (x.equals("--with") || x.startsWith("--with=") || x.equals("--with-requirements"))) {
                    throw new WorkspaceException("server " + server.name() + ": uvx --with is not seeded yet; pin the"
                            + " extra packages in a project and launch it with uv run instead");
                }
                if (!npm(launcher) && (x.equals("--python") || x.equals("-p") || x.equals("--index-url") || x.equals("--index"))) {
                    i++;
                    continue;
                }
                if (x.startsWith("-")) {
                    continue;
                }
                positional = x;
                break;
            }
            String spec = from != null ? from : positional;
            if (spec == null) {
                throw new WorkspaceException("server " + server.name() + ": no package in '" + server.commandLine() + "'");
            }
            List<String> rest = positional == null ? List.of() : List.copyOf(a.subList(i + 1, a.size()));
            String exe = from != null && positional != null ? positional : "";
            String pkg;
            String version;
            if (npm(launcher)) {
                int at = spec.lastIndexOf('@');
                pkg = at > 0 ? spec.substring(0, at) : spec;
                version = at > 0 ? spec.substring(at + 1) : "latest";
                if (exe.isEmpty()) {
                    exe = pkg.substring(pkg.lastIndexOf('/') + 1);
                }
            } else {
                int eq = spec.indexOf("==");
                int op = firstOperator(spec);
                pkg = (op < 0 ? spec : spec.substring(0, op)).strip();
                String at = pkg.contains("@") ? pkg.substring(pkg.indexOf('@') + 1) : null; // uvx pkg@1.2 or pkg@latest
                if (at != null) {
                    pkg = pkg.substring(0, pkg.indexOf('@'));
                }
                version = eq >= 0 ? spec.substring(eq + 2).strip() : at != null ? at : op >= 0 ? spec.substring(op).strip()
                        : "latest";
                if (exe.isEmpty()) {
                    exe = pkg;
                }
            }
            return new Spec(pkg, version, version, exe, rest);
        }

        /** The argument after flag {@code flag} (at {@code i}); a flag that ends the command line is the config's mistake. */
        private static String value(ServerConfig server, List<String> a, int i, String flag) {
            if (i >= a.size()) {
                throw new WorkspaceException("server " + server.name() + ": '" + flag + "' needs a value (the package) in '"
                        + server.commandLine() + "'; give it one or remove it");
            }
            return a.get(i);
        }

        private static int firstOperator(String s) {
            int best = -1;
            for (String op : new String[] {"==", ">=", "<=", "~=", "!=", ">", "<"}) {
                int k = s.indexOf(op);
                if (k > 0 && (best < 0 || k < best)) {
                    best = k;
                }
            }
            return best;
        }
    }

    private String resolveNpm(ServerConfig server, Spec spec, Map<String, String> env) {
        String out = query(server, List.of("npm", "view", spec.pkg + "@" + spec.version, "version", "--json",
                "--fetch-retries=1", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=3000"), env).strip();
        try {
            JsonNode v = JSON.readTree(out.isEmpty() ? "null" : out);
            String found = v.isArray() && v.size() > 0 ? v.get(v.size() - 1).asText() : v.isTextual() ? v.asText() : null;
            if (found == null) {
                throw new WorkspaceException("server " + server.name() + ": no version of " + spec.pkg + " matches "
                        + spec.version + " in the npm registry");
            }
            return found;
        } catch (IOException e) {
            throw new WorkspaceException("server " + server.name() + ": npm view answered something that is not JSON: " + out, e);
        }
    }

    private String resolveUv(ServerConfig server, Spec spec, Map<String, String> env) {
        String requirement = spec.version.equals("latest") ? spec.pkg
                : spec.version.matches("[<>=!~].*") ? spec.pkg + spec.version : spec.pkg + "==" + spec.version;
        String out = query(server, List.of("uv", "pip", "compile", "-", "--no-deps", "--no-header", "--quiet"), env,
                requirement + "\n");
        for (String line : out.split("\n")) {
            String l = line.strip();
            int eq = l.indexOf("==");
            if (eq > 0 && l.substring(0, eq).equalsIgnoreCase(spec.pkg.replace('_', '-')) || eq > 0
                    && l.substring(0, eq).replace('_', '-').equalsIgnoreCase(spec.pkg.replace('_', '-'))) {
                return l.substring(eq + 2).split("[ ;]")[0];
            }
        }
        throw new WorkspaceException("server " + server.name() + ": uv could not resolve " + requirement + ": " + out.strip());
    }

    private String query(ServerConfig server, List<String> cmd, Map<String, String> env) {
        return query(server, cmd, env, null);
    }

    private String query(ServerConfig server, List<String> cmd, Map<String, String> env, @Nullable String stdin) {
        ProcessBuilder pb = new ProcessBuilder(onPath(cmd, env)).redirectErrorStream(false);
        pb.environment().clear();
        pb.environment().putAll(env);
        try {
            Process p = pb.start();
            if (stdin != null) {
                p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            p.getOutputStream().close();
            java.util.concurrent.CompletableFuture<byte[]> err = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try (InputStream in = p.getErrorStream()) {
                    return in.readAllBytes();
                } catch (IOException e) {
                    return new byte[0];
                }
            });
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                out = in.readAllBytes();
            }
            if (!p.waitFor(QUERY_TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new WorkspaceException("server " + server.name() + ": " + String.join(" ", cmd) + " did not answer in "
                        + QUERY_TIMEOUT.toSeconds() + " s (is the registry reachable?)");
            }
            if (p.exitValue() != 0) {
                List<String> tail = List.of(new String(err.join(), StandardCharsets.UTF_8).strip().split("\n"));
                throw new WorkspaceException("server " + server.name() + ": " + String.join(" ", cmd) + " failed: "
                        + Redact.credentials(tail.get(tail.size() - 1)) + hint(tail));
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new WorkspaceException("server " + server.name() + ": cannot run " + cmd.get(0) + ": " + e.getMessage()
                    + " (install " + (cmd.get(0).equals("uv") ? "uv" : "Node.js with npm") + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WorkspaceException("server " + server.name() + ": interrupted", e);
        }
    }

    /**
     * {@code cmd} with its program found on {@code env}'s PATH, the environment the warm runs in (a process builder
     * would search the JVM's own PATH): the node, npm or uv that runs is the one that environment names.
     */
    private static List<String> onPath(List<String> cmd, Map<String, String> env) {
        String program = cmd.get(0);
        if (program.contains("/")) {
            return cmd;
        }
        for (String dir : env.getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path p = dir.isEmpty() ? null : Path.of(dir, program);
            if (p != null && Files.isRegularFile(p) && Files.isExecutable(p)) {
                List<String> out = new ArrayList<>(cmd);
                out.set(0, p.toString());
                return out;
            }
        }
        return cmd; // not on that PATH: the start fails and says so
    }

    /** The warm's environment: the allow-listed part of Kiln's own; the server's {@code env} never reaches it. */
    private Map<String, String> allowedEnv() {
        Map<String, String> out = new TreeMap<>();
        environment.forEach((k, v) -> {
            if (UvLauncher.allowed(k) || k.equals("NPM_CONFIG_REGISTRY") || k.equals("npm_config_registry")
                    || k.equals("NODE_EXTRA_CA_CERTS") || k.equals("PYENV_ROOT") || k.equals("PYENV_VERSION")) {
                out.put(k, v);
            }
        });
        return out;
    }

    private Map<String, String> allowed(ServerConfig server) {
        return allowedEnv();
    }

    // ---- hashing -------------------------------------------------------------------------------------------------

    record Hashed(String sha, long bytes) {
    }

    /**
     * The digest of a seed's files (path, size and content, in path order), leaving out what every run of the
     * launcher rewrites (npm's {@code _logs} and index, uv's lock files and interpreter cache) and Kiln's markers.
     */
    static Hashed hash(Path dir) throws IOException {
        MessageDigest md = digest();
        long[] bytes = {0};
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(p -> Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)).sorted().toList();
        }
        byte[] buf = new byte[64 * 1024];
        for (Path f : files) {
            String rel = dir.relativize(f).toString();
            if (volatileFile(rel)) {
                continue;
            }
            md.update(rel.getBytes(StandardCharsets.UTF_8));
            md.update((byte) 0);
            try (InputStream in = Files.newInputStream(f)) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    md.update(buf, 0, n);
                    bytes[0] += n;
                }
            }
        }
        return new Hashed(HexFormat.of().formatHex(md.digest()), bytes[0]);
    }

    static boolean volatileFile(String rel) {
        return rel.equals(SeedStore.HASH_FILE) || rel.equals(SeedStore.MANIFEST_FILE) || rel.contains("/_logs/")
                || rel.contains("_cacache/index-v5/") || rel.contains("_cacache/tmp/") || rel.endsWith(".lock")
                || rel.contains("/interpreter-v") || rel.endsWith("_update-notifier-last-checked")
                || rel.endsWith("/.gitignore") || rel.endsWith("CACHEDIR.TAG") || rel.contains("__pycache__");
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String sha256(byte[] b) {
        return HexFormat.of().formatHex(digest().digest(b));
    }
}
