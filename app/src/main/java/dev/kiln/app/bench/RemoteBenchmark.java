package dev.kiln.app.bench;

import static dev.kiln.core.telemetry.Figures.median;
import static dev.kiln.core.telemetry.Figures.percentile;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.Json;
import dev.kiln.core.Kiln;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.core.snapshot.ContractFile;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.Figures;
import dev.kiln.core.workspace.FileTrees;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.net.URI;
import java.net.HttpURLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code kiln bench remote}: what attaching over the daemon's API costs against embedding the engine, on loopback.
 *
 * <ul>
 *   <li>{@code attach_first_state_ms}: {@code RemoteEngine.connect} + {@code start} until the engine's snapshot holds
 *       every contract (median of the attaches); {@code state_bytes}/{@code state_bytes_gzip}: the state document on
 *       the wire without and with {@code Accept-Encoding: gzip}.
 *   <li>{@code edit_to_view_ms_*}: a one-contract edit until the new title is in the engine's snapshot as a view model
 *       reads it (checked on every event the engine delivers) — embedded ({@code Kiln.engine()}, owning one copy of
 *       the workspace) and remote (a {@code RemoteEngine} attached to the daemon a second {@code Kiln} runs on another
 *       copy, same settings). Edits alternate between the two, so the machine's drift falls on both; each waits the
 *       workspace's tick spacing after the last. {@code edit_to_daemon_tick_ms_p50}: the same remote edits until the
 *       daemon's own tick (on its bus, before the wire), so remote minus it is what the API and SSE cost.
 *   <li>{@code delta_bytes_1k}/{@code delta_bytes_10k}: the SSE {@code delta} frame of the same one-file edit at 1,000
 *       and 10,000 contracts (target: independent of the workspace's size).
 * </ul>
 */
final class RemoteBenchmark {
    static final int DEFAULT_CONTRACTS = 10_000;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final int contracts;
    private final int edits;
    private final int attaches;

    RemoteBenchmark(int contracts, int edits, int attaches) {
        if (contracts < 1_000 || edits < 1 || attaches < 1) {
            throw new IllegalArgumentException("contracts >= 1000 and positive edits and attaches, got " + contracts + ", " + edits
                    + ", " + attaches);
        }
        this.contracts = contracts;
        this.edits = edits;
        this.attaches = attaches;
    }

    ObjectNode run() throws Exception {
        Path tmp = Files.createTempDirectory("kiln-bench-remote");
        try {
            ObjectNode out = Json.MAPPER.createObjectNode();
            out.put("contracts", contracts);
            Path local = tmp.resolve("local");
            Path served = tmp.resolve("served");
            new DemoWorkspace().write(local, contracts, 13, false);
            new DemoWorkspace().write(served, contracts, 13, false);
            try (Kiln embedded = Kiln.open(local, new EventBus(), Clock.systemUTC());
                    Kiln daemon = Kiln.open(served, new EventBus(), Clock.systemUTC())) {
                Engine localEngine = embedded.engine();
                localEngine.projection().start(true);
                daemon.engine().projection().start(true);
                URI url = URI.create(daemon.engine().projection().apiUrl().orElseThrow(() -> new IllegalStateException(
                        "the served copy's engine runs no API; another kiln serve owns " + served + "?")));
                Path token = WorkspaceLayout.of(served).apiTokenFile();
                awaitContracts(localEngine);

                List<Double> attach = new ArrayList<>();
                for (int i = 0; i < attaches; i++) {
                    long t0 = System.nanoTime();
                    try (Engine r = RemoteEngine.connect(url, token, null, Clock.systemUTC())) {
                        r.projection().start(false);
                        awaitContracts(r);
                        attach.add((System.nanoTime() - t0) / 1e6);
                    }
                }
                out.put("attach_first_state_ms", round(median(attach)));
                out.put("attaches", attaches);
                out.put("state_bytes", stateBytes(url, false));
                out.put("state_bytes_gzip", stateBytes(url, true));

                try (Engine remote = RemoteEngine.connect(url, token, null, Clock.systemUTC())) {
                    remote.projection().start(false);
                    awaitContracts(remote);
                    List<Path> localFiles = BenchContracts.valid(embedded.layout().tasksDir(), Integer.MAX_VALUE);
                    List<Path> servedFiles = BenchContracts.valid(daemon.layout().tasksDir(), Integer.MAX_VALUE);
                    editToView(localEngine, localFiles, 0, 3, null); // warm-up: both paths compiled
                    editToView(remote, servedFiles, 0, 3, null);
                    List<Double> l = new ArrayList<>();
                    List<Double> r = new ArrayList<>();
                    List<Double> daemonTicks = new ArrayList<>();
                    // A daemon spaces its ticks by the workspace's interval (kiln.json, 1 s in the demo): each edit waits
                    // that long after the previous one of its engine, so what is timed is the path, not the spacing.
                    long spacing = embedded.settings().interval().toMillis() + 50;
                    for (int i = 0; i < edits; i++) {
                        Thread.sleep(spacing);
                        l.addAll(editToView(localEngine, localFiles, 10 + i, 1, null));
                        r.addAll(editToView(remote, servedFiles, 10 + i, 1, new Tap(daemon.events(), daemonTicks)));
                    }
                    out.put("edit_to_daemon_tick_ms_p50", round(median(daemonTicks)));
                    out.put("watch_local", localEngine.projection().watchStatus().map(w -> w.mode()).orElse("none"));
                    out.put("watch_served", daemon.engine().projection().watchStatus().map(w -> w.mode()).orElse("none"));
                    out.put("edit_to_view_ms_p50_local", round(median(l)));
                    out.put("edit_to_view_ms_p95_local", round(percentile(l, 95)));
                    out.put("edit_to_view_ms_p50_remote", round(median(r)));
                    out.put("edit_to_view_ms_p95_remote", round(percentile(r, 95)));
                    out.put("remote_adds_ms_p50", round(median(r) - median(l)));
                    out.put("edits", edits);
                }
            }
            out.put("delta_bytes_1k", deltaBytes(tmp.resolve("delta-1k"), 1_000));
            out.put("delta_bytes_10k", deltaBytes(tmp.resolve("delta-10k"), contracts));
            out.put("delta_ratio_10k_vs_1k", round((double) out.path("delta_bytes_10k").asLong() / out.path("delta_bytes_1k").asLong()));
            return out;
        } finally {
            FileTrees.delete(tmp);
        }
    }

    /** Waits until {@code e}'s snapshot holds the workspace's contracts (its first complete state). */
    private void awaitContracts(Engine e) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Object signal = new Object();
        try (AutoCloseable sub = e.events().subscribe(ev -> {
            synchronized (signal) {
                signal.notifyAll();
            }
        })) {
            // The demo plants a few unreadable contracts: "complete" is every readable one, i.e. not fewer than 99 %.
            while (e.projection().snapshot().contracts().size() < contracts * 0.99) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(e.location() + " did not show " + contracts + " contracts within " + WAIT.toSeconds()
                            + " s (it shows " + e.projection().snapshot().contracts().size() + ")");
                }
                synchronized (signal) {
                    signal.wait(5);
                }
            }
        } catch (InterruptedException ie) {
            throw ie;
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Edits {@code n} contracts one at a time; for each, the ms from the write until the engine's snapshot carries the
     * new title, re-checked on every event the engine delivers (what a view model reacts to).
     */
    /** The daemon's own bus, where its change tick is seen before it goes on the wire; the ms to it go to {@code ms}. */
    private record Tap(dev.kiln.core.telemetry.EventBus bus, List<Double> ms) {
    }

    private static List<Double> editToView(Engine e, List<Path> files, int offset, int n, Tap tap) throws Exception {
        List<Double> ms = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Path f = files.get((offset + i) * 7 % files.size());
            String title = "remote bench edit " + System.nanoTime();
            byte[] content = BenchContracts.edited(f, title);
            String file = e.layout().tasksDir().relativize(f).toString().replace('\\', '/');
            Object signal = new Object();
            long[] ticked = {0};
            AutoCloseable tapping = tap == null ? () -> { } : tap.bus().subscribe(ev -> {
                if (ev instanceof dev.kiln.core.projection.TickFinished t && t.result().changed() && ticked[0] == 0) {
                    ticked[0] = System.nanoTime();
                }
            });
            try (tapping; AutoCloseable sub = e.events().subscribe(ev -> {
                synchronized (signal) {
                    signal.notifyAll();
                }
            })) {
                long t0 = System.nanoTime();
                Files.write(f, content);
                long deadline = t0 + WAIT.toNanos();
                while (!shows(e, file, title)) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(e.location() + " did not show the edit of " + f + " within " + WAIT.toSeconds() + " s");
                    }
                    synchronized (signal) {
                        signal.wait(2);
                    }
                }
                ms.add((System.nanoTime() - t0) / 1e6);
                if (tap != null && ticked[0] != 0) {
                    tap.ms().add((ticked[0] - t0) / 1e6);
                }
            }
        }
        return ms;
    }

    private static boolean shows(Engine e, String file, String title) {
        for (ContractFile c : e.projection().snapshot().contracts()) {
            if (file.endsWith(c.file()) || c.file().endsWith(file)) {
                return title.equals(c.contract().title());
            }
        }
        return false;
    }

    /** The state document's bytes on the wire. */
    private static long stateBytes(URI url, boolean gzip) throws IOException {
        HttpURLConnection c = (HttpURLConnection) url.resolve("api/v1/state").toURL().openConnection();
        c.setConnectTimeout(10_000);
        c.setReadTimeout((int) WAIT.toMillis());
        if (gzip) {
            c.setRequestProperty("Accept-Encoding", "gzip"); // set by hand: the body is read as it came, compressed
        }
        try (java.io.InputStream in = c.getInputStream()) {
            if (c.getResponseCode() != 200) {
                throw new IOException("GET " + url + "api/v1/state answered " + c.getResponseCode());
            }
            if (gzip && !"gzip".equals(c.getContentEncoding())) {
                throw new IOException("GET " + url + "api/v1/state ignored Accept-Encoding: gzip");
            }
            return in.readAllBytes().length;
        } finally {
            c.disconnect();
        }
    }

    /** The bytes of the SSE delta of one one-file edit on a daemon serving {@code n} contracts. */
    private static long deltaBytes(Path ws, int n) throws Exception {
        new DemoWorkspace().write(ws, n, 13, false);
        try (Kiln k = Kiln.open(ws, new EventBus(), Clock.systemUTC())) {
            k.engine().projection().start(true);
            URI url = URI.create(k.engine().projection().apiUrl().orElseThrow());
            Path f = BenchContracts.valid(k.layout().tasksDir(), 50).get(42);
            try (BenchSse sse = new BenchSse(url)) {
                BenchSse.Frame first = sse.nextFrame(WAIT);
                if (first == null || !first.snapshot()) {
                    throw new IllegalStateException("the event stream of " + url + " did not open with a snapshot");
                }
                BenchContracts.edit(f, "delta bench edit");
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (System.nanoTime() < deadline) {
                    BenchSse.Frame fr = sse.nextFrame(Duration.ofSeconds(5));
                    if (fr != null && !fr.snapshot()) {
                        return fr.bytes();
                    }
                }
                throw new IllegalStateException("no delta event within " + WAIT.toSeconds() + " s after editing " + f);
            }
        }
    }

    private static double round(double v) {
        return Figures.round(v, 2);
    }
}
