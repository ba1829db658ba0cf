package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.startup.FetchPhase;
import dev.kiln.core.startup.Launcher;
import dev.kiln.core.startup.Outcome;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerResult;
import dev.kiln.core.startup.StartupProbe;
import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A runtime seed of a real npm server, warmed from the real registry into an empty seeds directory, then used with
 * the registry unreachable: the seeded child must start from the seed alone (cache form through npx, installed form
 * through node), which is the proof it sees the seed. The one cold npx of the build's tests.
 */
@ProcessTest
class ServerSeedsProcessTest {
    static final String SPEC = "@modelcontextprotocol/server-memory@2026.8.31";
    /** Nothing listens on port 9 of loopback: any connection through it fails at once. */
    static final String UNREACHABLE = "http://127.0.0.1:9/";

    @TempDir
    Path tmp;

    @Test
    void inventoryAndWarmAll_oneServerWithADanglingFlag_doNotFailTheOthers() {
        // A config whose last argument is --from used to throw IndexOutOfBoundsException out of the whole listing
        // (kiln seeds, GET /api/v1/seeds/servers, the Server seeds pane) and out of kiln warm --servers.
        ServerSeeds seeds = ServerSeeds.of(SeedCaches.of(tmp), System.getenv(), Clock.systemUTC());
        ServerConfig dangling = ServerConfig.stdio("broken", tmp, "uvx", List.of("--from"), Map.of());
        ServerConfig time = ServerConfig.stdio("time", tmp, "uvx", List.of("mcp-server-time==2026.10.19"), Map.of());

        List<ServerSeedInfo> rows = seeds.inventory(List.of(dangling, time)); // asks the local uv its version, no registry
        assertThat(rows).extracting(ServerSeedInfo::server).containsExactly("time");
        assertThat(rows.get(0).state()).isEqualTo(ServerSeedInfo.State.MISSING);
        ServerSeedsWarmed warmed = seeds.warmAll(List.of(dangling), Cancellation.create(), true);
        assertThat(warmed.servers()).singleElement().satisfies(w -> {
            assertThat(w.outcome()).isEqualTo("failed");
            assertThat(w.message()).contains("server broken").contains("'--from' needs a value");
        });
    }

    @Test
    void warm_thenRegistryUnreachable_bothFormsStartFromTheSeedAndTheProbeSeesNoDownload() throws Exception {
        ServerSeeds seeds = ServerSeeds.of(SeedCaches.of(tmp), System.getenv(), Clock.systemUTC());
        ServerConfig server = ServerConfig.stdio("memory", tmp, "npx", List.of("-y", SPEC),
                Map.of("MEMORY_FILE_PATH", tmp.resolve("memory.jsonl").toString(), "API_TOKEN", "s3cret-not-for-the-warm"));
        ServerSeeds.Plan plan = seeds.plan(server);
        assertThat(plan.pinned()).isTrue();
        assertThat(plan.runtimeVersion()).startsWith("node v");

        ServerSeeds.Seed seed = seeds.warm(plan, Cancellation.create(), false);
        assertThat(seed.outcome()).as(seed.message()).isEqualTo(WarmOutcome.WARMED);
        assertThat(seeds.warm(plan, Cancellation.create(), false).outcome()).isEqualTo(WarmOutcome.UNCHANGED);
        assertThat(Files.readString(seeds.list().get(0).resolve(SeedStore.MANIFEST_FILE))).doesNotContain("s3cret");
        assertThat(Files.readString(SeedCaches.of(tmp).journalFile())).contains("server:memory").doesNotContain("s3cret");
        // A seed whose files no longer hash to what was warmed is never used: a dry run says it would be re-warmed.
        Path blob = Files.walk(plan.dir().resolve("prefix/node_modules/@modelcontextprotocol/server-memory"))
                .filter(p -> p.toString().endsWith(".js")).findFirst().orElseThrow();
        String original = Files.readString(blob);
        Files.writeString(blob, original + "\n// tampered");
        assertThat(seeds.find(plan)).isEmpty();
        assertThat(seeds.warm(plan, Cancellation.create(), true).message()).contains("would be re-warmed");
        Files.writeString(blob, original);
        assertThat(seeds.find(plan)).isPresent();

        ServerConfig cache = offline(seeds.seeded(server, seed, ServerSeeds.Form.CACHE));
        ServerConfig installed = offline(seeds.seeded(server, seed, ServerSeeds.Form.INSTALLED));
        List<ServerResult> rs = StartupProbe.builder().timeout(Duration.ofSeconds(120)).build().run(List.of(cache))
                .results();
        ServerResult viaNpx = rs.get(0);
        assertThat(viaNpx.outcome()).as(viaNpx.reason() + " " + viaNpx.stderrTail()).isEqualTo(Outcome.OK);
        assertThat(viaNpx.tools()).isEqualTo(9);
        FetchPhase f = viaNpx.fetch();
        assertThat(f.launcher()).isEqualTo(Launcher.NPX);
        assertThat(f.downloaded()).as(f.evidence()).isEqualTo(FetchPhase.Downloaded.NO);
        assertThat(f.fetchMs()).as("npx's hand-off to the server was seen: " + f.evidence()).isNotNull().isPositive();
        assertThat(viaNpx.timeline().isOrdered()).isTrue();

        ServerResult viaNode = StartupProbe.builder().timeout(Duration.ofSeconds(120)).build().run(List.of(installed))
                .results().get(0);
        assertThat(installed.command()).isEqualTo("node");
        assertThat(viaNode.outcome()).as(viaNode.reason() + " " + viaNode.stderrTail()).isEqualTo(Outcome.OK);
        assertThat(viaNode.fetch().launcher()).isEqualTo(Launcher.NODE);

        // kiln seed copy --server: the seed's cache copied into a job's cache is seen by the job's child. The child is
        // the config's own npx, pointed at the job's cache as the CLI says, with the registry out of reach: it starts
        // only from what the copy brought. The same child on an empty job cache must not start, or this proved nothing.
        Path job = tmp.resolve("job/npm-cache");
        CopyReport copied = seeds.copyInto(server, job, CopyMode.KERNEL);
        assertThat(copied.problem()).isEmpty();
        assertThat(copied.copied()).isTrue();
        assertThat(copied.files()).isPositive();
        ServerResult fromCopy = probeOffline(jobChild(server, job));
        assertThat(fromCopy.outcome()).as(fromCopy.reason() + " " + fromCopy.stderrTail()).isEqualTo(Outcome.OK);
        assertThat(fromCopy.tools()).isEqualTo(9);
        assertThat(fromCopy.fetch().downloaded()).as(fromCopy.fetch().evidence()).isEqualTo(FetchPhase.Downloaded.NO);
        ServerResult fromNothing = probeOffline(jobChild(server, tmp.resolve("empty-job/npm-cache")));
        assertThat(fromNothing.outcome()).as("without the copy the offline child cannot start").isNotEqualTo(Outcome.OK);
        // A copy is refused for a seed that no longer hashes to what was warmed: the job goes on without it.
        Files.writeString(blob, original + "\n// tampered");
        CopyReport refused = seeds.copyInto(server, tmp.resolve("job2/npm-cache"), CopyMode.KERNEL);
        assertThat(refused.copied()).isFalse();
        assertThat(refused.problem()).hasValueSatisfying(p -> assertThat(p).contains("memory").contains("job proceeds"));
        assertThat(tmp.resolve("job2/npm-cache")).doesNotExist();
    }

    /** The job's child: the server's config unchanged but for its launcher's cache variable. */
    private static ServerConfig jobChild(ServerConfig server, Path jobCache) {
        Map<String, String> env = new TreeMap<>(server.env());
        env.put(ServerSeeds.cacheVariable(server), jobCache.toString());
        return new ServerConfig(server.name(), server.transport(), server.command(), server.args(), env, server.cwd(),
                server.url(), server.headers(), server.startupTimeout(), server.enabled(), server.source());
    }

    private static ServerResult probeOffline(ServerConfig s) throws InterruptedException {
        return StartupProbe.builder().timeout(Duration.ofSeconds(120)).build().run(List.of(offline(s))).results().get(0);
    }

    /**
     * A seed whose files stop hashing to what was warmed is never used and the next warm replaces it. Stand-in node and
     * npm (see {@link SeedFixtures#fakeNodeAndNpm}) keep the registry out of it: the hash, the refusal and the swap are
     * Kiln's.
     */
    @Test
    void warm_seedCorruptedAfterItsWarm_neverUsedThenReWarmedWhole() throws Exception {
        Path bin = tmp.resolve("bin");
        SeedFixtures.fakeNodeAndNpm(bin, tmp.resolve("npm-runs"));
        ServerSeeds seeds = ServerSeeds.of(SeedCaches.of(tmp), Map.of("PATH", bin + ":/usr/bin:/bin", "HOME", tmp.toString()),
                Clock.systemUTC());
        ServerSeeds.Plan plan = seeds.plan(ServerConfig.stdio("memory", tmp, "npx", List.of("-y", SPEC), Map.of()));
        assertThat(seeds.warm(plan, Cancellation.create(), false).outcome()).isEqualTo(WarmOutcome.WARMED);
        Path blob = plan.dir().resolve("npm-cache/_cacache/content-v2/blob");
        assertThat(blob).hasContent("tarball");

        Files.writeString(blob, "tarbal"); // a flipped byte, or a copy that stopped half-way

        assertThat(seeds.find(plan)).as("a corrupted seed is never used").isEmpty();
        ServerSeeds.Seed again = seeds.warm(plan, Cancellation.create(), false);
        assertThat(again.outcome()).isEqualTo(WarmOutcome.WARMED);
        assertThat(again.message()).contains("memory").contains("did not match its hash and was replaced");
        assertThat(blob).hasContent("tarball");
        assertThat(seeds.find(plan)).isPresent();
        try (var left = Files.list(plan.dir().getParent())) {
            assertThat(left.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".lock")))
                    .as("no half-built or replaced seed left beside it").containsExactly(plan.dir().getFileName().toString());
        }
    }

    /** Reaches no process: a server Kiln does not seed is skipped before anything would run. */
    @Test
    void warmAll_launchersKilnDoesNotSeed_skippedNamingWhyAndNothingRuns() {
        ServerSeeds seeds = ServerSeeds.of(SeedCaches.of(tmp), Map.of("PATH", ""), Clock.systemUTC());

        ServerSeedsWarmed r = seeds.warmAll(List.of(ServerConfig.stdio("srv", tmp, "bunx", List.of("pkg"), Map.of()),
                ServerConfig.stdio("srv", tmp, "./my-server", List.of("--stdio"), Map.of())),
                Cancellation.create(), false);

        assertThat(r.servers()).extracting(ServerSeedsWarmed.Server::outcome).containsExactly("skipped", "skipped");
        assertThat(r.servers().get(0).message()).contains("bunx is recognised but not seeded yet");
        assertThat(r.servers().get(1).message()).contains("not launched through a package manager");
        assertThat(tmp.resolve("seeds")).doesNotExist();
    }

    @Test
    void plan_packageThatDoesNotExist_namesTheServerAndSaysSo() {
        ServerSeeds seeds = ServerSeeds.of(SeedCaches.of(tmp), System.getenv(), Clock.systemUTC());
        ServerConfig ghost = ServerConfig.stdio("ghost", tmp, "npx",
                List.of("-y", "@kiln-test-nonexistent/definitely-not-a-package-7f3a"), Map.of());

        assertThatThrownBy(() -> seeds.plan(ghost)).isInstanceOf(WorkspaceException.class)
                .hasMessageContaining("server ghost").hasMessageContaining("does not exist");
    }

    @Test
    void plan_registryUnreachable_namesTheServerAndTheRegistry() {
        Map<String, String> env = new TreeMap<>(System.getenv());
        env.put("NPM_CONFIG_REGISTRY", UNREACHABLE);
        env.put("NPM_CONFIG_FETCH_RETRIES", "0");
        ServerSeeds seeds = ServerSeeds.of(SeedCaches.of(tmp), env, Clock.systemUTC());
        ServerConfig s = ServerConfig.stdio("memory", tmp, "npx", List.of("-y", "@modelcontextprotocol/server-memory"), Map.of());

        assertThatThrownBy(() -> seeds.plan(s)).isInstanceOf(WorkspaceException.class)
                .hasMessageContaining("server memory").hasMessageContaining("unreachable");
    }

    private static ServerConfig offline(ServerConfig s) {
        Map<String, String> env = new TreeMap<>(s.env());
        // The same registry (npm keys its cache by it), behind a proxy that refuses every connection: no network.
        env.put("NPM_CONFIG_PROXY", UNREACHABLE);
        env.put("NPM_CONFIG_HTTPS_PROXY", UNREACHABLE);
        env.put("NPM_CONFIG_FETCH_RETRIES", "0");
        return new ServerConfig(s.name(), s.transport(), s.command(), s.args(), env, s.cwd(), s.url(), s.headers(),
                s.startupTimeout(), s.enabled(), s.source());
    }
}
