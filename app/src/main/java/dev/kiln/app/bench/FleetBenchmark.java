package dev.kiln.app.bench;

import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.fleet.FleetActions;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.workspace.FileTrees;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kiln bench fleet}: the Fleet page and fleet-wide actions at fleet size. {@code --daemons} daemons on loopback
 * in this JVM, each on its own port over its own small demo workspace, listed in a daemon list: a probe of each one's
 * three demo servers on {@code --probe-daemons} daemons at once ({@code fleet_probe_ms}) against the same on one
 * ({@code single_probe_ms}), through each daemon's API as the console runs it; then the console (headless, Monocle)
 * on the Fleet page of the list while it polls them all: its poll cycles ({@code poll_cycle_ms_p95}: one health
 * poll of every daemon, answers on the FX thread), the gaps between FX pulses ({@code max_fx_stall_ms}, target ≤ 16),
 * and how long a daemon stopped and started again on its port takes to be seen up ({@code restart_noticed_ms},
 * target ≤ 5,000).
 *
 * <p>Loads JavaFX only in {@link #call}, through {@code dev.kiln.app.bench.fx.FleetLoad}.
 */
@Command(name = "fleet", mixinStandardHelpOptions = true,
        header = "Fleet: polling 50 daemons, FX stalls meanwhile, a fleet probe against one, a restart noticed.",
        description = {"Start --daemons kiln serve daemons in this JVM on loopback (each its own port and demo workspace),",
            "probe the three demo servers of --probe-daemons of them at once and of one alone, then show the console's",
            "Fleet page over all of them for --seconds, timing its poll cycles and the FX pulses, and stop and restart",
            "one daemon to time how soon the page sees it back. Prints one JSON object."})
public final class FleetBenchmark implements Callable<Integer> {
    @Option(names = "--daemons", paramLabel = "N", description = "Daemons (default: ${DEFAULT-VALUE}).")
    int daemons = 50;

    @Option(names = "--probe-daemons", paramLabel = "N", description = "Daemons of the fleet probe (default: ${DEFAULT-VALUE}).")
    int probeDaemons = 10;

    @Option(names = "--seconds", paramLabel = "S", description = "Seconds of timed polling (default: ${DEFAULT-VALUE}).")
    int seconds = 20;

    @Option(names = "--hotspots", description = {"Then --seconds more of polling, sampling where the FX thread is in late pulses",
        "(stall_hotspots). Apart from the timed window: each sample briefly stops the whole JVM."})
    boolean hotspots;

    @Option(names = "--json", description = "Print compact JSON.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (daemons < 2 || probeDaemons < 1 || probeDaemons >= daemons || seconds < 1) {
            throw new CliException("--daemons must be at least 2, --probe-daemons from 1 to fewer than --daemons, --seconds positive");
        }
        Path scratch = Files.createTempDirectory("kiln-bench-fleet");
        List<ProjectionDaemon> running = new ArrayList<>();
        try {
            long started = System.nanoTime();
            List<DaemonEntry> entries = new ArrayList<>();
            List<WorkspaceLayout> layouts = new ArrayList<>();
            for (int i = 0; i < daemons; i++) {
                Path ws = scratch.resolve(String.format("ws-%02d", i));
                new DemoWorkspace().write(ws, 6, i, false);
                WorkspaceLayout layout = WorkspaceLayout.of(ws);
                ProjectionDaemon d = ProjectionDaemon.builder(layout).port(0).start();
                running.add(d);
                layouts.add(layout);
                entries.add(new DaemonEntry(String.format("fleet-%02d", i), d.url(), java.util.Optional.of(d.tokenFile()),
                        java.util.Optional.empty()));
            }
            for (ProjectionDaemon d : running) {
                d.awaitFirstProjection(Duration.ofSeconds(120));
            }
            Path list = scratch.resolve("config").resolve(DaemonList.FILE);
            DaemonList.update(list, l -> DaemonList.of(entries));

            // One daemon's probe, then ten at once: the same three demo servers on each host, first runs all.
            FleetActions actions = FleetActions.builder().concurrency(probeDaemons).build();
            long single = probe(actions, entries.subList(daemons - 1, daemons));
            long fleet = probe(actions, entries.subList(1, 1 + probeDaemons));

            ProjectionDaemon[] restarted = {running.get(0)};
            int port = restarted[0].port();
            Map<String, Object> figures = dev.kiln.app.bench.fx.FleetLoad.run(new dev.kiln.app.bench.fx.FleetLoad.Options(list,
                    scratch.resolve("ws-01"), seconds, entries.get(0).name(), () -> restarted[0].close(), () -> {
                        restarted[0] = restart(layouts.get(0), port);
                        running.set(0, restarted[0]);
                    }, hotspots));

            Map<String, Object> out = new LinkedHashMap<>();
            out.put("benchmark", "fleet");
            out.put("daemons", daemons);
            out.put("poll_cycle_ms_p95", figures.get("poll_cycle_ms_p95"));
            out.put("max_fx_stall_ms", figures.get("max_fx_stall_ms"));
            out.put("fleet_probe_ms", fleet);
            out.put("single_probe_ms", single);
            out.put("restart_noticed_ms", figures.get("restart_noticed_ms"));
            out.put("probe_daemons", probeDaemons);
            out.put("fleet_to_single_probe_ratio", Math.round(fleet * 100.0 / Math.max(1, single)) / 100.0);
            out.put("poll_cycle_ms_max", figures.get("poll_cycle_ms_max"));
            out.put("poll_cycles", figures.get("poll_cycles"));
            out.put("daemons_up", figures.get("daemons_up"));
            out.put("p99_fx_stall_ms", figures.get("p99_fx_stall_ms"));
            out.put("pulses", figures.get("pulses"));
            out.put("pulses_over_16ms", figures.get("pulses_over_16ms"));
            out.put("down_noticed_ms", figures.get("down_noticed_ms"));
            // the same window idle (polling stopped) for as long, in the same run: the stall is read as a ratio to it
            out.put("baseline_fx_stall_ms", figures.get("baseline_fx_stall_ms"));
            out.put("baseline_p99_fx_stall_ms", figures.get("baseline_p99_fx_stall_ms"));
            out.put("baseline_pulses_over_16ms", figures.get("baseline_pulses_over_16ms"));
            out.put("fx_stall_to_baseline_ratio", figures.get("max_fx_stall_ms") instanceof Double s && figures.get("baseline_fx_stall_ms")
                    instanceof Double b && b > 0 ? Math.round(s / b * 100) / 100.0 : Double.NaN);
            if (hotspots) {
                out.put("max_fx_stall_ms_sampled", figures.get("max_fx_stall_ms_sampled"));
                out.put("stall_hotspots", figures.get("stall_hotspots"));
            }
            out.put("meets_targets", figures.get("max_fx_stall_ms") instanceof Double s && s <= 16.0
                    && figures.get("restart_noticed_ms") instanceof Double r && r <= 5000.0);
            out.put("load_average_1m", loadAverage());
            out.put("wall_seconds", Math.round((System.nanoTime() - started) / 1e8) / 10.0);
            PrintWriter pw = spec.commandLine().getOut();
            pw.println(Json.render(out, json));
            pw.flush();
            return 0;
        } catch (IllegalStateException e) {
            throw new CliException("kiln bench fleet: " + e.getMessage());
        } finally {
            for (ProjectionDaemon d : running) {
                d.close();
            }
            FileTrees.delete(scratch);
        }
    }

    /** A probe on {@code on} at once, in wall milliseconds; every daemon must finish it. */
    private static long probe(FleetActions actions, List<DaemonEntry> on) throws InterruptedException {
        long t0 = System.nanoTime();
        FleetActions.Run run = actions.start(FleetActions.Kind.PROBE, on, r -> { });
        if (!run.await(Duration.ofMinutes(10))) {
            run.cancelAll();
            throw new IllegalStateException("a fleet probe of " + on.size() + " daemons did not end within 10 min");
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        List<FleetActions.Progress> bad = run.progress().stream().filter(p -> p.state() != FleetActions.State.DONE).toList();
        if (!bad.isEmpty()) {
            throw new IllegalStateException("the probe failed on " + bad.stream().map(p -> p.name() + " (" + p.message() + ")").toList());
        }
        return ms;
    }

    /** The same daemon again on its port (which may be held for a moment after its close). */
    private static ProjectionDaemon restart(WorkspaceLayout layout, int port) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return ProjectionDaemon.builder(layout).port(port).start();
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not restart the daemon on port " + port + ": " + e.getMessage(), e);
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(ie);
                }
            }
        }
    }

    private static Object loadAverage() {
        try {
            return Double.valueOf(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
