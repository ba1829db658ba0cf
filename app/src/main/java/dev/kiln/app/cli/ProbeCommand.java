package dev.kiln.app.cli;

import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import dev.kiln.core.startup.BytecodeMode;
import dev.kiln.core.startup.CpuQuota;
import dev.kiln.core.startup.HandshakeOrder;
import dev.kiln.core.startup.ProbeEvent;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ProbeRuns;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.StartupProbe;
import dev.kiln.core.startup.Sweep;
import dev.kiln.core.startup.SweepReport;
import dev.kiln.core.workspace.Durations;
import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln probe}: starts the configured MCP servers at once and times each one's initialize answer. */
@Command(name = "probe", mixinStandardHelpOptions = true,
        description = {"Start MCP servers all at once, as an agent client does at session start, and time each one's"
            + " initialize answer against its startup timeout.",
            "--cpu-share 0.5 runs them all in one CPU-quota group, like a container's cpus: 0.5;"
            + " --sweep 4,2,1,0.5 [--compare-bytecode] measures the matrix of shares × before/after precompiling.",
            "Exit code 1 when a server did not start (a probe) or the sweep was cancelled (its partial results are kept)."})
final class ProbeCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "CONFIG",
            description = "servers.json (mcpServers), Codex config.toml, or a workspace directory (default: ./servers.json).")
    Path config;

    @Option(names = "--server", paramLabel = "NAME", description = "Probe only this server (repeatable).")
    List<String> servers;

    @Option(names = "--timeout", paramLabel = "S",
            description = "Startup timeout for every server, e.g. 30 or 500ms (default: each server's startup_timeout_sec, else 30s).")
    String timeout;

    @Option(names = "--cpus", paramLabel = "LIST", description = "Pin every server to these CPUs with taskset, e.g. 0 or 0,1.")
    String cpus;

    @Option(names = "--repeat", paramLabel = "K", description = "Run the probe K times for medians (default: ${DEFAULT-VALUE}).")
    int repeat = 1;

    @Option(names = "--cold-bytecode",
            description = "No Python bytecode is usable: empty PYTHONPYCACHEPREFIX per run and PYTHONDONTWRITEBYTECODE=1.")
    boolean coldBytecode;

    @Option(names = "--no-write-bytecode",
            description = "Python servers use only the bytecode their environment ships (PYTHONDONTWRITEBYTECODE=1).")
    boolean noWriteBytecode;

    @Option(names = "--cpu-share", paramLabel = "CPUS",
            description = "Run every server in one CPU-quota group of this many CPUs, e.g. 0.5 (cgroup v2 cpu.max, cgroup v1"
                    + " CFS quota, or systemd-run --user --scope).")
    Double cpuShare;

    @Option(names = "--sweep", paramLabel = "SHARES",
            description = "Probe at each of these CPU shares, e.g. 4,2,1,0.5, and print the matrix (rows servers, columns shares).")
    String sweep;

    @Option(names = "--compare-bytecode",
            description = "With --sweep: each share before (no usable bytecode) and after precompiling each Python server's environment.")
    boolean compareBytecode;

    @Option(names = "--handshake", paramLabel = "ORDER",
            description = "discover-first (default: server/discover of 2026-07-28, then initialize) or initialize-first.")
    String handshake;

    @Mixin
    JsonOption json;

    @Option(names = "--markdown", description = "With --sweep: print the matrix as Markdown (to paste into a pull request).")
    boolean markdown;

    @Option(names = "--csv", description = "With --sweep: print the matrix as CSV, one line per cell.")
    boolean csv;

    @Option(names = "--client", paramLabel = "NAME", description = {"Judge as this client does: codex, claude-code,"
            + " claude-desktop, cursor, vscode, gemini, cline or openai-agents (what counts, its default timeout; without"
            + " CONFIG, that client's config file)."})
    String client;

    @Option(names = "--recommend", description = {"Recommend startup timeouts from a squeezed run: probe at a"
            + " 0.5-CPU share unless --cpu-share or --cpus is given (an unsqueezed run recommends nothing)."})
    boolean recommend;

    @Option(names = "--seeded", arity = "0..1", fallbackValue = "cache", paramLabel = "FORM",
            description = {"Run each npx/uvx server cold (as configured), then against its runtime seed (kiln warm --servers):",
                "cache (default: NPM_CONFIG_CACHE + prefer-offline, UV_CACHE_DIR + UV_OFFLINE) or installed (node ENTRY,"
                    + " the tool's interpreter); prints cold beside seeded."})
    String seeded;

    @Option(names = "--no-save", description = "Do not save the run into the workspace's observer/probes/.")
    boolean noSave;

    @Override
    public Integer call() throws Exception {
        if (coldBytecode && noWriteBytecode) {
            throw new CliException("--cold-bytecode already implies --no-write-bytecode; give one of them");
        }
        if ((json.enabled() ? 1 : 0) + (markdown ? 1 : 0) + (csv ? 1 : 0) > 1) {
            throw new CliException("give one of --json, --markdown, --csv");
        }
        if (sweep == null && (compareBytecode || markdown || csv)) {
            throw new CliException((compareBytecode ? "--compare-bytecode" : markdown ? "--markdown" : "--csv")
                    + " belongs to a sweep: add --sweep 4,2,1,0.5 (or use --cold-bytecode for one probe without bytecode)");
        }
        if (sweep != null && (cpuShare != null || coldBytecode || noWriteBytecode || cpus != null)) {
            throw new CliException("--sweep sets the CPU share and bytecode of each column itself: drop --cpu-share,"
                    + " --cpus, --cold-bytecode and --no-write-bytecode");
        }
        HandshakeOrder order = handshake == null ? HandshakeOrder.DISCOVER_FIRST : HandshakeOrder.parse(handshake);
        dev.kiln.core.startup.ClientProfile profile;
        try {
            profile = client == null ? null : dev.kiln.core.startup.ClientProfile.parse(client);
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage());
        }
        if (profile != null && config == null) {
            config = profile.findConfig(Path.of(System.getProperty("user.home")), Path.of("").toAbsolutePath())
                    .orElseThrow(() -> new CliException(profile.label() + " keeps its servers in " + (profile.configs().isEmpty()
                            ? "code, not a file" : String.join(" or ", profile.configs())) + ": none found; name the config"));
        }
        Path file = ServerArgs.configFile(config);
        List<ServerConfig> chosen = ServerArgs.select(ServerArgs.read(file), servers, file);
        if (sweep != null) {
            return sweep(file, chosen, order);
        }
        StartupProbe.Builder b = StartupProbe.builder().repeat(repeat)
                .bytecode(coldBytecode ? BytecodeMode.COLD : noWriteBytecode ? BytecodeMode.NO_WRITE : BytecodeMode.AS_IS);
        if (timeout != null) {
            b.timeout(Durations.parse(timeout));
        } else if (profile != null && profile.defaultTimeout().isPresent()) {
            b.timeout(profile.defaultTimeout().get());
        }
        if (cpus != null) {
            b.cpus(cpus);
        }
        if (cpuShare != null) {
            b.cpuShare(cpuShare);
        } else if (recommend && cpus == null) {
            b.cpuShare(ProbeReport.RECOMMEND_SHARE);
        }
        b.handshake(order);
        if (!json.enabled()) {
            b.events(e -> {
                if (e instanceof ProbeEvent.Finished || e instanceof ProbeEvent.RunStarted) {
                    System.err.println("  " + e.summary());
                }
            });
        }
        if (seeded != null) {
            return SeededProbe.run(b.build(), file, chosen, seeded, json.enabled());
        }
        ProbeReport report;
        try {
            report = b.build().run(chosen);
        } catch (IllegalStateException e) { // includes CpuQuota.QuotaException: no mechanism, no rights
            throw new CliException(e.getMessage(), e);
        }
        Path previous = previousRun(file);
        Path saved = noSave ? null : save(file, report);
        if (json.enabled()) {
            System.out.println(Json.compact(report.toJson()));
        } else {
            print(report, saved);
            if (profile != null) {
                System.out.println();
                System.out.print(profile.verdicts(report));
            }
            if (previous != null) {
                printChanges(previous, report);
            }
        }
        return report.failed() == 0 ? 0 : 1;
    }

    private static void print(ProbeReport report, Path saved) {
        System.out.println();
        System.out.print(report.table());
        System.out.println();
        ProbeReport.ServerSummary slowest = report.slowest();
        System.out.printf("slowest: %s  over timeout: %d  failed: %d  margin (timeout / slowest): %s%n",
                slowest == null ? "-" : slowest.name() + " " + Math.round(slowest.initializeMsMax()) + " ms",
                report.overTimeout(), report.failed(),
                slowest == null ? "-" : String.format(java.util.Locale.ROOT, "%.1fx",
                        slowest.representative().timeoutMs() / slowest.initializeMsMax()));
        if (report.cpuLimit() != null) {
            ProbeReport.CpuLimit c = report.cpuLimit();
            System.out.println("CPU share: " + c.description() + (c.cpuPerWall() == null ? ""
                    : String.format(java.util.Locale.ROOT, "; the group used %.2f CPU-seconds per wall second", c.cpuPerWall())));
        }
        System.out.println();
        System.out.print(report.whereTheTimeGoes());
        System.out.println();
        System.out.print(report.clientConfigLines());
        if (saved != null) {
            System.out.println();
            System.out.println("saved: " + saved);
        }
    }

    /**
     * The sweep. Ctrl-C (SIGINT/SIGTERM) interrupts it: the column being measured is dropped, the columns before it are
     * printed and saved, marked partial, before the JVM exits.
     */
    private int sweep(Path file, List<ServerConfig> chosen, HandshakeOrder order) throws Exception {
        Sweep.Builder b = Sweep.builder().shares(Sweep.Builder.parseShares(sweep)).compareBytecode(compareBytecode)
                .repeat(repeat).handshake(order);
        if (timeout != null) {
            b.timeout(Durations.parse(timeout));
        }
        boolean quiet = json.enabled() || markdown || csv;
        b.progress(line -> {
            if (!quiet) {
                System.err.println("  " + line);
            }
        });
        Thread main = Thread.currentThread();
        Sweep running = b.build();
        java.util.concurrent.CountDownLatch saved = new java.util.concurrent.CountDownLatch(1);
        Thread hook = new Thread(() -> {
            running.cancel();
            main.interrupt();
            try {
                saved.await(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }, "kiln-sweep-cancel");
        Runtime.getRuntime().addShutdownHook(hook);
        SweepReport report;
        try {
            try {
                report = running.run(chosen);
            } catch (CpuQuota.QuotaException e) {
                throw new CliException(e.getMessage(), e);
            }
            Thread.interrupted(); // a cancel is now in the report; printing and saving must not be interrupted
            Path saved0 = noSave ? null : saveSweep(file, report);
            if (json.enabled()) {
                System.out.println(Json.pretty(report.toJson()));
            } else if (markdown) {
                System.out.print(report.markdown());
            } else if (csv) {
                System.out.print(report.csv());
            } else {
                System.out.println();
                System.out.print(report.text());
                if (saved0 != null) {
                    System.out.println();
                    System.out.println("saved: " + saved0);
                }
            }
            System.out.flush();
        } finally {
            saved.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is what is waiting for us
            }
        }
        return report.partial() ? 1 : 0;
    }

    private static Path saveSweep(Path configFile, SweepReport report) {
        WorkspaceLayout ws = WorkspaceLayout.of(configFile.getParent());
        if (!ws.isWorkspace()) {
            return null;
        }
        try {
            return ProbeRuns.saveSweep(ws, report);
        } catch (WorkspaceException e) {
            System.err.println("kiln: " + e.getMessage());
            return null;
        }
    }

    private static Path previousRun(Path configFile) {
        WorkspaceLayout ws = WorkspaceLayout.of(configFile.getParent());
        if (!ws.isWorkspace()) {
            return null;
        }
        List<Path> runs = ProbeRuns.list(ws);
        return runs.isEmpty() ? null : runs.get(0);
    }

    private static void printChanges(Path previous, ProbeReport report) {
        List<ProbeRuns.Change> changes;
        try {
            changes = ProbeRuns.compare(ProbeRuns.read(previous), report);
        } catch (WorkspaceException e) {
            System.err.println("kiln: " + e.getMessage());
            return;
        }
        System.out.println("vs the previous run (" + previous.getFileName() + "), median initialize:");
        for (ProbeRuns.Change c : changes) {
            System.out.println(String.format(java.util.Locale.ROOT, "  %-22s %10s → %-10s %s", c.server(), ms(c.beforeMs()),
                    ms(c.afterMs()), c.ratio() == null ? "" : String.format(java.util.Locale.ROOT, "%+.0f%%", (c.ratio() - 1) * 100)));
        }
    }

    private static String ms(Double v) {
        return v == null ? "-" : Math.round(v) + " ms";
    }

    /** Saves the run into the workspace the config belongs to, for the console to compare; elsewhere, nothing. */
    private static Path save(Path configFile, ProbeReport report) {
        WorkspaceLayout ws = WorkspaceLayout.of(configFile.getParent());
        if (!ws.isWorkspace()) {
            return null;
        }
        try {
            return ProbeRuns.save(ws, report);
        } catch (WorkspaceException e) {
            System.err.println("kiln: " + e.getMessage());
            return null;
        }
    }
}
