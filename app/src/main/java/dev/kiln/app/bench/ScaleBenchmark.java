package dev.kiln.app.bench;

import static dev.kiln.core.telemetry.Figures.median;
import static dev.kiln.core.telemetry.Figures.percentile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.Json;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.snapshot.SnapshotBuilder;
import dev.kiln.core.telemetry.Figures;
import dev.kiln.core.watch.ChangeDomain;
import dev.kiln.core.watch.ChangeWatcher;
import dev.kiln.core.watch.WatchStatus;
import dev.kiln.core.workspace.FileTrees;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code kiln bench scale}: one host, a demo workspace of N contracts ({@code kiln demo DIR --contracts N}), and the
 * same figures at N/10 so the growth per 10× shows. Per size, in one run:
 *
 * <ul>
 *   <li>{@code demo_write_ms}: writing the demo workspace;
 *   <li>{@code stat_walk_ms}: the bare stat walk (enumeration and attribute reads, nothing parsed): the floor;
 *   <li>{@code unchanged_tick_ms}: a full tick over an unchanged tree (ratio to the floor; target ≤ 1.5);
 *   <li>{@code incremental_tick_ms}: the watcher's tick after a one-file edit, with the daemon's write policy
 *       (a document above 1 MiB is written behind the tick), the writer idle when it starts;
 *       {@code incremental_tick_ms_with_write}: the same tick while the durable write of the previous revision
 *       runs behind it (edits back to back); {@code durable_write_ms}: from the tick's start until that revision
 *       is durable in {@code observer/state.json} (tick + the background write);
 *   <li>{@code heap_after_gc_mb}: heap used after GC with that projector live (snapshot, parse cache, state);
 *   <li>{@code watch_start_ms}: establishing the watch on the tree (a {@link ChangeWatcher} alone);
 *   <li>{@code change_to_state_ms_p50}: a real daemon; from writing a contract to the SSE delta that carries it;
 *       {@code daemon_heap_after_gc_mb}: the daemon's heap after GC.
 * </ul>
 * Each timed figure is a median over rounds after warm-up rounds. No figure is asserted anywhere.
 */
final class ScaleBenchmark {
    private static final ObjectMapper MAPPER = Json.MAPPER;
    private static final int WARM_UP = 3;
    /** The daemon's write policy, mirrored so the in-process ticks measure what the daemon runs. */
    private static final long WRITE_BEHIND_ABOVE = 1 << 20;
    private static final Duration WRITE_SPACING = Duration.ofMillis(250);
    private static final String[] FIELDS = {"stat_walk_ms", "unchanged_tick_ms", "incremental_tick_ms",
        "incremental_tick_ms_with_write", "durable_write_ms", "change_to_state_ms_p50", "heap_after_gc_mb",
        "daemon_heap_after_gc_mb", "watch_start_ms", "demo_write_ms", "state_bytes"};

    private ScaleBenchmark() {
    }

    /**
     * Runs it.
     *
     * @param contracts the size measured (100,000 for the figures)
     * @param compare a second, smaller size for the growth ratios; 0 for none
     * @param rounds measured rounds per timed figure
     * @param edits timed edits through the daemon
     */
    static ObjectNode run(int contracts, int compare, int rounds, int edits) throws Exception {
        ObjectNode out = MAPPER.createObjectNode();
        out.put("benchmark", "scale");
        out.put("max_heap_mb", round(Runtime.getRuntime().maxMemory() / 1048576.0));
        out.put("inotify_max_user_watches", readLimit());
        ObjectNode small = null;
        if (compare > 0) {
            small = size(compare, rounds, edits);
        }
        ObjectNode big = size(contracts, rounds, edits);
        out.setAll(big);
        if (small != null) {
            out.set("at_" + compare, small);
            ObjectNode growth = out.putObject("growth_per_10x");
            double steps = Math.log10((double) contracts / compare);
            for (String f : FIELDS) {
                if (big.has(f) && small.has(f) && small.get(f).asDouble() > 0) {
                    growth.put(f, round(Math.pow(big.get(f).asDouble() / small.get(f).asDouble(), 1 / steps)));
                }
            }
        }
        ObjectNode targets = out.putObject("targets");
        targets.put("unchanged_over_stat_walk_max", 1.5);
        targets.put("incremental_tick_ms_max", 10.0);
        return out;
    }

    private static ObjectNode size(int contracts, int rounds, int edits) throws Exception {
        Path tmp = Files.createTempDirectory("kiln-bench-scale-");
        try {
            ObjectNode o = MAPPER.createObjectNode();
            o.put("contracts", contracts);
            Path ws = tmp.resolve("ws");
            long d0 = System.nanoTime();
            new DemoWorkspace().write(ws, contracts, 17, false);
            o.put("demo_write_ms", round((System.nanoTime() - d0) / 1e6));
            WorkspaceLayout layout = WorkspaceLayout.of(ws);
            List<Path> files = BenchContracts.valid(layout.tasksDir(), 5_000);
            ticks(layout, files, rounds, o);
            watchStart(layout, o);
            daemon(layout, files, edits, o);
            return o;
        } finally {
            FileTrees.delete(tmp);
        }
    }

    private static void ticks(WorkspaceLayout layout, List<Path> files, int rounds, ObjectNode o) throws IOException {
        Projector p = Projector.builder(layout).writeBehind(WRITE_BEHIND_ABOVE, WRITE_SPACING).build();
        long c0 = System.nanoTime();
        p.tick(WakeReason.STARTUP);
        o.put("cold_tick_ms", round((System.nanoTime() - c0) / 1e6));
        p.flush();
        SnapshotBuilder bare = new SnapshotBuilder(layout.tasksDir());
        double[] walk = new double[rounds];
        double[] unchanged = new double[rounds];
        for (int i = -WARM_UP; i < rounds; i++) {
            long w0 = System.nanoTime();
            bare.statWalk();
            long w = System.nanoTime() - w0;
            TickResult u = p.tick(WakeReason.HEARTBEAT);
            if (i >= 0) {
                walk[i] = w / 1e6;
                unchanged[i] = u.durationMillis();
            }
        }
        o.put("stat_walk_ms", round(median(walk)));
        o.put("unchanged_tick_ms", round(median(unchanged)));
        o.put("unchanged_over_stat_walk", round(median(unchanged) / median(walk)));

        double[] idle = new double[rounds];
        double[] durable = new double[rounds];
        double[] busy = new double[rounds];
        int k = 0;
        for (int i = -WARM_UP; i < rounds; i++) {
            // the writer idle: the last revision is on disk before the edit
            p.flush();
            Path f = files.get(k++ * 7919 % files.size());
            BenchContracts.edit(f, "scale edit " + k);
            TickResult t = p.tick(WakeReason.CHANGE, Set.of(f));
            long tickEnd = System.nanoTime();
            p.flush(); // returns once this revision is durable in state.json
            if (i >= 0) {
                idle[i] = t.durationMillis();
                durable[i] = t.durationMillis() + (System.nanoTime() - tickEnd) / 1e6;
            }
            // back to back: this tick runs while the previous revision's durable write runs behind it
            Path g = files.get(k++ * 7919 % files.size());
            BenchContracts.edit(g, "scale edit " + k);
            p.tick(WakeReason.CHANGE, Set.of(g));
            Path h = files.get(k++ * 7919 % files.size());
            BenchContracts.edit(h, "scale edit " + k);
            TickResult b = p.tick(WakeReason.CHANGE, Set.of(h));
            if (i >= 0) {
                busy[i] = b.durationMillis();
            }
        }
        p.flush();
        o.put("incremental_tick_ms", round(median(idle)));
        o.put("incremental_tick_ms_with_write", round(median(busy)));
        o.put("durable_write_ms", round(median(durable)));
        Projector.BehindWrites bw = p.behindWrites();
        o.put("state_written_behind", bw.writes() > 0);
        o.put("state_bytes", p.parts() == null ? 0 : p.parts().length());
        o.put("heap_after_gc_mb", heapAfterGc());
        if (p.lastTick() == null) {
            throw new IllegalStateException("no tick ran");
        }
    }

    private static void watchStart(WorkspaceLayout layout, ObjectNode o) {
        ChangeWatcher.Listener none = new ChangeWatcher.Listener() {
            @Override
            public void onChange(ChangeDomain domain, Path path) {
            }

            @Override
            public void onLive(WatchStatus status) {
            }

            @Override
            public void onDegraded(WatchStatus status) {
            }
        };
        double[] ms = new double[3];
        WatchStatus last = null;
        for (int i = 0; i < ms.length; i++) {
            try (ChangeWatcher w = ChangeWatcher.builder(layout).listener(none).build()) {
                long t0 = System.nanoTime();
                w.start();
                ms[i] = (System.nanoTime() - t0) / 1e6;
                last = w.status();
            }
        }
        o.put("watch_start_ms", round(median(ms)));
        o.put("watch", last.mode());
        o.put("watched_directories", last.watchedDirectories());
        o.put("polled_directories", last.polledDirectories());
        if (!last.reason().isEmpty()) {
            o.put("watch_note", last.reason());
        }
    }

    private static void daemon(WorkspaceLayout layout, List<Path> files, int edits, ObjectNode o) throws Exception {
        try (ProjectionDaemon d = ProjectionDaemon.builder(layout).port(0).start()) {
            d.awaitFirstProjection(Duration.ofMinutes(5));
            try (BenchSse sse = new BenchSse(d.url())) {
                if (sse.next(Duration.ofMinutes(2)) == null) { // the snapshot
                    throw new IllegalStateException("no SSE snapshot within 2 minutes");
                }
                List<Double> latencies = new ArrayList<>();
                for (int i = 0; i < edits; i++) {
                    Thread.sleep(1_200); // past the minimum spacing: the settle path, not the spacing
                    Path f = files.get((i * 31 + 3) % files.size());
                    String leaf = layout.tasksDir().relativize(f.getParent()).toString();
                    byte[] content = BenchContracts.edited(f, "daemon edit " + i);
                    long start = System.nanoTime();
                    Files.write(f, content);
                    while (true) {
                        JsonNode e = sse.next(Duration.ofSeconds(60));
                        if (e == null) {
                            throw new IllegalStateException("no delta for " + leaf + " within 60 s");
                        }
                        if (e.path("changed").has(leaf)) {
                            break;
                        }
                    }
                    latencies.add((System.nanoTime() - start) / 1e6);
                }
                o.put("change_to_state_ms_p50", round(percentile(latencies, 50)));
                o.put("change_to_state_ms_p95", round(percentile(latencies, 95)));
            }
            o.put("daemon_watch", d.watchStatus().toString());
            o.put("daemon_heap_after_gc_mb", heapAfterGc());
        }
    }

    private static double heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        Runtime rt = Runtime.getRuntime();
        return round((rt.totalMemory() - rt.freeMemory()) / 1048576.0);
    }

    private static long readLimit() {
        try {
            return Long.parseLong(Files.readAllLines(Path.of("/proc/sys/fs/inotify/max_user_watches")).get(0).trim());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }




    private static double round(double v) {
        return Figures.round(v, 2);
    }
}
