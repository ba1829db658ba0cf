package dev.kiln.app.cli;

import dev.kiln.app.common.CliException;
import dev.kiln.app.common.WorkspaceArgument;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.watch.ChangePacer;
import dev.kiln.core.workspace.Durations;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
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
            "and serve /api/state, /api/events (SSE), /api/metrics, /metrics (Prometheus), POST /api/project and POST /api/heal.",
            "Stops cleanly on Ctrl-C / SIGTERM."})
final class ServeCommand implements Callable<Integer> {

    @Mixin
    WorkspaceArgument workspace;

    @Option(names = "--port", paramLabel = "N", description = "Port (0 = any free port; default: kiln.json api.port, else 7117).")
    Integer port;

    @Option(names = "--bind", paramLabel = "ADDR", description = "Address to bind (default: kiln.json api.bind if it is a loopback address, else 127.0.0.1;"
            + " only this flag can open the API to the network).")
    String bind;

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
        ProjectionDaemon daemon = ProjectionDaemon.builder(layout)
                .pacing(pacing)
                .reconcile(settings.reconcile())
                .bind(settings.apiBindFor(bind, layout.root(), w -> System.err.println("kiln: warning: " + w)))
                .port(port == null ? settings.apiPort() : port)
                .start();
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            System.err.println("kiln: stopping (finishing the current projection, closing the watch)…");
            daemon.close();
            stopped.countDown();
        }, "kiln-serve-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        System.out.println("Serving " + layout.root() + " at " + daemon.url());
        System.out.println("  state:  " + daemon.url().resolve("api/state"));
        System.out.println("  events: " + daemon.url().resolve("api/events"));
        System.out.println("  token:  " + daemon.tokenFile() + " (for POST /api/project and /api/heal)");
        System.out.println("  watch:  " + daemon.watchStatus());
        System.out.println("  metrics: " + daemon.url().resolve("metrics") + " (Prometheus; beyond loopback it needs the token)");
        System.out.flush();
        stopped.await();
        return 0;
    }
}
