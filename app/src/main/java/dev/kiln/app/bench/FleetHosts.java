package dev.kiln.app.bench;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.serve.ProjectionDaemon;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The stand-in hosts of {@code kiln bench fleet}: one child JVM holding {@code N} {@code kiln serve} daemons on
 * loopback, each on its own port over its own small demo workspace. They live apart from the console being measured
 * because a real fleet's daemons run on other hosts: in the console's JVM their ticks, HTTP answers and collections
 * paused the very FX thread the benchmark times.
 *
 * <p>Talks over its standard streams, a line each: it prints {@code daemon I URL TOKEN_FILE} per daemon and then
 * {@code ready}; it reads {@code stop I} (answers {@code stopped I}) and {@code start I} (the same daemon again on its
 * port; answers {@code started I}); end of input stops them all and exits. Anything that goes wrong is one
 * {@code error …} line and exit 1.
 *
 * <p>Concurrency: one thread, the main one.
 */
public final class FleetHosts {
    private FleetHosts() {
    }

    /**
     * Runs the hosts.
     *
     * @param args the scratch directory their workspaces are written under ({@code ws-00}, …), and how many
     */
    public static void main(String[] args) throws Exception {
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8)), true);
        if (args.length != 2) {
            out.println("error usage: FleetHosts SCRATCH N");
            System.exit(2);
        }
        Path scratch = Path.of(args[0]);
        int n = Integer.parseInt(args[1]);
        List<ProjectionDaemon> running = new ArrayList<>();
        List<WorkspaceLayout> layouts = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                Path ws = scratch.resolve(String.format("ws-%02d", i));
                new DemoWorkspace().write(ws, 6, i, false);
                WorkspaceLayout layout = WorkspaceLayout.of(ws);
                layouts.add(layout);
                running.add(ProjectionDaemon.builder(layout).port(0).start());
            }
            for (int i = 0; i < n; i++) {
                ProjectionDaemon d = running.get(i);
                d.awaitFirstProjection(Duration.ofSeconds(120));
                out.println("daemon " + i + " " + d.url() + " " + d.tokenFile());
            }
            out.println("ready");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null; ) {
                String[] w = line.trim().split(" ");
                int i = w.length == 2 ? Integer.parseInt(w[1]) : -1;
                if (i < 0 || i >= n) {
                    out.println("error unknown command: " + line);
                } else if (w[0].equals("stop")) {
                    running.get(i).close();
                    out.println("stopped " + i);
                } else if (w[0].equals("start")) {
                    running.set(i, restart(layouts.get(i), running.get(i).port()));
                    out.println("started " + i);
                } else {
                    out.println("error unknown command: " + line);
                }
            }
        } catch (Exception e) {
            out.println("error " + e);
            System.exit(1);
        } finally {
            for (ProjectionDaemon d : running) {
                d.close();
            }
        }
        System.exit(0);
    }

    /** The same daemon again on its port (which may be held for a moment after its close). */
    private static ProjectionDaemon restart(WorkspaceLayout layout, int port) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return ProjectionDaemon.builder(layout).port(port).start();
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("could not restart the daemon on port " + port + ": " + e.getMessage(), e);
                }
                Thread.sleep(20);
            }
        }
    }
}
