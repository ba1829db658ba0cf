package dev.kiln.app.bench;

import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.fleet.FleetActions;
import dev.kiln.core.workspace.FileTrees;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kiln bench fleet}: the Fleet page and fleet-wide actions at fleet size. {@code --daemons} daemons on loopback
 * in one child JVM ({@link FleetHosts}: stand-ins for other hosts, apart from the console's JVM), each on its own port
 * over its own small demo workspace, listed in a daemon list: a probe of each one's
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
        description = {"Start --daemons kiln serve daemons in one child JVM on loopback (each its own port and demo workspace),",
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

    @Option(names = "--hosts-nice", paramLabel = "N", description = {"The daemons' JVM runs at this nice value (default: ${DEFAULT-VALUE};",
        "0: the console's own). They stand in for other hosts: a real fleet's daemons spend no CPU on the console's",
        "machine, and here they share its cores."})
    int hostsNice = 19;

    @Option(names = "--json", description = "Print compact JSON.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (daemons < 2 || probeDaemons < 1 || probeDaemons >= daemons || seconds < 1 || hostsNice < 0 || hostsNice > 19) {
            throw new CliException("--daemons must be at least 2, --probe-daemons from 1 to fewer than --daemons, --seconds positive,"
                    + " --hosts-nice from 0 to 19");
        }
        Path scratch = Files.createTempDirectory("kiln-bench-fleet");
        try (Hosts hosts = Hosts.start(scratch, daemons, hostsNice)) {
            long started = System.nanoTime();
            List<DaemonEntry> entries = hosts.entries();
            Path list = scratch.resolve("config").resolve(DaemonList.FILE);
            DaemonList.update(list, l -> DaemonList.of(entries));

            // One daemon's probe, then ten at once: the same three demo servers on each host, first runs all.
            FleetActions actions = FleetActions.builder().concurrency(probeDaemons).build();
            long single = probe(actions, entries.subList(daemons - 1, daemons));
            long fleet = probe(actions, entries.subList(1, 1 + probeDaemons));

            Map<String, Object> figures = dev.kiln.app.bench.fx.FleetLoad.run(new dev.kiln.app.bench.fx.FleetLoad.Options(list,
                    scratch.resolve("ws-01"), seconds, entries.get(0).name(), () -> hosts.tell("stop", 0), () -> hosts.tell("start", 0),
                    hotspots));

            Map<String, Object> out = new LinkedHashMap<>();
            out.put("benchmark", "fleet");
            out.put("daemons", daemons);
            out.put("daemons_process", "one child JVM (stand-ins for other hosts)");
            out.put("hosts_nice", hostsNice);
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

    /**
     * The daemons, in one child JVM ({@link FleetHosts}) apart from the console: a real fleet's daemons run on other
     * hosts, and in this JVM their ticks, answers and collections paused the FX thread being timed. Same Java, same
     * module path, its own heap, at {@code --hosts-nice}: on a real fleet their CPU is not the console machine's.
     */
    private static final class Hosts implements AutoCloseable {
        private final Process process;
        private final BufferedReader said;
        private final PrintWriter tell;
        private final List<DaemonEntry> entries = new ArrayList<>();
        private final Path log;

        private Hosts(Process process, Path log) {
            this.process = process;
            this.log = log;
            this.said = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            this.tell = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
        }

        static Hosts start(Path scratch, int daemons, int nice) throws IOException {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            String modulePath = System.getProperty("jdk.module.path");
            List<String> cmd = new ArrayList<>();
            if (nice > 0) {
                cmd.addAll(List.of("nice", "-n", Integer.toString(nice)));
            }
            cmd.addAll(List.of(java, "-Xmx768m"));
            Module app = FleetHosts.class.getModule();
            if (app.isNamed()) {
                // ./kiln runs on a module path; the installed image has the modules linked into its runtime
                if (modulePath != null && !modulePath.isEmpty()) {
                    cmd.addAll(List.of("--module-path", modulePath));
                }
                cmd.addAll(List.of("-m", app.getName() + "/" + FleetHosts.class.getName()));
            } else {
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), FleetHosts.class.getName()));
            }
            cmd.addAll(List.of(scratch.toString(), Integer.toString(daemons)));
            Path log = scratch.resolve("hosts.log");
            Hosts h = new Hosts(new ProcessBuilder(cmd).redirectError(log.toFile()).start(), log);
            try {
                for (String line; !(line = h.next()).equals("ready"); ) {
                    String[] w = line.split(" ");
                    if (!w[0].equals("daemon") || w.length != 4) {
                        throw new IllegalStateException("the fleet's hosts said: " + line);
                    }
                    h.entries.add(new DaemonEntry(String.format("fleet-%02d", Integer.parseInt(w[1])), URI.create(w[2]),
                            Optional.of(Path.of(w[3])), Optional.empty()));
                }
            } catch (RuntimeException | IOException e) {
                h.close();
                throw e;
            }
            return h;
        }

        List<DaemonEntry> entries() {
            return List.copyOf(entries);
        }

        /** Stops or starts daemon {@code i} and returns once it has. */
        void tell(String what, int i) {
            tell.println(what + " " + i);
            try {
                String line = next();
                if (!line.equals((what.equals("stop") ? "stopped " : "started ") + i)) {
                    throw new IllegalStateException("the fleet's hosts, told to " + what + " daemon " + i + ", said: " + line);
                }
            } catch (IOException e) {
                throw new IllegalStateException("the fleet's hosts: " + e.getMessage(), e);
            }
        }

        private String next() throws IOException {
            String line = said.readLine();
            if (line == null) {
                throw new IOException("the fleet's hosts (a child JVM) ended; see " + log);
            }
            return line;
        }

        @Override
        public void close() {
            tell.close(); // end of input: the hosts stop their daemons and exit
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
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
