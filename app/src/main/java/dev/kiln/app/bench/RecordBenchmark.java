package dev.kiln.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.core.Kiln;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.recording.Recorder;
import dev.kiln.core.recording.Recording;
import dev.kiln.core.recording.ReplayEngine;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.workspace.FileTrees;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kiln bench record}: what a recording of an hour costs. A demo workspace of {@code --contracts} is projected
 * by its real projector; each simulated second one contract is edited on disk and the projector runs the
 * incremental tick a daemon runs for that change, so the frames (the delta of the edit, the tick) are the ones the
 * projection really produces; they reach the real {@link Recorder} through the engine's frame feed, stamped by a
 * simulated clock that advances one second per edit (an hour in minutes). Then the file is opened, sought at random
 * and replayed at 60x in the console headless (Monocle), timing the gaps between FX pulses.
 */
@Command(name = "record", mixinStandardHelpOptions = true,
        header = "Recordings: bytes per hour, open, seek, FX stalls while replaying at 60x.",
        description = {"Record --seconds simulated seconds (one edit and one real incremental tick each, on a simulated",
            "clock) of a demo workspace of --contracts through the real recorder; report the file's size per hour, the time",
            "to open it, the p95 of random seeks, and the longest FX pulse gap while the console replays it at 60x",
            "(headless, Monocle). Prints one JSON object."})
public final class RecordBenchmark implements Callable<Integer> {
    @Option(names = "--contracts", paramLabel = "N", description = "Contracts (default: ${DEFAULT-VALUE}).")
    int contracts = 10_000;

    @Option(names = "--seconds", paramLabel = "S", description = "Simulated seconds recorded, one edit each (default: ${DEFAULT-VALUE}: an hour).")
    int seconds = 3_600;

    @Option(names = "--seeks", paramLabel = "N", description = "Random seeks timed (default: ${DEFAULT-VALUE}).")
    int seeks = 200;

    @Option(names = "--replay-seconds", paramLabel = "S", description = "Wall seconds of replay at 60x timed for FX stalls (default: ${DEFAULT-VALUE}; 0: none).")
    int replaySeconds = 20;

    @Option(names = "--hotspots", description = "After the timed replay, sample the FX thread's stack in late pulses for as long again (stall_hotspots).")
    boolean hotspots;

    @Option(names = "--json", description = "Print compact JSON.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (contracts < 10 || seconds < 60 || seeks < 1 || replaySeconds < 0) {
            throw new CliException("--contracts at least 10, --seconds at least 60, --seeks positive, --replay-seconds not negative");
        }
        Path scratch = Files.createTempDirectory("kiln-bench-record");
        try {
            Map<String, Object> out = run(scratch);
            PrintWriter pw = spec.commandLine().getOut();
            pw.println(Json.render(out, json));
            pw.flush();
            return 0;
        } finally {
            FileTrees.delete(scratch);
        }
    }

    private Map<String, Object> run(Path scratch) throws Exception {
        Path ws = scratch.resolve("ws");
        new DemoWorkspace().write(ws, contracts, 7, false);
        List<Path> files = BenchContracts.valid(ws.resolve("tasks"), 500);
        UiBenchmark.SimulatedClock clock = new UiBenchmark.SimulatedClock(Instant.parse("2026-01-05T09:00:00Z"));
        Path file = scratch.resolve("hour.kilnrec");
        AtomicLong rawBytes = new AtomicLong();
        long stateBytes;
        long started = System.nanoTime();
        try (Kiln kiln = Kiln.open(ws, new EventBus(), clock); Engine engine = kiln.engine()) {
            engine.projection().start(false); // one startup tick; then only the benchmark's ticks
            stateBytes = Files.size(kiln.layout().stateFile());
            try (Recorder rec = Recorder.builder().file(file).clock(clock)
                    .source("local", ws.toString(), ws.toString(), engine.probes().defaultStartupTimeout()).build();
                    AutoCloseable feed = engine.frames((event, data) -> {
                        rawBytes.addAndGet(data.length() + event.length() + 15L);
                        try {
                            rec.frame(event, data);
                        } catch (IOException e) {
                            throw new IllegalStateException(e);
                        }
                    })) {
                awaitFrames(rec, 1);
                for (int s = 0; s < seconds; s++) {
                    clock.advance(Duration.ofSeconds(1));
                    Path f = files.get(s % files.size());
                    BenchContracts.edit(f, "bench record edit " + s);
                    long before = rec.frames();
                    // the tick a daemon runs for one changed contract: incremental, with the change's wake reason
                    kiln.projector().tick(WakeReason.CHANGE, List.of(f));
                    awaitFrames(rec, before + 2); // the delta and the tick, stamped at this simulated second
                }
            }
        }
        double recordSeconds = (System.nanoTime() - started) / 1e9;
        long bytes = Files.size(file);
        double perHour = bytes * 3600.0 / seconds;

        // open: the index of block headers, then the first state shown (its keyframe decoded)
        double[] opens = new double[3];
        for (int i = 0; i < opens.length; i++) {
            long t0 = System.nanoTime();
            try (ReplayEngine r = ReplayEngine.open(file, System::nanoTime)) {
                r.start(false);
                r.snapshot();
            }
            opens[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(opens);
        Recording rec = Recording.open(file);
        // seeks to random times, each until the page's snapshot is built; the baseline: one parse of the state
        // document, what an attaching console does once
        double[] seekMs = new double[seeks];
        Random random = new Random(30);
        try (ReplayEngine r = ReplayEngine.open(file, System::nanoTime)) {
            r.start(false);
            long span = Duration.between(r.start(), r.end()).toMillis();
            for (int i = 0; i < seeks; i++) {
                Instant to = r.start().plusMillis((long) (random.nextDouble() * span));
                long t0 = System.nanoTime();
                r.seek(to);
                int contracts = r.snapshot().contracts().size(); // the snapshot a page reads counts in a seek
                seekMs[i] = (System.nanoTime() - t0) / 1e6;
                if (contracts < 0) {
                    throw new IllegalStateException("a snapshot with a negative size");
                }
            }
        }
        double[] sorted = seekMs.clone();
        Arrays.sort(sorted);
        byte[] doc = Files.readAllBytes(ws.resolve("observer/state.json"));
        ObjectMapper m = new ObjectMapper();
        double[] parse = new double[5];
        for (int i = 0; i < parse.length; i++) {
            long t0 = System.nanoTime();
            m.readTree(doc);
            parse[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(parse);

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("benchmark", "record");
        out.put("contracts", contracts);
        out.put("simulated_seconds", seconds);
        out.put("edits", seconds);
        out.put("frames", rec.frameCount());
        out.put("keyframe_groups", rec.groups().size());
        out.put("recording_bytes", bytes);
        out.put("recording_bytes_per_hour", Math.round(perHour));
        out.put("target_recording_bytes_per_hour", 5_000_000);
        out.put("raw_frame_bytes_per_hour", Math.round(rawBytes.get() * 3600.0 / seconds));
        out.put("compression_ratio", round(rawBytes.get() / (double) bytes, 1));
        out.put("state_document_bytes", stateBytes);
        out.put("open_recording_ms", round(opens[1], 1));
        out.put("target_open_recording_ms", 2_000);
        out.put("seek_ms_p50", round(sorted[sorted.length / 2], 1));
        out.put("seek_ms_p95", round(sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)], 1));
        out.put("seek_ms_max", round(sorted[sorted.length - 1], 1));
        out.put("target_seek_ms_p95", 100);
        out.put("state_parse_ms", round(parse[parse.length / 2], 1));
        out.put("seek_p95_to_state_parse", round(sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]
                / parse[parse.length / 2], 2));
        out.put("record_wall_seconds", round(recordSeconds, 1));
        if (replaySeconds > 0) {
            out.putAll(UiBenchmark.replay(file, 60, replaySeconds, hotspots)); // the one benchmark class that may load JavaFX
            out.put("target_max_fx_stall_ms", 16.0);
        }
        out.put("load_average", loadAverage());
        return out;
    }

    private static void awaitFrames(Recorder rec, long n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (rec.frames() < n) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the recorder did not get frame " + n + " within 60 s");
            }
            Thread.sleep(0, 200_000);
        }
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static double round(double v, int digits) {
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }
}
