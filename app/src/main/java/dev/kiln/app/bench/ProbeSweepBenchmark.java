package dev.kiln.app.bench;

import dev.kiln.app.common.Json;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.startup.CpuQuota;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.Sweep;
import dev.kiln.core.startup.SweepReport;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@code kiln bench probe --sweep}: the field's table for three real servers — the PyPI {@code mcp} SDK's own server
 * (in a venv uv installs without bytecode) and two npm reference servers — all started at once at 2, 1 and 0.5 CPUs,
 * before and after precompiling, with the after/before ratio per share; and the check that the quota really holds:
 * {@code quota_cpu_per_wall}, the group's CPU time (cpuacct / cpu.stat) per wall second, for the probe itself and for
 * a saturating load, which must be within 10 % of the share.
 *
 * <p>Not a picocli command itself (the bench package is wired by {@code kiln bench probe}); {@link #run} returns the
 * JSON and {@link #main} runs it standalone.
 */
public final class ProbeSweepBenchmark {
    static final String MCP_VERSION = "2.3.0";
    static final String NPM_VERSION = "2026.8.31";
    static final List<String> NPM_SERVERS = List.of("server-memory", "server-sequential-thinking");
    private static final String SDK_SERVER = String.join("\n",
            "from mcp.server.mcpserver import MCPServer",
            "mcp = MCPServer('kiln-bench')",
            "@mcp.tool()",
            "def add(a: int, b: int) -> int:",
            "    \"\"\"Adds two numbers.\"\"\"",
            "    return a + b",
            "mcp.run()",
            "");

    private ProbeSweepBenchmark() {
    }

    /**
     * What to measure.
     *
     * @param shares the CPU shares (default 2, 1, 0.5)
     * @param repeat probe runs per cell (medians)
     * @param saturateSeconds how long the saturating load runs per share for the quota check
     * @param npmPrefix an existing {@code npm install --prefix} with the two servers, or null to install them
     * @param progress where progress lines go
     */
    public record Options(List<Double> shares, int repeat, double saturateSeconds, Path npmPrefix, Consumer<String> progress) {
        public static Options defaults() {
            return new Options(List.of(2.0, 1.0, 0.5), 3, 3, null, s -> { });
        }
    }

    /** Runs the benchmark and returns its JSON. */
    public static ObjectNode run(Options o) throws Exception {
        if (o.repeat() < 1 || o.saturateSeconds() <= 0) {
            throw new IllegalArgumentException("--repeat must be at least 1 and the saturation time positive");
        }
        require("uv", "install uv (pip install uv)");
        require("node", "install Node.js 20+ (apt-get install nodejs npm)");
        Path work = Files.createTempDirectory("kiln-bench-sweep-");
        try {
            List<ServerConfig> servers = servers(work, o);
            o.progress().accept("sweep: " + servers.size() + " servers at " + o.shares() + " CPUs, before/after, "
                    + o.repeat() + " run(s) per cell");
            SweepReport sweep = Sweep.builder().shares(o.shares()).compareBytecode(true).repeat(o.repeat())
                    .timeout(Duration.ofSeconds(120)).progress(o.progress()).build().run(servers);

            ObjectNode out = Json.object();
            out.put("benchmark", "probe-sweep");
            ObjectNode s = sweep.toJson();
            out.put("mechanism", sweep.mechanism());
            out.set("shares", s.get("shares"));
            out.put("repeat", o.repeat());
            out.put("cpus_here", Runtime.getRuntime().availableProcessors());
            out.set("servers", s.get("servers"));
            out.set("matrix", s.get("matrix"));
            out.set("verdicts", s.get("verdicts"));
            ArrayNode ratios = out.putArray("after_over_before");
            for (double share : o.shares()) {
                ObjectNode r = ratios.addObject().put("share", share);
                Double slowest = sweep.ratio(share);
                if (slowest == null) {
                    r.putNull("slowest");
                } else {
                    r.put("slowest", round(slowest, 3));
                }
                for (String server : sweep.servers()) {
                    SweepReport.Cell b = sweep.cell(server, share, SweepReport.Bytecode.BEFORE);
                    SweepReport.Cell a = sweep.cell(server, share, SweepReport.Bytecode.AFTER);
                    if (a != null && b != null && a.initializeMs() != null && b.initializeMs() != null) {
                        r.put(server, round(a.initializeMs() / b.initializeMs(), 3));
                    }
                }
            }
            ArrayNode quota = out.putArray("quota_cpu_per_wall");
            for (double share : o.shares()) {
                ObjectNode q = quota.addObject().put("share", share);
                for (SweepReport.Column c : sweep.columns()) {
                    ProbeReport.CpuLimit l = c.report().cpuLimit();
                    if (c.share() == share && l != null && l.cpuPerWall() != null) {
                        q.put("probe_" + c.bytecode().label(), round(l.cpuPerWall(), 3));
                    }
                }
                double saturated = saturated(share, o.saturateSeconds(), o.progress());
                q.put("saturated", round(saturated, 3));
                q.put("saturated_over_share", round(saturated / share, 3));
                q.put("within_10_percent", Math.abs(saturated / share - 1) <= 0.10);
            }
            out.put("partial", sweep.partial());
            out.put("markdown", sweep.markdown());
            out.put("note", "cells are seconds from spawn to the first successful answer (server/discover or"
                    + " initialize), all servers started at once in one CPU-quota group; before = no usable bytecode"
                    + " (empty PYTHONPYCACHEPREFIX + PYTHONDONTWRITEBYTECODE=1, the stdlib's pycs hidden too), after ="
                    + " the SDK venv precompiled by kiln bytecode compile; node servers have no bytecode, so their before"
                    + " and after differ by noise only. probe_* is the group's CPU time per wall second over the probe"
                    + " (servers idle once they answered, so at most the share); saturated is the same under 2 x share + 1"
                    + " busy loops: the quota holds when it is within 10 % of the share"
                    + " (a share at or above this machine's CPUs is limited by the machine, not the quota)");
            return out;
        } finally {
            deleteTree(work);
        }
    }

    /** CPU seconds per wall second of a group of {@code share} CPUs kept busy by more busy loops than it may run. */
    static double saturated(double share, double seconds, Consumer<String> progress) throws Exception {
        int loops = (int) Math.ceil(share * 2 + 1);
        progress.accept("quota check: " + loops + " busy loops in a " + share + "-CPU group for "
                + seconds + " s");
        try (CpuQuota q = CpuQuota.open(share, System.getenv())) {
            List<Process> burners = new ArrayList<>();
            try {
                for (int i = 0; i < loops; i++) {
                    burners.add(new ProcessBuilder(q.wrap(List.of("python3", "-c", "while True: pass")))
                            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
                }
                Thread.sleep(500); // every loop joined and the quota is saturated
                OptionalLong cpu0 = q.cpuUsageNanos();
                long t0 = System.nanoTime();
                Thread.sleep((long) (seconds * 1000));
                OptionalLong cpu1 = q.cpuUsageNanos();
                long t1 = System.nanoTime();
                if (cpu0.isEmpty() || cpu1.isEmpty()) {
                    throw new IllegalStateException("the group's CPU time cannot be read (" + q.mechanism().label() + ")");
                }
                return (double) (cpu1.getAsLong() - cpu0.getAsLong()) / (t1 - t0);
            } finally {
                burners.forEach(Process::destroyForcibly);
            }
        }
    }

    private static List<ServerConfig> servers(Path work, Options o) throws Exception {
        Path script = work.resolve("sdk_server.py");
        Files.writeString(script, SDK_SERVER);
        Path venv = work.resolve("venv-sdk");
        o.progress().accept("setup: uv venv with mcp==" + MCP_VERSION + " (--no-compile: no bytecode, as shipped)");
        run(List.of("uv", "venv", "-q", venv.toString()), work, 300);
        run(List.of("uv", "pip", "install", "-q", "--no-compile", "--python", venv.resolve("bin/python").toString(),
                "mcp==" + MCP_VERSION), work, 900);
        Path prefix = o.npmPrefix();
        if (prefix == null) {
            require("npm", "install npm (apt-get install npm)");
            prefix = work.resolve("npm");
            o.progress().accept("setup: npm install " + NPM_SERVERS + "@" + NPM_VERSION);
            List<String> cmd = new ArrayList<>(List.of("npm", "install", "--prefix", prefix.toString(), "--no-audit",
                    "--no-fund", "--loglevel=error"));
            NPM_SERVERS.forEach(p -> cmd.add("@modelcontextprotocol/" + p + "@" + NPM_VERSION));
            run(cmd, work, 600);
        }
        List<ServerConfig> out = new ArrayList<>();
        out.add(ServerConfig.stdio("mcp-sdk", work, venv.resolve("bin/python").toString(), List.of(script.toString()), Map.of()));
        for (String pkg : NPM_SERVERS) {
            Path js = prefix.resolve("node_modules/@modelcontextprotocol/" + pkg + "/dist/index.js");
            if (!Files.isRegularFile(js)) {
                throw new IllegalStateException(js + " is missing: install @modelcontextprotocol/" + pkg + " into " + prefix);
            }
            out.add(ServerConfig.stdio(pkg.replace("server-", ""), work, "node", List.of(js.toString()),
                    pkg.equals("server-memory") ? Map.of("MEMORY_FILE_PATH", work.resolve("memory.json").toString()) : Map.of()));
        }
        return out;
    }

    private static double round(double v, int digits) {
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }

    private static void require(String tool, String how) {
        boolean found = Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, tool)));
        if (!found) {
            throw new IllegalStateException("kiln bench probe --sweep needs " + tool + " on PATH: " + how);
        }
    }

    private static String run(List<String> cmd, Path dir, long timeoutSeconds) throws IOException, InterruptedException {
        Path log = Files.createTempFile(dir, "run-", ".log");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        p.getOutputStream().close();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", cmd) + " did not finish within " + timeoutSeconds + " s");
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed (exit " + p.exitValue() + "): " + out.strip());
        }
        return out;
    }

    private static void deleteTree(Path root) {
        try (var s = Files.walk(root)) {
            s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // A temp directory left behind is harmless.
        }
    }

    /** Standalone: {@code [--shares 2,1,0.5] [--repeat K] [--npm-prefix DIR]}; prints the JSON on stdout. */
    public static void main(String[] args) throws Exception {
        Options o = Options.defaults();
        List<Double> shares = o.shares();
        int repeat = o.repeat();
        Path npm = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--shares" -> shares = Sweep.Builder.parseShares(args[++i]);
                case "--repeat" -> repeat = Integer.parseInt(args[++i]);
                case "--npm-prefix" -> npm = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; options: --shares 2,1,0.5 --repeat K --npm-prefix DIR");
            }
        }
        ObjectNode out = run(new Options(shares, repeat, o.saturateSeconds(), npm,
                line -> System.err.println("kiln bench probe --sweep: " + line)));
        System.out.println(Json.pretty(out));
    }
}
