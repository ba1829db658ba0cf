package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.serve.DaemonHealth;
import dev.kiln.core.serve.ServeClient;
import dev.kiln.core.workspace.Durations;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln status URL}: a daemon's health for scripts; exit 0 healthy, 1 degraded, 2 unreachable or refused. */
@Command(name = "status", mixinStandardHelpOptions = true,
        header = "Print a kiln serve's health: exit 0 healthy, 1 degraded, 2 unreachable or refused.",
        description = {"Ask the kiln serve at URL (as it printed it at start) for its health: API version, revision,",
            "age of its last projection, watch live or degraded, contracts and failures.",
            "Exit 0 when healthy; 1 when degraded (watch degraded, projection stuck or failing, not projected yet);",
            "2 when it cannot be asked (down, not a kiln serve, another API version, token refused, certificate",
            "not the pinned one).",
            "NAME is a daemon of your daemon list (daemons.json in the config directory); --all asks every one of them."})
final class StatusCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "URL|NAME",
            description = "The daemon's URL, e.g. https://eval-3:7117/, or its name in the daemon list (daemons.json).")
    String url;

    @Option(names = "--all", description = "Every daemon of the daemon list, as a table (or a JSON array): exit 0 when"
            + " all are healthy, 1 when one is degraded, 2 when one cannot be asked.")
    boolean all;

    @Option(names = "--timeout", paramLabel = "DURATION", description = "How long each daemon may take to answer, in"
            + " all (its version and health, however slowly it sends), e.g. 5s or 500ms (default 10s).")
    String timeout;

    @picocli.CommandLine.Mixin
    DaemonCredentials credentials;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        if (all) {
            if (url != null) {
                throw new CliException("--all asks every daemon of the list; give it no URL or NAME");
            }
            return all();
        }
        if (url == null) {
            throw new CliException("give the daemon's URL (as kiln serve printed it) or its NAME in " + DaemonArgs.listFile()
                    + ", or --all for every daemon there");
        }
        ServeClient client = credentials.resolve(url).client().withTimeout(timeout());
        DaemonHealth h;
        try {
            h = client.health();
        } catch (IOException e) {
            if (json.enabled()) {
                ObjectNode o = Json.object();
                o.put("url", url);
                o.put("status", "unreachable");
                o.put("reachable", false);
                o.put("error", e.getMessage());
                System.out.println(Json.compact(o));
            }
            System.err.println("kiln: " + e.getMessage());
            return 2;
        }
        List<String> problems = h.problems();
        if (json.enabled()) {
            System.out.println(Json.compact(toJson(h, problems)));
        } else {
            System.out.println(h.url() + ": " + (problems.isEmpty() ? "healthy" : "degraded"));
            System.out.println("  api:        v" + h.apiVersion() + h.tlsFingerprint().map(f -> ", TLS pinned").orElse(""));
            System.out.println("  revision:   " + h.revision() + " (" + h.projections() + " projections)");
            System.out.println("  projected:  " + h.lastProjectionAge().map(a -> seconds(a.toMillis()) + " ago")
                    .orElse("not yet") + " (heartbeat " + seconds(h.heartbeat().toMillis()) + ")");
            System.out.println("  watch:      " + (h.watchLive() ? "live" : "degraded: " + h.watchReason()));
            System.out.println("  contracts:  " + h.contracts() + " (" + h.failures() + " failures)");
            h.seeds().ifPresent(sd -> System.out.println("  seeds:      " + sd.targets() + " targets, " + sd.stale() + " stale"));
            h.lastProbe().ifPresent(pr -> System.out.println("  last probe: " + pr.at() + ": " + pr.verdict()));
            problems.forEach(p -> System.out.println("  problem:    " + p));
        }
        return problems.isEmpty() ? 0 : 1;
    }

    private static ObjectNode toJson(DaemonHealth h, List<String> problems) {
        ObjectNode o = Json.object();
        o.put("url", h.url().toString());
        o.put("status", problems.isEmpty() ? "healthy" : "degraded");
        o.put("reachable", true);
        o.put("api_version", h.apiVersion());
        o.put("revision", h.revision());
        o.put("projections", h.projections());
        h.lastProjectionAt().ifPresent(t -> o.put("last_projection_at", t.toString()));
        h.lastProjectionAge().ifPresent(a -> o.put("last_projection_age_ms", a.toMillis()));
        o.put("heartbeat_ms", h.heartbeat().toMillis());
        ObjectNode w = o.putObject("watch");
        w.put("mode", h.watchLive() ? "live" : "degraded");
        if (!h.watchLive()) {
            w.put("reason", h.watchReason());
        }
        o.put("contracts", h.contracts());
        o.put("failures", h.failures());
        h.tlsFingerprint().ifPresent(f -> o.put("tls_sha256", f));
        h.seeds().ifPresent(sd -> o.putObject("seeds").put("targets", sd.targets()).put("stale", sd.stale()));
        h.lastProbe().ifPresent(pr -> {
            ObjectNode n = o.putObject("last_probe");
            n.put("at", pr.at().toString());
            n.put("verdict", pr.verdict());
            n.put("ok", pr.ok());
            pr.slowest().ifPresent(x -> n.put("slowest", x));
            pr.slowestStart().ifPresent(x -> n.put("slowest_ms", x.toMillis()));
            pr.slowestTimeout().ifPresent(x -> n.put("timeout_ms", x.toMillis()));
            n.put("over_timeout", pr.overTimeout());
            n.put("failed", pr.failed());
        });
        ArrayNode p = o.putArray("problems");
        problems.forEach(p::add);
        return o;
    }

    /** {@code --all}: every listed daemon, asked at once (each within the client's timeouts), one line each. */
    private int all() throws InterruptedException {
        Duration within = timeout();
        List<DaemonEntry> daemons = DaemonArgs.list().daemons();
        if (daemons.isEmpty()) {
            throw new CliException("the daemon list " + DaemonArgs.listFile() + " lists no daemon; add one on the console's"
                    + " Fleet page (Connect to daemon…)");
        }
        List<java.util.concurrent.CompletableFuture<Object>> asks = daemons.stream()
                .map(d -> java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return (Object) d.client().withTimeout(within).health();
                    } catch (IOException e) {
                        return e.getMessage();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return "interrupted";
                    } catch (RuntimeException e) {
                        return String.valueOf(e.getMessage());
                    }
                })).toList();
        int exit = 0;
        ArrayNode arr = Json.MAPPER.createArrayNode();
        List<String[]> table = new java.util.ArrayList<>();
        table.add(new String[] {"NAME", "STATUS", "REVISION", "PROJECTED", "WATCH", "CONTRACTS", "SEEDS", "LAST PROBE"});
        for (int i = 0; i < daemons.size(); i++) {
            DaemonEntry d = daemons.get(i);
            Object r = asks.get(i).join();
            if (r instanceof DaemonHealth h) {
                List<String> problems = h.problems();
                exit = Math.max(exit, problems.isEmpty() ? 0 : 1);
                ObjectNode o = toJson(h, problems);
                o.put("name", d.name());
                arr.add(o);
                table.add(new String[] {d.name(), problems.isEmpty() ? "healthy" : "degraded", "r" + h.revision(),
                    h.lastProjectionAge().map(a -> seconds(a.toMillis()) + " ago").orElse("not yet"),
                    h.watchLive() ? "live" : "degraded", h.contracts() + (h.failures() == 0 ? "" : " (" + h.failures() + " failed)"),
                    h.seeds().map(sd -> sd.stale() + "/" + sd.targets() + " stale").orElse("-"),
                    h.lastProbe().map(DaemonHealth.Probe::verdict).orElse("-")});
            } else {
                exit = 2;
                ObjectNode o = Json.object();
                o.put("name", d.name());
                o.put("url", d.url().toString());
                o.put("status", "unreachable");
                o.put("reachable", false);
                o.put("error", String.valueOf(r));
                arr.add(o);
                table.add(new String[] {d.name(), "unreachable", "-", "-", "-", "-", "-", "-"});
                System.err.println("kiln: " + d.name() + ": " + r);
            }
        }
        if (json.enabled()) {
            System.out.println(Json.compact(arr));
        } else {
            int[] w = new int[table.get(0).length];
            table.forEach(row -> {
                for (int c = 0; c < row.length; c++) {
                    w[c] = Math.max(w[c], row[c].length());
                }
            });
            for (String[] row : table) {
                StringBuilder b = new StringBuilder();
                for (int c = 0; c < row.length; c++) {
                    b.append(c == row.length - 1 ? row[c] : String.format(java.util.Locale.ROOT, "%-" + (w[c] + 2) + "s", row[c]));
                }
                System.out.println(b.toString().stripTrailing());
            }
        }
        return exit;
    }

    /** {@code --timeout}, or the client's default. */
    private Duration timeout() {
        if (timeout == null) {
            return Duration.ofSeconds(10);
        }
        try {
            Duration d = Durations.parse(timeout);
            if (d.isZero() || d.isNegative()) {
                throw new IllegalArgumentException("it must be positive");
            }
            return d;
        } catch (IllegalArgumentException e) {
            throw new CliException("--timeout " + timeout + ": " + e.getMessage());
        }
    }

    private static String seconds(long millis) {
        return String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
