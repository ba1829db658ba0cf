package dev.kiln.app.cli;

import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import dev.kiln.core.startup.BytecodeMode;
import dev.kiln.core.startup.ProbeEvent;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ProbeRuns;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.StartupProbe;
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
            + " initialize answer against its startup timeout.", "Exit code 1 when a server did not start."})
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

    @Mixin
    JsonOption json;

    @Option(names = "--no-save", description = "Do not save the run into the workspace's observer/probes/.")
    boolean noSave;

    @Override
    public Integer call() throws Exception {
        if (coldBytecode && noWriteBytecode) {
            throw new CliException("--cold-bytecode already implies --no-write-bytecode; give one of them");
        }
        Path file = ServerArgs.configFile(config);
        List<ServerConfig> chosen = ServerArgs.select(ServerArgs.read(file), servers, file);
        StartupProbe.Builder b = StartupProbe.builder().repeat(repeat)
                .bytecode(coldBytecode ? BytecodeMode.COLD : noWriteBytecode ? BytecodeMode.NO_WRITE : BytecodeMode.AS_IS);
        if (timeout != null) {
            b.timeout(Durations.parse(timeout));
        }
        if (cpus != null) {
            b.cpus(cpus);
        }
        if (!json.enabled()) {
            b.events(e -> {
                if (e instanceof ProbeEvent.Finished || e instanceof ProbeEvent.RunStarted) {
                    System.err.println("  " + e.summary());
                }
            });
        }
        ProbeReport report;
        try {
            report = b.build().run(chosen);
        } catch (IllegalStateException e) {
            throw new CliException(e.getMessage(), e);
        }
        Path previous = previousRun(file);
        Path saved = noSave ? null : save(file, report);
        if (json.enabled()) {
            System.out.println(Json.compact(report.toJson()));
        } else {
            print(report, saved);
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
        System.out.println();
        System.out.print(report.clientConfigLines());
        if (saved != null) {
            System.out.println();
            System.out.println("saved: " + saved);
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
            changes = ProbeRuns.compare(ProbeRuns.load(previous), report);
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
