package dev.kiln.app.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code kiln bench projection|watch|scale|archive|seed|store|probe|metrics|doctor|startup|ui|remote}: the shipped benchmarks. Each sub-command holds only its
 * options and prints; the measuring is in the {@code XxxBenchmark} of the same name. Each prints one JSON object
 * with ratios against a baseline measured in the same run (indented, or compact with {@code --json}).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Run a shipped benchmark; each prints JSON measured against a baseline in the same run.",
        subcommands = {BenchCommand.Projection.class, BenchCommand.Archive.class, BenchCommand.Seed.class,
            BenchCommand.Probe.class, BenchCommand.Watch.class, BenchCommand.Scale.class, StartupBenchmark.class, RuntimesBenchmark.class, BenchCommand.Doctor.class, BenchCommand.Metrics.class, BenchCommand.Remote.class, UiBenchmark.class,
            FleetBenchmark.class, BenchCommand.Store.class, RecordBenchmark.class, CommandLine.HelpCommand.class})
public final class BenchCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a benchmark: kiln bench --help lists them");
    }

    /** Prints {@code report}: compact with {@code --json}, else indented. */
    private static void print(CommandLine.Model.CommandSpec spec, JsonOption json, Object report) {
        PrintWriter out = spec.commandLine().getOut();
        out.println(Json.render(report, json.enabled()));
        out.flush();
    }

    @Command(name = "doctor", mixinStandardHelpOptions = true,
            description = {"Measure kiln doctor's time to a verdict on a demo workspace against one full unchanged tick",
                "in the same process (target: within 2x). Prints one JSON object."})
    static final class Doctor implements Callable<Integer> {
        @Option(names = "--contracts", paramLabel = "N", description = "Contracts of the demo workspace (default: ${DEFAULT-VALUE}).")
        int contracts = DoctorBenchmark.DEFAULT_CONTRACTS;

        @Option(names = "--rounds", paramLabel = "R", description = "Measured rounds (default: ${DEFAULT-VALUE}).")
        int rounds = 5;

        @Mixin
        JsonOption json;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            if (contracts < 10 || rounds < 1) {
                throw new CliException("--contracts must be at least 10 and --rounds positive");
            }
            print(spec, json, DoctorBenchmark.run(contracts, rounds));
            return 0;
        }
    }

    @Command(name = "projection", mixinStandardHelpOptions = true,
            description = {"Measure projection ticks (cold, unchanged, one changed, no cache) against the bare stat walk",
                "on a synthetic workspace in a temp directory. Prints one JSON object of medians."})
    static final class Projection implements Callable<Integer> {
        @Option(names = "--contracts", paramLabel = "N", description = "Contracts to generate (default: ${DEFAULT-VALUE}).")
        int contracts = ProjectionBenchmark.DEFAULT_CONTRACTS;

        @Option(names = "--rounds", paramLabel = "R", description = "Measured rounds; each figure is their median (default: ${DEFAULT-VALUE}).")
        int rounds = 7;

        @Mixin
        JsonOption json;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            print(spec, json, ProjectionBenchmark.run(contracts, rounds).toJson());
            return 0;
        }
    }

    @Command(name = "watch", mixinStandardHelpOptions = true,
            header = "Daemon: idle ticks, change latency, bursts, incremental.",
            description = {"Run a real projector daemon on a temp workspace and measure idle projections, change-to-state",
                "latency (SSE), burst coalescing, and on a bigger workspace full vs incremental ticks. Prints one JSON object."})
    static final class Watch implements Callable<Integer> {
        @Option(names = "--contracts", paramLabel = "N", description = "Contracts of the daemon's workspace (default: ${DEFAULT-VALUE}).")
        int contracts = 2_000;

        @Option(names = "--big-contracts", paramLabel = "N", description = "Contracts for full vs incremental ticks (default: ${DEFAULT-VALUE}).")
        int bigContracts = 10_000;

        @Option(names = "--idle-seconds", paramLabel = "S", description = "Idle observation (default: ${DEFAULT-VALUE}).")
        int idleSeconds = 20;

        @Option(names = "--edits", paramLabel = "N", description = "Timed single-file edits (default: ${DEFAULT-VALUE}).")
        int edits = 20;

        @Option(names = "--burst", paramLabel = "N", description = "Edits in the burst (default: ${DEFAULT-VALUE}).")
        int burst = 1_000;

        @Option(names = "--rounds", paramLabel = "R", description = "Rounds of full and of incremental ticks (default: ${DEFAULT-VALUE}).")
        int rounds = 15;

        @Mixin
        JsonOption json;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            if (contracts < 10 || bigContracts < 10 || edits < 1 || burst < 1 || rounds < 1 || idleSeconds < 1) {
                throw new CliException("every count must be positive (contracts at least 10)");
            }
            print(spec, json, WatchBenchmark.run(contracts, bigContracts, Duration.ofSeconds(idleSeconds), edits, burst, rounds));
            return 0;
        }
    }

    @Command(name = "scale", mixinStandardHelpOptions = true,
            header = "One host at scale: floor, ticks, write behind, latency, heap, watch start.",
            description = {"Write a demo workspace of N contracts and measure the stat-walk floor, the unchanged and the",
                "incremental tick (with and without the durable write behind it), heap after GC, the time to start watching",
                "and change-to-state through a real daemon; the same at N/10, with the growth per 10x. Run it with",
                "KILN_JAVA_OPTS=-Xmx512m to check the memory budget. Prints one JSON object."})
    static final class Scale implements Callable<Integer> {
        @Option(names = "--contracts", paramLabel = "N", description = "Contracts (default: ${DEFAULT-VALUE}).")
        int contracts = 100_000;

        @Option(names = "--compare", paramLabel = "N", description = "A smaller size for the growth ratios (default: N/10; 0: none).")
        Integer compare;

        @Option(names = "--rounds", paramLabel = "R", description = "Measured rounds per tick figure (default: ${DEFAULT-VALUE}).")
        int rounds = 9;

        @Option(names = "--edits", paramLabel = "N", description = "Timed edits through the daemon (default: ${DEFAULT-VALUE}).")
        int edits = 15;

        @Mixin
        JsonOption json;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            int small = compare == null ? contracts / 10 : compare;
            if (contracts < 10 || small < 0 || small >= contracts || rounds < 1 || edits < 1) {
                throw new CliException("--contracts must be at least 10, --compare below it (0: none), rounds and edits positive");
            }
            print(spec, json, ScaleBenchmark.run(contracts, small < 10 ? 0 : small, rounds, edits));
            return 0;
        }
    }

    @Command(name = "archive", mixinStandardHelpOptions = true,
            header = "Archive cache: cold build vs GNU tar | gzip, hits.",
            description = {"Benchmark the source archive cache: cold build vs GNU tar | gzip -6 -n (same members, same run),",
                "validated hit and snapshot hit. Default source: a synthetic checkout shaped like the anchor's (≈353 files).",
                "Prints one figure a line, or one JSON object with --json."})
    static final class Archive implements Callable<Integer> {
        @Option(names = "--source", paramLabel = "DIR", description = "Archive all of DIR instead of the synthetic tree.")
        Path source;

        @Option(names = "--runs", paramLabel = "N", description = "Interleaved cold-build/GNU pairs, median reported (default: ${DEFAULT-VALUE}).")
        int runs = 9;

        @Option(names = "--hits", paramLabel = "N", description = "Validated hits timed, median reported (default: ${DEFAULT-VALUE}).")
        int hits = 101;

        @Option(names = "--warmup", paramLabel = "N", description = "Untimed builds first, so the JIT settles (default: ${DEFAULT-VALUE}).")
        int warmup = 40;

        @Mixin
        JsonOption json;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            Map<String, Object> r = new ArchiveBenchmark(source, runs, hits, warmup).run();
            if (json.enabled()) {
                print(spec, json, r);
            } else {
                PrintWriter out = spec.commandLine().getOut();
                r.forEach((k, v) -> out.printf("%-26s %s%n", k, v));
                out.flush();
            }
            return 0;
        }
    }

    @Command(name = "seed", mixinStandardHelpOptions = true,
            header = "Seed copy vs cp -a, no-op warm, offline job install.",
            description = {"Warm a real seed (default: a bench target of ~3,200 files from PyPI, in a temp workspace),",
                "then measure copy into a job cache against `cp -a seed/. dst/` (medians, alternating runs), the no-op",
                "warm, and a job's `uv sync --offline` from the copy vs from an empty cache. Prints one JSON object.",
                "Exit 1 when the copy did not prove sufficient for an offline install."})
    static final class Seed implements Callable<Integer> {
        @Option(names = "--workspace", paramLabel = "DIR", description = "Use this workspace's target instead of a temp one.")
        Path workspace;

        @Option(names = "--target", paramLabel = "NAME", description = "The target to bench (default: ${DEFAULT-VALUE}).")
        String target = "bench";

        @Option(names = "--rounds", paramLabel = "R", description = "Copy rounds of each kind; medians (default: ${DEFAULT-VALUE}).")
        int rounds = 9;

        @Option(names = "--warmup", paramLabel = "W", description = "Untimed rounds of each copy first (JIT, page cache) (default: ${DEFAULT-VALUE}).")
        int warmup = 2;

        @Mixin
        JsonOption json;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            ObjectNode out = new SeedBenchmark(target, rounds, warmup).run(workspace);
            print(spec, json, out);
            return out.path("seed_sufficient").asBoolean() ? 0 : 1;
        }
    }

    @Command(name = "store", mixinStandardHelpOptions = true,
            header = "A real seed through a real SeaweedFS: push, pull vs local copy vs cold warm.",
            description = {"Warm the bench target (~3,200 files from PyPI) cold, push it to a SeaweedFS started on loopback,",
                "pull it into fresh workspaces (download, SHA-256, unpack, checks, swap) and copy it locally, alternating;",
                "medians. Fields: push_ms, pull_ms, local_copy_ms, cold_warm_ms, seed_bytes, object_bytes.",
                "Needs the weed binary (.ci/seaweedfs builds it). Exit 1 when a target ratio is missed."})
    static final class Store implements Callable<Integer> {
        @Option(names = "--rounds", paramLabel = "R", description = "Pull and copy rounds; medians (default: ${DEFAULT-VALUE}).")
        int rounds = 5;

        @Option(names = "--weed", paramLabel = "PATH", description = "The SeaweedFS weed binary (default: KILN_WEED, else .kiln-test/seaweedfs/).")
        Path weed;

        @Mixin
        JsonOption json;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            ObjectNode out = new StoreBenchmark(rounds, StoreBenchmark.locate(weed)).run();
            print(spec, json, out);
            return out.path("within_target").asBoolean() ? 0 : 1;
        }
    }

    @Command(name = "probe", mixinStandardHelpOptions = true,
            description = {"Probe overhead vs a bare Python client, and a real server's cold start before/after precompile.",
                "Progress goes to stderr unless --json is given."})
    static final class Probe implements Callable<Integer> {
        @Option(names = "--samples", paramLabel = "N", description = "Overhead samples per side (default: ${DEFAULT-VALUE}).")
        int samples = 21;

        @Option(names = "--warmup", paramLabel = "W", description = "Untimed overhead pairs first (default: ${DEFAULT-VALUE}).")
        int warmup = 5;

        @Option(names = "--repeat", paramLabel = "K", description = "Probe runs per bytecode phase (default: ${DEFAULT-VALUE}).")
        int repeat = 5;

        @Option(names = "--cpus", paramLabel = "LIST", description = "CPUs for the bytecode case (default: ${DEFAULT-VALUE}).")
        String cpus = "0";

        @Option(names = "--skip-bytecode", description = "Only measure the probe overhead.")
        boolean skipBytecode;

        @Option(names = "--sweep", description = "Instead: the SDK's server and two npm servers at 2, 1 and 0.5 CPUs in one"
                + " quota group, before/after precompile, with the quota's CPU time per wall second (ProbeSweepBenchmark).")
        boolean sweep;

        @Option(names = "--shares", paramLabel = "LIST", split = ",",
                description = "With --sweep: the CPU shares (default: ${DEFAULT-VALUE}).")
        List<Double> shares = List.of(2.0, 1.0, 0.5);

        @Mixin
        JsonOption json;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter err = spec.commandLine().getErr();
            java.util.function.Consumer<String> progress = line -> {
                if (!json.enabled()) {
                    err.println("kiln bench probe: " + line);
                    err.flush();
                }
            };
            ObjectNode out = sweep
                    ? ProbeSweepBenchmark.run(new ProbeSweepBenchmark.Options(shares, repeat, 3, null, progress))
                    : new ProbeBenchmark(samples, warmup, repeat, cpus, skipBytecode, progress).run();
            print(spec, json, out);
            return 0;
        }
    }

    @Command(name = "remote", mixinStandardHelpOptions = true,
            description = {"Measure attaching to a daemon over loopback HTTP against embedding the engine: first state,",
                "state bytes with and without gzip, edit-to-view latency remote vs embedded, SSE delta bytes at 1k and N",
                "contracts. Prints one JSON object."})
    static final class Remote implements Callable<Integer> {
        @Option(names = "--contracts", paramLabel = "N", description = "Contracts of the demo workspace (default: ${DEFAULT-VALUE}).")
        int contracts = RemoteBenchmark.DEFAULT_CONTRACTS;

        @Option(names = "--edits", paramLabel = "E", description = "Measured edits per engine (default: ${DEFAULT-VALUE}).")
        int edits = 30;

        @Option(names = "--attaches", paramLabel = "A", description = "Measured attaches (default: ${DEFAULT-VALUE}).")
        int attaches = 5;

        @Mixin
        JsonOption json;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            if (contracts < 1_000 || edits < 1 || attaches < 1) {
                throw new CliException("--contracts must be at least 1000, --edits and --attaches positive");
            }
            print(spec, json, new RemoteBenchmark(contracts, edits, attaches).run());
            return 0;
        }
    }

    @Command(name = "metrics", mixinStandardHelpOptions = true,
            header = "Daemon: cost of a /metrics scrape; ticks quiet vs scraped.",
            description = {"Run a real projector daemon on a temp workspace and measure one GET /metrics (median ms, bytes),",
                "and the loop's one-file change tick with nothing scraping vs during 10 scrapes/s (alternating blocks).",
                "Prints one JSON object."})
    static final class Metrics implements Callable<Integer> {
        @Option(names = "--contracts", paramLabel = "N", description = "Contracts of the workspace (default: ${DEFAULT-VALUE}).")
        int contracts = MetricsBenchmark.DEFAULT_CONTRACTS;

        @Option(names = "--scrapes", paramLabel = "N", description = "Timed scrapes; median reported (default: ${DEFAULT-VALUE}).")
        int scrapes = 101;

        @Option(names = "--edits", paramLabel = "N", description = "Change ticks per block (default: ${DEFAULT-VALUE}).")
        int edits = 15;

        @Option(names = "--blocks", paramLabel = "B", description = "Blocks of each condition, alternating (default: ${DEFAULT-VALUE}).")
        int blocks = 3;

        @Mixin
        JsonOption json;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            if (contracts < 10 || scrapes < 1 || edits < 1 || blocks < 1) {
                throw new CliException("every count must be positive (contracts at least 10)");
            }
            print(spec, json, new MetricsBenchmark(contracts, scrapes, edits, blocks).run());
            return 0;
        }
    }
}
