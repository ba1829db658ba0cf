package dev.kiln.app.bench;

import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.FileTrees;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kiln bench ui}: the console under load, headless (Monocle). While the live projector ticks a
 * 10,000-contract workspace under continuous edits with the Projection page's charts showing, the gaps between FX
 * pulses ({@code max_fx_stall_ms}, target ≤ 16 ms: no frame dropped); then the heap after GC once the console has
 * taken an hour of 1 tick/s on a simulated clock, beside the same after 10 minutes (bounded: the two match).
 *
 * <p>The one benchmark that loads JavaFX, and only when it runs: the toolkit is reached through
 * {@code dev.kiln.app.bench.fx.ConsoleLoad} from {@link #call} alone, never from a field or a signature picocli reflects on.
 */
@Command(name = "ui", mixinStandardHelpOptions = true,
        header = "Console: FX stalls under a busy workspace, heap after a simulated hour.",
        description = {"Open the console headless on a demo workspace of --contracts, projected live under --edits-per-second",
            "for --warmup-seconds (timed apart: the JIT still compiles there), then --seconds, with the Projection charts",
            "showing, and time the gaps between FX pulses (250 Hz); then feed",
            "--ticks of 1 tick/s (an edit each) on a simulated clock through the console's view models and report the",
            "heap after GC at 10 minutes and at the end. Prints one JSON object."})
public final class UiBenchmark implements Callable<Integer> {
    @Option(names = "--contracts", paramLabel = "N", description = "Contracts of the busy workspace (default: ${DEFAULT-VALUE}).")
    int contracts = 10_000;

    @Option(names = "--seconds", paramLabel = "S", description = "Seconds of timed pulses under edits (default: ${DEFAULT-VALUE}).")
    int seconds = 30;

    @Option(names = "--warmup-seconds", paramLabel = "S",
            description = "Seconds of the same edits before, reported apart as *_warmup (default: ${DEFAULT-VALUE}; 0: none).")
    int warmupSeconds = 30;

    @Option(names = "--edits-per-second", paramLabel = "R", description = "Contract edits per second meanwhile (default: ${DEFAULT-VALUE}).")
    int editsPerSecond = 20;

    @Option(names = "--memory-contracts", paramLabel = "N", description = "Contracts of the simulated-hour workspace (default: ${DEFAULT-VALUE}).")
    int memoryContracts = 1_000;

    @Option(names = "--ticks", paramLabel = "N", description = "Simulated seconds of 1 tick/s; 3600 is an hour (default: ${DEFAULT-VALUE}).")
    int ticks = 3600;

    @Option(names = "--hotspots", description = {"Then --seconds more of the same, sampling where the FX thread is in late pulses",
        "(stall_hotspots). Apart from the timed window: each sample briefly stops the whole JVM."})
    boolean hotspots;

    @Option(names = "--json", description = "Print compact JSON.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (contracts < 10 || memoryContracts < 10 || seconds < 1 || editsPerSecond < 1 || ticks < 1 || warmupSeconds < 0) {
            throw new CliException("--contracts and --memory-contracts must be at least 10; --seconds, --edits-per-second and --ticks positive;"
                    + " --warmup-seconds not negative");
        }
        Path scratch = Files.createTempDirectory("kiln-bench-ui");
        try {
            Path busy = scratch.resolve("busy");
            Path quiet = scratch.resolve("quiet");
            new DemoWorkspace().write(busy, contracts, 7, false);
            new DemoWorkspace().write(quiet, memoryContracts, 11, false);
            List<Path> busyFiles = BenchContracts.valid(busy.resolve("tasks"), 500);
            List<Path> quietFiles = BenchContracts.valid(quiet.resolve("tasks"), 200);
            Editor editor = new Editor(busyFiles, editsPerSecond);
            SimulatedClock clock = new SimulatedClock(Instant.parse("2026-01-05T09:00:00Z"));
            int[] edit = {0};
            Runnable eachTick = () -> {
                try {
                    BenchContracts.edit(quietFiles.get(edit[0] % quietFiles.size()), "simulated edit " + edit[0]);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                edit[0]++;
                clock.advance(Duration.ofSeconds(1));
            };
            List<Integer> checkpoints = ticks > 600 ? List.of(600, ticks) : List.of(ticks);
            long started = System.nanoTime();
            Map<String, Object> figures = dev.kiln.app.bench.fx.ConsoleLoad.run(new dev.kiln.app.bench.fx.ConsoleLoad.Options(
                    busy, warmupSeconds, seconds, hotspots, editor::start, editor::stop, quiet, clock, eachTick, checkpoints));
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("benchmark", "ui");
            out.put("contracts", contracts);
            out.put("edits_per_second", editsPerSecond);
            out.put("edits_made", editor.made());
            out.put("seconds", seconds);
            out.putAll(figures);
            out.put("target_max_fx_stall_ms", 16.0);
            out.put("meets_target", figures.get("max_fx_stall_ms") instanceof Double d && d <= 16.0);
            out.put("memory_contracts", memoryContracts);
            Object end = figures.get("heap_after_gc_mb_at_" + ticks + "_ticks");
            out.put("heap_after_gc_mb", end);
            if (checkpoints.size() == 2 && end instanceof Double e && figures.get("heap_after_gc_mb_at_600_ticks") instanceof Double ten) {
                out.put("heap_ratio_end_to_10_min", Math.round(e / ten * 100) / 100.0);
            }
            out.put("wall_seconds", Math.round((System.nanoTime() - started) / 1e8) / 10.0);
            PrintWriter pw = spec.commandLine().getOut();
            pw.println(Json.render(out, json));
            pw.flush();
            return 0;
        } catch (IllegalStateException e) {
            throw new CliException("kiln bench ui: " + e.getMessage());
        } finally {
            FileTrees.delete(scratch);
        }
    }

    /**
     * For {@code kiln bench record}: a recording replayed in the console headless at {@code speed} for {@code seconds},
     * its FX pulse gaps ({@code dev.kiln.app.bench.fx.ReplayLoad}). Here because this is the benchmark class that may load JavaFX.
     */
    static Map<String, Object> replay(Path recording, double speed, int seconds, boolean hotspots) throws Exception {
        return dev.kiln.app.bench.fx.ReplayLoad.run(recording, speed, seconds, hotspots);
    }

    /** Rewrites contracts round-robin at a steady rate on its own thread, as a busy team's edits would. */
    static final class Editor {
        private final List<Path> files;
        private final long periodNanos;
        private final AtomicReference<Thread> thread = new AtomicReference<>();
        private volatile int made;

        Editor(List<Path> files, int perSecond) {
            this.files = files;
            this.periodNanos = 1_000_000_000L / perSecond;
        }

        void start() {
            Thread t = new Thread(this::edit, "kiln-bench-ui-editor");
            t.setDaemon(true);
            thread.set(t);
            t.start();
        }

        void stop() {
            Thread t = thread.get();
            t.interrupt();
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        int made() {
            return made;
        }

        private void edit() {
            long next = System.nanoTime();
            for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
                try {
                    BenchContracts.edit(files.get(i % files.size()), "bench ui edit " + i);
                    made = i + 1;
                    next += periodNanos;
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    /** The simulated hour's clock: moves only when the benchmark moves it. Safe from any thread. */
    static final class SimulatedClock extends Clock {
        private final AtomicReference<Instant> now;

        SimulatedClock(Instant start) {
            now = new AtomicReference<>(start);
        }

        void advance(Duration d) {
            now.updateAndGet(i -> i.plus(d));
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    }
}
