package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.app.Main;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.store.ObjectStore;
import dev.kiln.core.store.StoreConfig;
import dev.kiln.core.store.StoreKey;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import dev.kiln.testkit.WeedServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln warm} and {@code kiln seed} on the demo workspace, with the real uv; and a server's runtime seed warmed
 * with the real npm, moved through a real SeaweedFS by two daemons the CLI asks, then copied into a job's cache.
 */
@ProcessTest
@DaemonTest
class SeedCommandsTest {
    @TempDir
    Path tmp;

    static final String MEMORY = "@modelcontextprotocol/server-memory@2026.8.31";

    Path ws;
    final ObjectMapper json = new ObjectMapper();

    record Ran(int code, String out, String err) {
        List<JsonNode> lines() throws Exception {
            List<JsonNode> nodes = new ArrayList<>();
            for (String l : out.strip().split("\n")) {
                nodes.add(new ObjectMapper().readTree(l));
            }
            return nodes;
        }
    }

    @BeforeEach
    void demo() {
        ws = tmp.resolve("ws");
        new DemoWorkspace().write(ws, 5, 7, false);
    }

    static synchronized Ran kiln(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            int code = Main.run(args);
            return new Ran(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    @Test
    void warm_demoTargetTwice_warmsThenReportsUnchangedAsJson() throws Exception {
        Ran first = kiln("warm", ws.toString(), "demo", "--json");
        Ran second = kiln("warm", ws.toString(), "--all", "--json");

        assertThat(first.code()).as(first.out() + first.err()).isZero();
        JsonNode w = first.lines().get(0);
        assertThat(w.get("target").asText()).isEqualTo("demo");
        assertThat(w.get("outcome").asText()).isEqualTo("warmed");
        assertThat(w.get("hash").asText()).hasSize(64);
        assertThat(w.get("bytes").asLong()).isPositive();
        assertThat(w.has("seconds")).isTrue();
        assertThat(w.get("message").asText()).contains("3 wheels");
        assertThat(second.code()).isZero();
        assertThat(second.lines()).singleElement().satisfies(n -> {
            assertThat(n.get("outcome").asText()).isEqualTo("unchanged");
            assertThat(n.get("hash").asText()).isEqualTo(w.get("hash").asText());
        });
    }

    @Test
    void warm_dryRun_gitRefThatIsAnOption_failsAndWritesNothing() throws Exception {
        Path repo = Files.createDirectories(tmp.resolve("repo"));
        Path out = tmp.resolve("pwned");
        Path target = Files.createDirectories(ws.resolve("targets/evil"));
        Files.writeString(target.resolve("target.json"), "{\"source\": {\"git\": \"" + repo + "\", \"ref\": \"--output="
                + out + "\"}}");
        Map<String, String> before = tree(tmp);

        Ran r = kiln("warm", ws.toString(), "evil", "--dry-run");

        assertThat(r.code()).as(r.out() + r.err()).isNotZero();
        assertThat(r.out() + r.err()).contains("source.ref '--output=");
        assertThat(tree(tmp)).isEqualTo(before);
    }

    @Test
    void warm_dryRun_printsTheCommandAndWritesNothing() throws Exception {
        Map<String, String> before = tree(tmp);

        Ran r = kiln("warm", ws.toString(), "demo", "--dry-run", "--json");

        assertThat(r.code()).as(r.err()).isZero();
        JsonNode plan = r.lines().get(0);
        assertThat(plan.get("warm_needed").asBoolean()).isTrue();
        assertThat(plan.get("command").toString()).contains("\"sync\",\"--frozen\",\"--no-install-project\",\"--no-build\",\"--all-extras\"");
        assertThat(tree(tmp)).isEqualTo(before);
    }

    @Test
    void seedCopyAndLs_afterAWarm_copyTheSeedAndListItCurrent() throws Exception {
        assertThat(kiln("warm", ws.toString(), "demo").code()).isZero();
        Path job = tmp.resolve("job-cache");

        Ran copy = kiln("seed", "copy", ws.toString(), "demo", job.toString(), "--json");
        Ran ls = kiln("seed", "ls", ws.toString(), "--json");

        assertThat(copy.code()).isZero();
        assertThat(copy.lines().get(0).get("copied").asBoolean()).isTrue();
        assertThat(copy.lines().get(0).get("copy_mode").asText()).isEqualTo("kernel");
        assertThat(job.resolve("CACHEDIR.TAG")).exists();
        assertThat(ls.lines()).singleElement().satisfies(n -> {
            assertThat(n.get("target").asText()).isEqualTo("demo");
            assertThat(n.get("state").asText()).isEqualTo("current");
            assertThat(n.get("wheels").asLong()).isEqualTo(3);
        });
    }

    @Test
    void seedCopy_scratchIsALinkIntoTheSeed_refusesWithExitTwoAndLeavesTheSeedAlone() throws Exception {
        assertThat(kiln("warm", ws.toString(), "demo").code()).isZero();
        Path seed = dev.kiln.core.seed.SeedCaches.of(ws).seedDir("demo");
        Path scratch = Files.createSymbolicLink(tmp.resolve("scratch"), seed);
        Map<String, String> before = tree(seed);

        Ran r = kiln("seed", "copy", ws.toString(), "demo", scratch.resolve("job").toString());

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("overlap; copy refused");
        assertThat(tree(seed)).isEqualTo(before);
    }

    @Test
    void seedCopy_noSeedYet_warnsAndStillExitsZero() {
        Ran r = kiln("seed", "copy", ws.toString(), "demo", tmp.resolve("job").toString());

        assertThat(r.code()).isZero();
        assertThat(r.err()).contains("kiln: seed demo not fully copied: no seed at").contains("warm the target first");
    }

    @Test
    void warm_missingTarget_exitsOneWithAFailedObject() throws Exception {
        Ran r = kiln("warm", ws.toString(), "ghost", "--json");

        assertThat(r.code()).isEqualTo(1);
        assertThat(r.lines().get(0).get("outcome").asText()).isEqualTo("failed");
        assertThat(r.lines().get(0).get("message").asText()).startsWith("No target 'ghost'");
    }

    @Test
    void warm_noTargetNamed_saysWhichTargetsExist() {
        Ran r = kiln("warm", ws.toString());

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("name the targets to warm, or pass --all. Targets here: demo");
    }

    @Test
    void warm_notAWorkspace_saysHowToMakeOne() throws Exception {
        Path empty = Files.createDirectories(tmp.resolve("empty"));

        Ran r = kiln("warm", empty.toString(), "--all");

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("is not a Kiln workspace");
    }

    /**
     * {@code kiln seed push|pull --server URL NAME} goes through the engine: the daemon named moves the seed on its host
     * with its own credentials (this JVM has none), and {@code kiln seed copy --server} then gives a job the pulled
     * seed's cache, which the config's own {@code npx}, with the registry out of reach, starts from.
     */
    @Test
    void serverSeed_pushedAndPulledThroughDaemons_thenCopied_isWhatAnOfflineNpxChildStartsFrom() throws Exception {
        assertThat(System.getenv("AWS_ACCESS_KEY_ID")).as("the CLI itself holds no store credentials").isNull();
        String access = "KILNAPPTESTACCESSKEY";
        String secret = "kiln-app-test-secret-not-for-production";
        Map<String, String> creds = Map.of("AWS_ACCESS_KEY_ID", access, "AWS_SECRET_ACCESS_KEY", secret);
        Path hostB = tmp.resolve("b");
        new DemoWorkspace().write(hostB, 1, 1, false);
        List<AutoCloseable> open = new ArrayList<>();
        try (WeedServer weed = WeedServer.start(tmp.resolve("weed"), access, secret, 64, endpoint -> {
            try (ObjectStore c = ObjectStore.builder(StoreConfig.of("s3://kiln-app/probe", endpoint.toString(), "us-east-1"))
                    .environment(creds).retries(1, Duration.ZERO).timeout(Duration.ofSeconds(5)).build()) {
                c.ensureBucket();
                Path probe = Files.writeString(Files.createTempFile(tmp, "probe", ".bin"), "probe " + System.nanoTime());
                c.pushFile(new StoreKey("probe/" + System.nanoTime()), probe); // a real write: filer and volume are up
            }
        })) {
            List<String> urls = new ArrayList<>();
            List<String> tokens = new ArrayList<>();
            for (Path host : List.of(ws, hostB)) {
                Files.writeString(host.resolve("kiln.json"), "{\"store\": {\"url\": \"s3://kiln-app/cli\", \"endpoint\": \""
                        + weed.endpoint() + "\", \"region\": \"us-east-1\"}}\n");
                Files.writeString(host.resolve("servers.json"), "{\"mcpServers\": {\"memory\": {\"command\": \"npx\","
                        + " \"args\": [\"-y\", \"" + MEMORY + "\"]}}}\n");
            }
            Ran warm = kiln("warm", "--servers", ws.toString(), "memory", "--json");
            assertThat(warm.code()).as(warm.out() + warm.err()).isZero();
            for (Path host : List.of(ws, hostB)) {
                dev.kiln.core.engine.Engine daemon = dev.kiln.core.Kiln.open(host, new dev.kiln.core.telemetry.EventBus(),
                        java.time.Clock.systemUTC()).storeEnvironment(creds).engine();
                open.add(daemon);
                daemon.projection().start(true);
                urls.add(daemon.projection().apiUrl().orElseThrow());
                tokens.add(daemon.layout().apiTokenFile().toString());
            }
            String tokenA = tokens.get(0);
            String tokenB = tokens.get(1);

            Ran push = kiln("seed", "push", "--server", urls.get(0), "memory", "--token-file", tokenA, "--json");
            assertThat(push.code()).as(push.err()).isZero();
            assertThat(json.readTree(push.out()).get("outcome").asText()).isEqualTo("pushed");
            Ran pull = kiln("seed", "pull", "--server", urls.get(1), "memory", "--token-file", tokenB, "--json");
            assertThat(pull.code()).as(pull.err()).isZero();
            JsonNode pulled = json.readTree(pull.out());
            assertThat(pulled.get("outcome").asText()).isEqualTo("pulled");
            assertThat(pulled.get("key").asText()).startsWith("servers/modelcontextprotocol+server-memory@2026.8.31/node-v");
            Ran again = kiln("seed", "pull", "--server", urls.get(1), "memory", "--token-file", tokenB);
            assertThat(again.out()).as(again.err()).startsWith("memory: unchanged ").contains("the store's copy");
            Ran unknown = kiln("seed", "pull", "--server", urls.get(1), "nope", "--token-file", tokenB);
            assertThat(unknown.code()).isEqualTo(1);
            assertThat(unknown.err()).contains("seed pull --server nope").contains("No server 'nope'");
            for (Ran r : List.of(push, pull, again, unknown)) {
                assertThat(r.out() + r.err()).doesNotContain(secret).doesNotContain(access);
            }

            Path job = tmp.resolve("job/npm-cache");
            Ran copy = kiln("seed", "copy", "--server", hostB.toString(), "memory", job.toString(), "--json");
            assertThat(copy.code()).as(copy.err()).isZero();
            assertThat(copy.lines().get(0).get("copied").asBoolean()).as(copy.out()).isTrue();
            assertThat(copy.err()).contains("point the job's NPM_CONFIG_CACHE at " + job);
            // The config's own npx, pointed at the job's cache as the CLI said, every connection refused by a proxy.
            dev.kiln.core.startup.ServerConfig s = dev.kiln.core.startup.ServerConfigs.read(hostB.resolve("servers.json")).get(0);
            Map<String, String> env = new TreeMap<>(s.env());
            env.put("NPM_CONFIG_CACHE", job.toString());
            env.put("NPM_CONFIG_PROXY", "http://127.0.0.1:9/");
            env.put("NPM_CONFIG_HTTPS_PROXY", "http://127.0.0.1:9/");
            env.put("NPM_CONFIG_FETCH_RETRIES", "0");
            dev.kiln.core.startup.ServerConfig child = new dev.kiln.core.startup.ServerConfig(s.name(), s.transport(),
                    s.command(), s.args(), env, hostB, s.url(), s.headers(), s.startupTimeout(), s.enabled(), s.source());
            dev.kiln.core.startup.ServerResult r = dev.kiln.core.startup.StartupProbe.builder().timeout(Duration.ofSeconds(120))
                    .build().run(List.of(child)).results().get(0);
            assertThat(r.outcome()).as(r.reason() + " " + r.stderrTail()).isEqualTo(dev.kiln.core.startup.Outcome.OK);
            assertThat(r.tools()).isEqualTo(9);
        } finally {
            for (AutoCloseable c : open) {
                c.close();
            }
        }
    }

    @Test
    void seedPush_localWorkspaceWithoutAStore_saysHowToNameOne() {
        Ran r = kiln("seed", "push", ws.toString(), "demo");

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("kiln.json names no object store").contains("\"store\": {\"url\"");
    }

    private static Map<String, String> tree(Path root) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                out.put(root.relativize(p).toString(), Files.isRegularFile(p) ? new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1) : "dir");
            }
        }
        return out;
    }
}
