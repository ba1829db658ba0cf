package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.archive.ArchiveCache;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.engine.WorkspaceActions;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.ServerSeedInfo;
import dev.kiln.core.seed.ServerSeeds;
import dev.kiln.core.seed.ServerSeedsWarmed;
import dev.kiln.core.serve.client.ClientInternals;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.startup.FetchPhase;
import dev.kiln.core.startup.Launcher;
import dev.kiln.core.startup.Outcome;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerResult;
import dev.kiln.core.startup.StartupProbe;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Server seeds through the API, against the real npm registry: a {@link RemoteEngine} on a real daemon lists a
 * seedable server as missing, warms it ({@code POST seeds/servers/warm}, token and idempotency key), lists it sound
 * with a snippet per client; each snippet, applied as that client applies its config, starts the child from the seed
 * with every connection refused (the proof the child sees the seed), and the same server without the snippet cannot
 * start. A seed changed on disk is listed corrupt, offers no snippet, and the next warm replaces it.
 */
@ProcessTest
@DaemonTest
class ServerSeedsApiTest {
    static final String SPEC = "@modelcontextprotocol/server-memory@2026.8.31";
    /** Nothing listens on port 9 of loopback: any connection through it fails at once. */
    static final String REFUSED = "http://127.0.0.1:9/";

    @TempDir
    Path dir;

    @Test
    void warmListSnippetsCorrupt_throughTheApi_eachClientsSnippetMakesItsChildUseTheSeed() throws Exception {
        Path ws = dir.resolve("ws");
        new DemoWorkspace().write(ws, 5, 7, false);
        Path memory = dir.resolve("memory.jsonl");
        Files.writeString(ws.resolve("servers.json"), """
                {"mcpServers": {
                  "memory": {"command": "npx", "args": ["-y", "%s"],
                             "env": {"MEMORY_FILE_PATH": "%s", "API_TOKEN": "s3cret-stays-home"}},
                  "plain": {"command": "python3", "args": ["servers/kiln_demo_server.py"]}
                }}
                """.formatted(SPEC, memory));
        WorkspaceSettings settings = WorkspaceSettings.read(ws);
        EventBus bus = new EventBus();
        try (WorkspaceActions actions = new WorkspaceActions(WorkspaceLayout.of(ws), settings,
                ArchiveCache.builder().maximumBytes(settings.archiveCacheMaxBytes()).eventSink(bus).build(),
                SeedCaches.builder(ws).settings(settings).events(bus).build(), bus, Clock.systemUTC());
                ProjectionDaemon daemon = ProjectionDaemon.builder(WorkspaceLayout.of(ws)).events(bus).actions(actions, bus)
                        .pacing(new ChangePacer.Settings(Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofHours(1)))
                        .port(0).start();
                RemoteEngine engine = ClientInternals.connect(daemon.url(), daemon.tokenFile(), null, Clock.systemUTC(),
                        Duration.ofMillis(50), Duration.ofMillis(400))) {
            daemon.awaitFirstProjection(Duration.ofSeconds(60));

            List<ServerSeedInfo> before = engine.seeds().servers();
            assertThat(before).extracting(ServerSeedInfo::server).containsExactly("memory");
            assertThat(before.get(0).state()).isEqualTo(ServerSeedInfo.State.MISSING);
            assertThat(before.get(0).problem()).contains("server memory").contains("kiln warm --servers");
            assertThatThrownBy(() -> engine.seeds().warmServers(List.of("nope"), "")).isInstanceOf(EngineException.class)
                    .hasMessageContaining("nope");
            Http.Response noToken = Http.call("POST", daemon.url().resolve(Wire.SERVER_SEEDS_WARM));
            assertThat(noToken.statusCode()).as("a warm is a mutation: the token is needed").isEqualTo(401);

            Action<ServerSeedsWarmed> warm = engine.seeds().warmServers(List.of(), "warm-servers-1");
            assertThat(engine.seeds().warmServers(List.of(), "warm-servers-1").id()).as("the same key: the same action")
                    .isEqualTo(warm.id());
            ServerSeedsWarmed warmed = warm.result().get(5, TimeUnit.MINUTES);
            assertThat(warmed.servers()).extracting(ServerSeedsWarmed.Server::server).containsExactly("memory");
            ServerSeedsWarmed.Server w = warmed.servers().get(0);
            assertThat(w.outcome()).as(w.message()).isEqualTo("warmed");
            assertThat(w.seed()).isNotNull();
            assertThat(w.seed().state()).isEqualTo(ServerSeedInfo.State.OK);

            ServerSeedInfo seed = engine.seeds().servers().get(0);
            assertThat(seed.state()).as(seed.problem()).isEqualTo(ServerSeedInfo.State.OK);
            assertThat(seed.spec()).isEqualTo(SPEC);
            assertThat(seed.runtimeVersion()).startsWith("node v");
            assertThat(seed.registry()).startsWith("http");
            assertThat(seed.forms()).containsExactly(ServerSeeds.Form.CACHE, ServerSeeds.Form.INSTALLED);
            assertThat(seed.bytes()).isPositive();
            assertThat(seed.warmedAt()).isNotNull();
            assertThat(seed.snippets()).extracting(ServerSeedInfo.Snippet::client).contains("claude-desktop", "claude-code",
                    "cursor", "vscode", "codex", "gemini", "cline");
            Http.Response raw = Http.call("GET", daemon.url().resolve(Wire.SERVER_SEEDS));
            assertThat(raw.statusCode()).isEqualTo(200);
            assertThat(raw.body()).as("the server's env never leaves in a snippet").doesNotContain("s3cret");
            List<String> problems = new ArrayList<>();
            ApiGoldens.diff(ApiGoldens.load(ApiGoldens.fileOf(Wire.SERVER_SEEDS)), Wire.JSON.readTree(raw.body()), "$",
                    ApiGoldens.fileOf(Wire.SERVER_SEEDS), problems);
            JsonNode action = Wire.JSON.readTree(Http.call("GET", daemon.url().resolve(Wire.withId(Wire.ACTION, warm.id()))).body());
            ApiGoldens.diff(ApiGoldens.load("server_seeds_warmed.json"), action.path("result"), "$", "server_seeds_warmed.json",
                    problems);
            if (Boolean.getBoolean("kiln.golden.update")) {
                Files.writeString(dir.getParent().resolve("seeds_servers.live.json"), raw.body());
                Files.writeString(dir.getParent().resolve("server_seeds_warmed.live.json"), action.path("result").toString());
            }
            assertThat(problems).as("the live answers have the shape of their goldens").isEmpty();

            ServerConfig configured = actions.probes().servers().stream().filter(s -> s.name().equals("memory")).findFirst()
                    .orElseThrow();
            // Applied as each client applies its entry: its command and args replace the server's, its env is added.
            ServerResult desktop = start(applyJson(configured, seed.snippet(ServerSeeds.Form.CACHE, "claude-desktop")
                    .orElseThrow().text(), "mcpServers"));
            assertThat(desktop.outcome()).as(desktop.reason() + " " + desktop.stderrTail()).isEqualTo(Outcome.OK);
            assertThat(desktop.fetch().launcher()).isEqualTo(Launcher.NPX);
            assertThat(desktop.fetch().downloaded()).as(desktop.fetch().evidence()).isEqualTo(FetchPhase.Downloaded.NO);
            ServerResult vscode = start(applyJson(configured, seed.snippet(ServerSeeds.Form.INSTALLED, "vscode").orElseThrow()
                    .text(), "servers"));
            assertThat(vscode.outcome()).as(vscode.reason() + " " + vscode.stderrTail()).isEqualTo(Outcome.OK);
            assertThat(vscode.fetch().launcher()).as("the installed form skips npx").isEqualTo(Launcher.NODE);
            ServerResult codex = start(applyToml(configured, seed.snippet(ServerSeeds.Form.CACHE, "codex").orElseThrow().text()));
            assertThat(codex.outcome()).as(codex.reason() + " " + codex.stderrTail()).isEqualTo(Outcome.OK);
            assertThat(codex.tools()).isEqualTo(9);
            // The classic mistake: a warmed cache the child never sees. Without the snippet the child cannot start.
            ServerResult unseeded = start(withEnv(configured, Map.of("NPM_CONFIG_CACHE", dir.resolve("empty-cache").toString())));
            assertThat(unseeded.outcome()).as("without the snippet's env npx must fetch, and cannot").isNotEqualTo(Outcome.OK);

            // A seed whose files no longer hash to what was warmed: listed corrupt, no snippet, replaced by the next warm.
            Path js;
            try (Stream<Path> files = Files.walk(seed.dir().resolve("prefix/node_modules/@modelcontextprotocol/server-memory"))) {
                js = files.filter(p -> p.toString().endsWith(".js")).findFirst().orElseThrow();
            }
            Files.writeString(js, Files.readString(js) + "\n// changed after the warm");
            ServerSeedInfo corrupt = engine.seeds().servers().get(0);
            assertThat(corrupt.state()).isEqualTo(ServerSeedInfo.State.CORRUPT);
            assertThat(corrupt.problem()).contains("server memory").contains("does not match its hash").contains("never used");
            assertThat(corrupt.snippets()).as("a corrupt seed is never offered").isEmpty();
            ServerSeedsWarmed again = engine.seeds().warmServers(List.of("memory"), "").result().get(5, TimeUnit.MINUTES);
            assertThat(again.servers().get(0).outcome()).as(again.servers().get(0).message()).isEqualTo("warmed");
            assertThat(again.servers().get(0).message()).contains("did not match its hash and was replaced");
            assertThat(engine.seeds().servers().get(0).state()).isEqualTo(ServerSeedInfo.State.OK);
            assertThat(Files.readString(js)).doesNotContain("changed after the warm");
        }
    }

    private static ServerResult start(ServerConfig s) throws InterruptedException {
        return StartupProbe.builder().timeout(Duration.ofSeconds(120)).build().run(List.of(offline(s))).results().get(0);
    }

    /** A client's JSON entry ({@code mcpServers} or VS Code's {@code servers}) applied to the configured server. */
    private static ServerConfig applyJson(ServerConfig s, String snippet, String key) throws Exception {
        JsonNode e = Wire.JSON.readTree(snippet).path(key).path(s.name());
        assertThat(e.isObject()).as(snippet).isTrue();
        List<String> args = new ArrayList<>();
        e.path("args").forEach(a -> args.add(a.asText()));
        Map<String, String> env = new TreeMap<>(s.env());
        e.path("env").fields().forEachRemaining(f -> env.put(f.getKey(), f.getValue().asText()));
        return new ServerConfig(s.name(), s.transport(), e.path("command").asText(), args, env, s.cwd(), s.url(), s.headers(),
                s.startupTimeout(), s.enabled(), s.source());
    }

    /** Codex's TOML table ({@code command}, {@code args}, {@code env} inline table) applied to the configured server. */
    private static ServerConfig applyToml(ServerConfig s, String snippet) {
        assertThat(snippet).startsWith("[mcp_servers." + s.name() + "]");
        Matcher cmd = Pattern.compile("(?m)^command = \"((?:[^\"\\\\]|\\\\.)*)\"$").matcher(snippet);
        assertThat(cmd.find()).as(snippet).isTrue();
        Matcher argsLine = Pattern.compile("(?m)^args = \\[(.*)]$").matcher(snippet);
        assertThat(argsLine.find()).as(snippet).isTrue();
        List<String> args = new ArrayList<>();
        Matcher str = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(argsLine.group(1));
        while (str.find()) {
            args.add(str.group(1).replace("\\\"", "\"").replace("\\\\", "\\"));
        }
        Map<String, String> env = new TreeMap<>(s.env());
        Matcher envLine = Pattern.compile("(?m)^env = \\{(.*)}$").matcher(snippet);
        if (envLine.find()) {
            Matcher kv = Pattern.compile("(\\w+) = \"((?:[^\"\\\\]|\\\\.)*)\"").matcher(envLine.group(1));
            while (kv.find()) {
                env.put(kv.group(1), kv.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
            }
        }
        return new ServerConfig(s.name(), s.transport(), cmd.group(1), args, env, s.cwd(), s.url(), s.headers(),
                s.startupTimeout(), s.enabled(), s.source());
    }

    private static ServerConfig withEnv(ServerConfig s, Map<String, String> more) {
        Map<String, String> env = new TreeMap<>(s.env());
        env.putAll(more);
        return new ServerConfig(s.name(), s.transport(), s.command(), s.args(), env, s.cwd(), s.url(), s.headers(),
                s.startupTimeout(), s.enabled(), s.source());
    }

    /** Every connection refused (npm keys its cache by registry, so the registry stays and its proxy refuses). */
    private static ServerConfig offline(ServerConfig s) {
        return withEnv(s, Map.of("NPM_CONFIG_PROXY", REFUSED, "NPM_CONFIG_HTTPS_PROXY", REFUSED, "NPM_CONFIG_FETCH_RETRIES", "0",
                "NPM_CONFIG_UPDATE_NOTIFIER", "false"));
    }
}
