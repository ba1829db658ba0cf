package dev.kiln.app.cli;

import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Workspaces;
import dev.kiln.core.Kiln;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.recording.Recorder;
import dev.kiln.core.recording.Recording;
import dev.kiln.core.serve.FrameFeed;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.workspace.Durations;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code kiln record DIR|URL|NAME --out F [--for 1h]}: records a workspace's event frames (local, or a daemon's
 * over its API) to one file until the time is up or the command is stopped (SIGINT/SIGTERM close the file whole).
 * {@code kiln record --info F} says what a recording holds and where a damaged one ends.
 */
@Command(name = "record", mixinStandardHelpOptions = true,
        header = "Record a workspace's events (local or a daemon's) to a file, for replay in the console.",
        description = {"Writes the workspace's state at the start, then every event frame with its time (projection ticks",
            "and deltas, warms, probes, archive events), compressed, with a full keyframe every --keyframe-every, to",
            "--out. DIR is a local workspace (projected here, or followed if a kiln serve owns it); URL or NAME a",
            "kiln serve (as kiln attach: --token-file, --pin). Open the file in the console: Open recording…",
            "kiln record --info F prints what a recording holds (and where a cut or damaged one ends)."})
final class RecordCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR|URL|NAME", description = "A workspace directory, or a daemon's URL or name.")
    String source;

    @Option(names = "--out", paramLabel = "FILE", description = "The recording to write (replaced if it exists).")
    Path out;

    @Option(names = "--for", paramLabel = "DUR", description = "Stop after this long (e.g. 10m, 1h; default: until stopped).")
    String duration;

    @Option(names = "--max-size", paramLabel = "BYTES", description = "The most the file keeps (e.g. 64MB; the oldest keyframe groups go; default: ${DEFAULT-VALUE}).")
    String maxSize = "256MB";

    @Option(names = "--keyframe-every", paramLabel = "DUR", description = "A full keyframe this often (default: ${DEFAULT-VALUE}).")
    String keyframeEvery = "10m";

    @Option(names = "--info", paramLabel = "FILE", description = "Print what the recording FILE holds and exit (1 when it is damaged).")
    Path info;

    @Mixin
    DaemonCredentials credentials;

    @Override
    public Integer call() throws Exception {
        if (info != null) {
            return info(info);
        }
        if (source == null || out == null) {
            throw new CliException("name what to record and where: kiln record DIR|URL --out FILE [--for 1h]");
        }
        Duration limit = duration == null ? null : parse("--for", duration);
        Duration keyframes = parse("--keyframe-every", keyframeEvery);
        long max = bytes(maxSize);
        boolean local = !source.contains("://") && Files.isDirectory(Path.of(source));
        Clock clock = Clock.systemUTC();
        Kiln kiln = null;
        Engine engine;
        if (local) {
            Path root = Workspaces.require(Path.of(source));
            kiln = Kiln.open(root, new EventBus(), clock);
            engine = kiln.engine();
            engine.projection().start(true).ifPresent(why -> System.err.println("kiln: " + why));
        } else {
            DaemonEntry d = credentials.resolve(source);
            try {
                engine = RemoteEngine.connect(d.url(), d.tokenFile().orElse(null), d.pin().orElse(null), clock);
            } catch (EngineException e) {
                System.err.println("kiln: " + e.getMessage());
                return 2;
            }
        }
        Recorder rec;
        try {
            rec = Recorder.builder().file(out).clock(clock).keyframeEvery(keyframes).maxBytes(max)
                    .source(local ? "local" : "remote", engine.location(), engine.layout().root().toString(),
                            engine.probes().defaultStartupTimeout()).build();
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage());
        }
        CountDownLatch stop = new CountDownLatch(1);
        AutoCloseable feed = engine.frames((event, data) -> {
            try {
                rec.frame(event, data);
            } catch (IOException e) {
                System.err.println("kiln: recording to " + out + " failed: " + e.getMessage() + "; what is on disk stays");
                stop.countDown();
            }
        });
        Kiln owned = kiln;
        Thread hook = new Thread(() -> {
            stop.countDown();
            finish(feed, rec, engine, owned);
        }, "kiln-record-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.err.println("kiln: recording " + engine.location() + " to " + out
                + (limit == null ? " until stopped (Ctrl+C)" : " for " + Durations.format(limit)));
        long deadline = limit == null ? Long.MAX_VALUE : System.nanoTime() + limit.toNanos();
        while (!stop.await(5, TimeUnit.SECONDS) && System.nanoTime() < deadline) {
            rec.flush(); // a killed recorder loses at most these seconds
        }
        finish(feed, rec, engine, owned);
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down: the hook finishes (again, harmlessly)
        }
        System.err.println("kiln: recorded " + rec.frames() + " frames, " + rec.bytes() + " bytes, " + Durations.format(
                rec.duration().withNanos(0)) + " to " + out);
        return 0;
    }

    private static synchronized void finish(AutoCloseable feed, Recorder rec, Engine engine, Kiln kiln) {
        try {
            feed.close();
        } catch (Exception e) {
            System.err.println("kiln: " + e.getMessage());
        }
        try {
            rec.close();
        } catch (IOException e) {
            System.err.println("kiln: closing the recording: " + e.getMessage());
        }
        engine.close();
        if (kiln != null) {
            kiln.close();
        }
    }

    private static int info(Path file) {
        Recording r;
        try {
            r = Recording.open(file);
        } catch (IOException e) {
            System.err.println("kiln: " + e.getMessage());
            return 2;
        }
        System.out.println(file + ": a recording of " + r.sourceKind() + " " + r.source() + ", started " + r.startedAt());
        System.out.println("  frames:    " + r.frameCount() + " in " + r.groups().size() + " keyframe group(s), " + r.validBytes()
                + " bytes");
        System.out.println("  from:      " + r.start().map(Object::toString).orElse("-"));
        System.out.println("  to:        " + r.end().map(Object::toString).orElse("-"));
        r.damage().ifPresent(d -> System.out.println("  damaged:   " + d.describe()));
        return r.damage().isPresent() ? 1 : 0;
    }

    private static Duration parse(String option, String text) {
        try {
            return Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw new CliException(option + ": " + e.getMessage());
        }
    }

    /** {@code 64MB}, {@code 1GB}, {@code 512KB} or a bare number of bytes (binary units). */
    static long bytes(String text) {
        String t = text.strip().toUpperCase(Locale.ROOT).replace("IB", "B");
        long unit = 1;
        for (String[] u : new String[][] {{"KB", "1024"}, {"MB", "1048576"}, {"GB", "1073741824"}, {"B", "1"}}) {
            if (t.endsWith(u[0])) {
                unit = Long.parseLong(u[1]);
                t = t.substring(0, t.length() - u[0].length()).strip();
                break;
            }
        }
        try {
            return Math.multiplyExact(Long.parseLong(t), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new CliException("'" + text + "' is no size; write e.g. 64MB, 1GB or 0 (no bound)");
        }
    }

    /**
     * The rolling recording of {@code kiln serve --record-dir}: the daemon's own stream (a loopback client of it)
     * into rotated files of {@code dir}, all of them kept within {@code maxTotalBytes}; flushed every 5 s.
     */
    static AutoCloseable rolling(WorkspaceLayout layout, Path dir, long maxTotalBytes, Duration defaultStartupTimeout) throws IOException {
        ServeClient client = ServeClient.of(layout).orElseThrow(() -> new CliException("the daemon of " + layout.root()
                + " is not reachable to record it"));
        Recorder rec;
        try {
            rec = Recorder.builder().rolling(dir, maxTotalBytes).source("local", layout.root().toString(),
                    layout.root().toString(), defaultStartupTimeout).build();
        } catch (IllegalArgumentException e) {
            throw new CliException("--record-max-size: " + e.getMessage());
        }
        FrameFeed feed = FrameFeed.remote(client, (event, data) -> {
            try {
                rec.frame(event, data);
            } catch (IOException e) {
                System.err.println("kiln: the rolling recording in " + dir + " failed: " + e.getMessage());
            }
        }, why -> { });
        java.util.concurrent.ScheduledExecutorService flusher = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kiln-record-flush");
            t.setDaemon(true);
            return t;
        });
        flusher.scheduleWithFixedDelay(() -> {
            try {
                rec.flush();
            } catch (IOException e) {
                System.err.println("kiln: the rolling recording in " + dir + " failed: " + e.getMessage());
            }
        }, 5, 5, TimeUnit.SECONDS);
        return () -> {
            flusher.shutdownNow();
            feed.close();
            rec.close();
        };
    }
}
