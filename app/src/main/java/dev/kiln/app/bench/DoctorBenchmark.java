package dev.kiln.app.bench;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.doctor.Diagnosis;
import dev.kiln.core.doctor.Doctor;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.core.workspace.FileTrees;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code kiln bench doctor}: the doctor's time to a verdict on a demo workspace (default 10,000 contracts) against one
 * full unchanged tick of a warm projector over the same tree, measured in the same process and run.
 *
 * <p>The doctor starts cold every time, as {@code kiln doctor} does: a fresh read-only projector with an empty parse
 * cache (every contract parsed), the state document read and parsed, the lock and the process table read, every leaf
 * compared. The baseline is what a running daemon pays for a full enumeration of an unchanged tree. Each figure is
 * the median of {@code rounds} after one warm-up round. Target: {@code ratio} (doctor over tick) at most 2. Also
 * reported: a cold read-only tick alone ({@code cold_readonly_tick_ms}, every contract parsed), the floor of any
 * doctor that starts without a parse cache, and the doctor over it.
 */
public final class DoctorBenchmark {
    /** Contracts in the benchmark's demo workspace by default. */
    public static final int DEFAULT_CONTRACTS = 10_000;
    /** The target for {@code doctor_ms / full_unchanged_tick_ms}. */
    public static final double TARGET_RATIO = 2.0;

    private DoctorBenchmark() {
    }

    /**
     * Writes a demo workspace of {@code contracts} into a temp directory, projects it once, measures, removes it.
     *
     * @return the figures, by their JSON names: {@code doctor_ms}, {@code full_unchanged_tick_ms}, {@code ratio}, …
     */
    public static Map<String, Object> run(int contracts, int rounds) {
        if (contracts < 1 || rounds < 1) {
            throw new IllegalArgumentException("contracts and rounds must be at least 1, got " + contracts + ", " + rounds);
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("kiln-bench-doctor");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temp directory for the benchmark", e);
        }
        try {
            Path ws = dir.resolve("ws");
            new DemoWorkspace().write(ws, contracts, 7, false);
            return measure(WorkspaceLayout.of(ws), rounds);
        } finally {
            try {
                FileTrees.delete(dir);
            } catch (IOException e) {
                System.err.println("kiln: could not remove the benchmark's workspace " + dir + ": " + e.getMessage());
            }
        }
    }

    /** Measures on an existing workspace (projected once here, so the doctor has a document to compare with). */
    static Map<String, Object> measure(WorkspaceLayout layout, int rounds) {
        Projector daemonLike = Projector.builder(layout).build();
        daemonLike.tick(WakeReason.STARTUP);
        try {
            daemonLike.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("the benchmark's state.json could not be synced", e);
        }
        Doctor doctor = Doctor.builder(layout, ServeClient.forDoctor()).waitInFlight(false).build();
        double[] tick = new double[rounds];
        double[] doc = new double[rounds];
        double[] cold = new double[rounds];
        Diagnosis last = null;
        int parsedByTick = 0;
        for (int i = -1; i < rounds; i++) { // round -1 warms up
            long t0 = System.nanoTime();
            TickResult r = daemonLike.tick(WakeReason.MANUAL);
            long t1 = System.nanoTime();
            last = doctor.diagnose();
            long t2 = System.nanoTime();
            Projector.builder(layout).readOnly().build().tick(WakeReason.MANUAL); // the doctor's floor: a cold parse
            long t3 = System.nanoTime();
            if (i >= 0) {
                tick[i] = (t1 - t0) / 1e6;
                doc[i] = (t2 - t1) / 1e6;
                cold[i] = (t3 - t2) / 1e6;
                parsedByTick = Math.max(parsedByTick, r.stats().parsed());
            }
        }
        double tickMs = median(tick);
        double doctorMs = median(doc);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("benchmark", "doctor");
        m.put("contracts", last.contracts());
        m.put("rounds", rounds);
        m.put("doctor_ms", round(doctorMs));
        m.put("full_unchanged_tick_ms", round(tickMs));
        m.put("ratio", round(doctorMs / tickMs));
        m.put("cold_readonly_tick_ms", round(median(cold)));
        m.put("doctor_over_cold_tick", round(doctorMs / median(cold)));
        m.put("target_ratio_max", TARGET_RATIO);
        m.put("verdict", last.verdict().jsonName());
        m.put("tick_parses", parsedByTick);
        return m;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
