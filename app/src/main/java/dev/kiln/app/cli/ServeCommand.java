package dev.kiln.app.cli;

import dev.kiln.app.common.CliException;
import dev.kiln.app.common.WorkspaceArgument;
import dev.kiln.core.archive.ArchiveCache;
import dev.kiln.core.engine.WorkspaceActions;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.workspace.Durations;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code kiln serve DIR}: the change-driven projector daemon with its HTTP API, until SIGINT/SIGTERM. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        header = "Run the projector daemon: watch, project, serve the API.",
        description = {"Run the projector daemon on a workspace: watch its inputs, keep observer/state.json current,",
            "and serve /api/v1/state, /api/v1/events (SSE), /api/v1/metrics, /api/v1/health, /api/v1/version, /metrics (Prometheus),",
            "POST /api/v1/project and POST /api/v1/heal (the unversioned /api/... paths still answer), and for a",
            "console attached with kiln attach: seeds, probe, bytecode, archive cache, doctor and long actions by id.",
            "Mutating calls need the token in observer/api-token; beyond loopback every call does, and the API",
            "serves TLS only (--tls-keystore, --tls-password-file). Stops cleanly on Ctrl-C / SIGTERM."})
final class ServeCommand implements Callable<Integer> {

    @Mixin
    WorkspaceArgument workspace;

    @Option(names = "--port", paramLabel = "N", description = "Port (0 = any free port; default: kiln.json api.port, else 7117).")
    Integer port;

    @Option(names = "--bind", paramLabel = "ADDR", description = "Address to bind (default: kiln.json api.bind if it is a loopback address, else 127.0.0.1;"
            + " only this flag can open the API to the network, and then only with --tls-keystore).")
    String bind;

    @Option(names = "--tls-keystore", paramLabel = "FILE",
            description = "PKCS12 keystore with the key and certificate to serve HTTPS with (required beyond loopback).")
    java.nio.file.Path tlsKeystore;

    @Option(names = "--tls-password-file", paramLabel = "FILE",
            description = "File holding one line, the keystore's password (never on the command line); keep it mode 600.")
    java.nio.file.Path tlsPasswordFile;

    @Option(names = "--host-name", paramLabel = "NAME",
            description = "A DNS name clients use for this host (repeatable); requests naming another Host are refused.")
    java.util.List<String> hostNames = new java.util.ArrayList<>();

    // ---- the rolling recording (#30) ----
    @Option(names = "--record-dir", paramLabel = "DIR",
            description = "Keep a rolling recording of the daemon's events in DIR (rotated files; open one in the console).")
    java.nio.file.Path recordDir;

    @Option(names = "--record-max-size", paramLabel = "BYTES",
            description = "The most --record-dir keeps, all its files together; the oldest go first (default: ${DEFAULT-VALUE}).")
    String recordMaxSize = "1GB";

    @Option(names = "--interval", paramLabel = "DUR", description = "Minimum spacing of projections, and the degraded period (default: kiln.json, else 1s).")
    String interval;

    @Option(names = "--heartbeat", paramLabel = "DUR", description = "Projection when nothing changes (default: kiln.json, else 15s).")
    String heartbeat;

    @Override
    public Integer call() throws Exception {
        WorkspaceLayout layout = workspace.layout();
        WorkspaceSettings settings = WorkspaceSettings.read(layout.root());
        Duration iv = interval == null ? settings.interval() : Durations.parse(interval);
        Duration hb = heartbeat == null ? settings.heartbeat() : Durations.parse(heartbeat);
        if (iv.isZero() || iv.isNegative() || hb.isZero() || hb.isNegative()) {
            throw new CliException("--interval and --heartbeat must be positive durations");
        }
        ChangePacer.Settings pacing = ChangePacer.Settings.defaults().withInterval(iv).withHeartbeat(hb);
        if ((tlsKeystore == null) != (tlsPasswordFile == null)) {
            throw new CliException("--tls-keystore and --tls-password-file go together: the keystore, and the file"
                    + " holding its password");
        }
        // One bus for the daemon and its actions: every event (ticks, warm lines, probe steps, archive events)
        // reaches the API's SSE clients; the actions are the API's heal, seeds, probe, bytecode and archive cache.
        EventBus bus = new EventBus();
        Clock clock = Clock.systemUTC();
        ArchiveCache archives = ArchiveCache.builder().maximumBytes(settings.archiveCacheMaxBytes()).eventSink(bus)
                .clock(clock).build();
        SeedCaches seeds = SeedCaches.builder(layout.root()).settings(settings).clock(clock).events(bus).build();
        WorkspaceActions actions = new WorkspaceActions(layout, settings, archives, seeds, bus, clock);
        ProjectionDaemon.Builder builder = ProjectionDaemon.builder(layout)
                .clock(clock)
                .events(bus)
                .actions(actions, bus)
                .archiveStats(archives::stats)
                .pacing(pacing)
                .reconcile(settings.reconcile())
                .bind(settings.apiBindFor(bind, layout.root(), w -> System.err.println("kiln: warning: " + w)))
                .port(port == null ? settings.apiPort() : port)
                .hostNames(hostNames);
        if (tlsKeystore != null) {
            builder.tls(tlsKeystore, tlsPasswordFile);
        }
        ProjectionDaemon daemon = builder.start();
        AutoCloseable recording = recordDir == null ? null
                : RecordCommand.rolling(layout, recordDir, RecordCommand.bytes(recordMaxSize), settings.startupTimeout());
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            if (recording != null) {
                try {
                    recording.close(); // its last block written whole before the daemon goes
                } catch (Exception e) {
                    System.err.println("kiln: closing the recording in " + recordDir + ": " + e.getMessage());
                }
            }
            System.err.println("kiln: stopping (finishing the current projection, closing the watch)…");
            daemon.close();
            actions.close(); // cancels a warm or probe still running: their process trees end with the daemon
            stopped.countDown();
        }, "kiln-serve-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        // Bound to every interface (0.0.0.0, ::), the URL to give a client names the host: --host-name, the name its
        // certificate carries and the Host header the daemon accepts.
        String host = daemon.url().getHost() == null ? "" : daemon.url().getHost().replace("[", "").replace("]", "");
        java.net.URI url = (host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0")) && !hostNames.isEmpty()
                ? java.net.URI.create(daemon.url().getScheme() + "://" + hostNames.get(0) + ":" + daemon.url().getPort() + "/")
                : daemon.url();
        System.out.println("Serving " + layout.root() + " at " + url);
        System.out.println("  state:  " + url.resolve("api/v1/state"));
        System.out.println("  events: " + url.resolve("api/v1/events"));
        System.out.println("  token:  " + daemon.tokenFile() + (java.net.InetAddress.getByName(daemon.url().getHost()).isLoopbackAddress() ? " (for every POST: project, heal, warm, probe, precompile, archive, cancel)"
                : " (for every request: the API is bound beyond loopback)"));
        daemon.tlsFingerprint().ifPresent(f -> System.out.println("  tls:    certificate SHA256 " + f
                + " (pin it: kiln status " + url + " --pin " + f + ")"));
        System.out.println("  watch:  " + daemon.watchStatus());
        System.out.println("  metrics: " + url.resolve("metrics") + " (Prometheus; beyond loopback it needs the token)");
        System.out.flush();
        stopped.await();
        return 0;
    }
}
