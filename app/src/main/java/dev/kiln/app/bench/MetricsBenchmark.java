package dev.kiln.app.bench;

import static dev.kiln.core.telemetry.Figures.median;
import static dev.kiln.core.telemetry.Figures.percentile;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.Json;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.projection.DaemonMetrics;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.projection.TickRecord;
import dev.kiln.core.telemetry.Figures;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.workspace.FileTrees;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code kiln bench metrics}: what {@code GET /metrics} costs a real daemon on a 10,000-contract workspace, measured
 * over real HTTP on loopback.
 *
 * <ul>
 *   <li>{@code scrape_ms_p50/_p95}, {@code scrape_bytes}: one scrape, request to last byte (after a warm-up).
 *   <li>{@code tick_ms_p50_quiet} vs {@code tick_ms_p50_scraped}: the loop's own duration of a one-file change tick,
 *       with nothing scraping vs while a thread scrapes 10 times a second. Blocks of the two alternate, so drift in the
 *       machine's load falls on both; equal medians mean a scrape does not hold up a tick.
 * </ul>
 */
final class MetricsBenchmark {
    private static final ObjectMapper MAPPER = Json.MAPPER;
    static final int DEFAULT_CONTRACTS = 10_000;

    private final int contracts;
    private final int scrapes;
    private final int edits;
    private final int blocks;

    /**
     * @param contracts contracts of the workspace
     * @param scrapes timed scrapes (the median is reported)
     * @param edits change ticks per block
     * @param blocks blocks of each condition (quiet, scraped), alternating
     */
    MetricsBenchmark(int contracts, int scrapes, int edits, int blocks) {
        if (contracts < 10 || scrapes < 1 || edits < 1 || blocks < 1) {
            throw new IllegalArgumentException("contracts >= 10 and positive scrapes, edits and blocks, got "
                    + contracts + ", " + scrapes + ", " + edits + ", " + blocks);
        }
        this.contracts = contracts;
        this.scrapes = scrapes;
        this.edits = edits;
        this.blocks = blocks;
    }

    ObjectNode run() throws Exception {
        Path tmp = Files.createTempDirectory("kiln-bench-metrics");
        try {
            Path ws = tmp.resolve("ws");
            new DemoWorkspace().write(ws, contracts, 13, false);
            WorkspaceLayout layout = WorkspaceLayout.of(ws);
            List<Path> files = BenchContracts.valid(layout.tasksDir(), Integer.MAX_VALUE);
            // Short settle and spacing, so a block of change ticks takes seconds; heartbeats out of the way.
            ChangePacer.Settings pacing = new ChangePacer.Settings(Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofHours(1));
            try (ProjectionDaemon d = ProjectionDaemon.builder(layout).pacing(pacing).port(0).start()) {
                d.awaitFirstProjection(Duration.ofMinutes(2));
                URL metrics = d.url().resolve("metrics").toURL();
                ObjectNode out = MAPPER.createObjectNode();
                out.put("contracts", contracts);

                for (int i = 0; i < 20; i++) {
                    scrape(metrics); // warm-up: JIT, connection set-up paths
                }
                List<Double> ms = new ArrayList<>();
                long bytes = 0;
                for (int i = 0; i < scrapes; i++) {
                    long t0 = System.nanoTime();
                    bytes = scrape(metrics);
                    ms.add((System.nanoTime() - t0) / 1e6);
                }
                out.put("scrape_ms_p50", round(median(ms)));
                out.put("scrape_ms_p95", round(percentile(ms, 95)));
                out.put("scrape_bytes", bytes);
                out.put("scrapes", scrapes);

                List<Double> quiet = new ArrayList<>();
                List<Double> scraped = new ArrayList<>();
                AtomicLong scrapesDuring = new AtomicLong();
                int edit = 0;
                changeTicks(d, files, edit, edits); // warm-up block: the incremental path compiled, its index built
                edit += edits;
                for (int b = 0; b < blocks; b++) {
                    quiet.addAll(changeTicks(d, files, edit, edits));
                    edit += edits;
                    AtomicBoolean stop = new AtomicBoolean();
                    Thread scraper = new Thread(() -> {
                        long next = System.nanoTime();
                        while (!stop.get()) {
                            try {
                                scrape(metrics);
                                scrapesDuring.incrementAndGet();
                                next += 100_000_000L; // 10 scrapes per second
                                long left = next - System.nanoTime();
                                if (left > 0) {
                                    Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
                                }
                            } catch (IOException | InterruptedException e) {
                                return;
                            }
                        }
                    }, "bench-scraper");
                    scraper.setDaemon(true);
                    scraper.start();
                    try {
                        scraped.addAll(changeTicks(d, files, edit, edits));
                    } finally {
                        stop.set(true);
                        scraper.join(5_000);
                    }
                    edit += edits;
                }
                out.put("tick_ms_p50_quiet", round(median(quiet)));
                out.put("tick_ms_p50_scraped", round(median(scraped)));
                out.put("tick_ms_p95_quiet", round(percentile(quiet, 95)));
                out.put("tick_ms_p95_scraped", round(percentile(scraped, 95)));
                out.put("tick_ratio_scraped_vs_quiet", round(median(scraped) / median(quiet)));
                out.put("ticks_per_condition", quiet.size());
                out.put("scrapes_during_ticks", scrapesDuring.get());
                return out;
            }
        } finally {
            FileTrees.delete(tmp);
        }
    }

    /** Edits {@code n} contracts one at a time, each waiting for its change tick; the ticks' own durations in ms. */
    private static List<Double> changeTicks(ProjectionDaemon d, List<Path> files, int offset, int n) throws Exception {
        List<Double> ms = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Path f = files.get((offset + i) * 7 % files.size());
            byte[] content = BenchContracts.edited(f, "metrics bench edit " + (offset + i));
            long seq = d.metrics().projections();
            Files.write(f, content);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            TickRecord tick = null;
            while (tick == null) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no change tick within 30 s after editing " + f);
                }
                Thread.sleep(5);
                DaemonMetrics m = d.metrics();
                for (TickRecord r : m.history()) {
                    if (r.seq() > seq && r.reason() == WakeReason.CHANGE && r.changed()) {
                        tick = r;
                    }
                }
            }
            ms.add(tick.durationMillis());
        }
        return ms;
    }

    /** One scrape over HTTP, the whole body read; its size in bytes. */
    private static long scrape(URL metrics) throws IOException {
        HttpURLConnection c = (HttpURLConnection) metrics.openConnection();
        c.setConnectTimeout(10_000);
        c.setReadTimeout(30_000);
        try (InputStream in = c.getInputStream()) {
            if (c.getResponseCode() != 200) {
                throw new IOException("GET " + metrics + " answered " + c.getResponseCode());
            }
            return in.readAllBytes().length;
        }
    }



    private static double round(double v) {
        return Figures.round(v, 2);
    }
}
