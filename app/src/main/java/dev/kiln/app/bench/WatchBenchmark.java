package dev.kiln.app.bench;

import static dev.kiln.core.telemetry.Figures.median;
import static dev.kiln.core.telemetry.Figures.percentile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.Json;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.telemetry.Figures;
import dev.kiln.core.workspace.FileTrees;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code kiln bench watch}: a real daemon on a temp workspace, measured from the outside.
 *
 * <ul>
 *   <li>{@code idle_projections_20s}: projections in the first 20 s with nothing changing (startup included).
 *   <li>{@code change_to_state_ms_p50/_p95}: from writing one contract to the SSE delta that carries it, over 20
 *       single-file edits spaced past the minimum interval.
 *   <li>{@code burst_1000_edits_projections}: projections caused by 1,000 edits written as fast as possible.
 *   <li>On a bigger workspace, in process: a whole tick after a one-file edit, full enumeration vs the incremental
 *       step (median of rounds), and the snapshot step alone — the ratio is the point.
 * </ul>
 */
final class WatchBenchmark {
    private static final ObjectMapper MAPPER = Json.MAPPER;
    private static final int WARM_UP_ROUNDS = 3;

    private WatchBenchmark() {
    }

    /**
     * Runs it.
     *
     * @param contracts contracts of the daemon's workspace (2,000 by default)
     * @param bigContracts contracts of the full-vs-incremental workspace (10,000 by default)
     * @param idle idle observation (20 s by default)
     * @param edits single-file edits timed (20 by default)
     * @param burst edits of the burst (1,000 by default)
     * @param rounds rounds of the full-vs-incremental comparison
     */
    static ObjectNode run(int contracts, int bigContracts, Duration idle, int edits, int burst, int rounds)
            throws Exception {
        Path tmp = Files.createTempDirectory("kiln-bench-watch");
        try {
            ObjectNode out = MAPPER.createObjectNode();
            out.put("contracts", contracts);
            daemonFigures(tmp.resolve("ws"), contracts, idle, edits, burst, out);
            tickFigures(tmp.resolve("big"), bigContracts, rounds, out);
            return out;
        } finally {
            FileTrees.delete(tmp);
        }
    }

    private static void daemonFigures(Path ws, int contracts, Duration idle, int edits, int burst, ObjectNode out)
            throws Exception {
        new DemoWorkspace().write(ws, contracts, 7, false);
        WorkspaceLayout layout = WorkspaceLayout.of(ws);
        List<Path> files = BenchContracts.valid(layout.tasksDir(), Integer.MAX_VALUE);
        long t0 = System.nanoTime();
        try (ProjectionDaemon d = ProjectionDaemon.builder(layout).port(0).start()) {
            d.awaitFirstProjection(Duration.ofMinutes(2));
            out.put("watch", d.watchStatus().mode());
            out.put("watched_directories", d.watchStatus().watchedDirectories());
            out.put("inotify_limit", d.watchStatus().inotifyLimit());
            sleepUntil(t0 + idle.toNanos());
            out.put("idle_projections_" + idle.toSeconds() + "s", d.metrics().projections());

            try (BenchSse sse = new BenchSse(d.url())) {
                sse.next(Duration.ofSeconds(30)); // the snapshot
                List<Double> latencies = new ArrayList<>();
                for (int i = 0; i < edits; i++) {
                    Thread.sleep(1_200); // past the minimum spacing: measures the settle path, not the spacing
                    Path f = files.get(i % files.size());
                    String leaf = layout.tasksDir().relativize(f.getParent()).toString();
                    byte[] content = BenchContracts.edited(f, "latency edit " + i);
                    long start = System.nanoTime();
                    Files.write(f, content);
                    while (true) {
                        JsonNode e = sse.next(Duration.ofSeconds(30));
                        if (e == null) {
                            throw new IllegalStateException("no delta for " + leaf + " within 30 s");
                        }
                        if (e.path("changed").has(leaf)) {
                            break;
                        }
                    }
                    latencies.add((System.nanoTime() - start) / 1e6);
                }
                out.put("change_to_state_ms_p50", round(percentile(latencies, 50)));
                out.put("change_to_state_ms_p95", round(percentile(latencies, 95)));
            }

            Thread.sleep(1_500);
            List<byte[]> contents = new ArrayList<>(burst);
            for (int i = 0; i < burst; i++) {
                contents.add(BenchContracts.edited(files.get(i % files.size()), "burst edit " + i));
            }
            long before = d.metrics().projections();
            long start = System.nanoTime();
            for (int i = 0; i < burst; i++) {
                Files.write(files.get(i % files.size()), contents.get(i));
            }
            double burstMs = (System.nanoTime() - start) / 1e6;
            Thread.sleep(3_000); // settle + spacing: every projection the burst causes has run
            out.put("burst_" + burst + "_edits_projections", d.metrics().projections() - before);
            out.put("burst_write_ms", round(burstMs));
            out.put("watch_after", d.watchStatus().mode());
        }
    }

    private static void tickFigures(Path ws, int contracts, int rounds, ObjectNode out) throws IOException {
        new DemoWorkspace().write(ws, contracts, 11, false);
        WorkspaceLayout layout = WorkspaceLayout.of(ws);
        List<Path> files = BenchContracts.valid(layout.tasksDir(), Integer.MAX_VALUE);
        Projector p = Projector.builder(layout).build();
        p.tick(WakeReason.STARTUP);
        p.flush();
        // Warm-up rounds, unmeasured, for both: a daemon runs warm (compiled code; the index the first apply builds).
        int warm = WARM_UP_ROUNDS;
        measure(p, files, warm, 0, false);
        double[][] full = measure(p, files, rounds, warm, false);
        measure(p, files, warm, warm + rounds, true);
        double[][] inc = measure(p, files, rounds, 2 * warm + rounds, true);
        out.put("big_contracts", contracts);
        out.put("full_tick_ms", round(median(full[0])));
        out.put("incremental_tick_ms", round(median(inc[0])));
        out.put("tick_ratio", round(median(full[0]) / median(inc[0])));
        out.put("full_snapshot_ms", round(median(full[1])));
        out.put("incremental_snapshot_ms", round(median(inc[1])));
        out.put("snapshot_ratio", round(median(full[1]) / median(inc[1])));
        // Not in the tick: the fsync that makes the new document durable runs behind it (see the projector's flush)
        out.put("sync_wait_ms", round(median(inc[2])));
        out.put("tick_ratio_with_sync", round((median(full[0]) + median(full[2])) / (median(inc[0]) + median(inc[2]))));
        out.put("rounds", rounds);
    }

    /**
     * Edits one file per round and ticks with the given step: [tick ms][snapshot ms][ms waiting for the document's
     * background sync, after the tick] per round. Waiting there keeps one round's sync out of the next round's tick.
     */
    private static double[][] measure(Projector p, List<Path> files, int rounds, int offset,
            boolean incremental)
            throws IOException {
        double[][] r = new double[3][rounds];
        for (int i = 0; i < rounds; i++) {
            Path f = files.get((offset + i) * 7 % files.size());
            BenchContracts.edit(f, "tick edit " + (offset + i));
            TickResult t = incremental ? p.tick(WakeReason.CHANGE, Set.of(f)) : p.tick(WakeReason.CHANGE);
            r[0][i] = t.durationMillis();
            r[1][i] = t.stats().buildMillis();
            long s0 = System.nanoTime();
            p.flush();
            r[2][i] = (System.nanoTime() - s0) / 1e6;
        }
        return r;
    }




    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private static double round(double v) {
        return Figures.round(v, 2);
    }
}
