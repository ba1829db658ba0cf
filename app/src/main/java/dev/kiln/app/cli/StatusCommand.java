package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.health.HealthReason;
import dev.kiln.core.health.HealthVerdict;
import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.core.workspace.Durations;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln status URL}: a daemon's health verdict for scripts; exit 0 healthy, 1 degraded, 2 failing or unreachable. */
@Command(name = "status", mixinStandardHelpOptions = true,
        header = "Print a kiln serve's health verdict: exit 0 healthy, 1 degraded, 2 failing or unreachable.",
        description = {"Ask the kiln serve at URL (as it printed it at start) for its health: its verdict (healthy,",
            "degraded or failing) with every reason, API version, revision, age of its last projection, watch,",
            "contracts and failures, seeds and the latest probe. docs/HEALTH.md has the table of reasons.",
            "Exit 0 when healthy; 1 when degraded (watch degraded or partial, stale seed, probe near its timeout,",
            "not projected yet); 2 when failing (contract failures, a failed warm, a server over its timeout, a",
            "stuck projection) or when it cannot be asked within --timeout (down, stopped, not a kiln serve, another",
            "API version, token refused, certificate not the pinned one): a daemon that cannot be asked is failing.",
            "NAME is a daemon of your daemon list (daemons.json in the config directory); --all asks every one of them.",
            "DIR is a workspace a daemon on this host holds: its lock gives the URL, the pin and the token file."})
final class StatusCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "URL|NAME|DIR",
            description = "The daemon's URL, e.g. https://eval-3:7117/, its name in the daemon list (daemons.json), or"
                    + " the directory of the workspace it serves on this host.")
    String url;

    @Option(names = "--all", description = "Every daemon of the daemon list, as a table (or a JSON array): exit 0 when"
            + " all are healthy, 1 when one is degraded, 2 when one is failing or cannot be asked.")
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
            HealthVerdict v = HealthVerdict.unreachable(e.getMessage());
            if (json.enabled()) {
                ObjectNode o = Json.object();
                o.put("url", url);
                o.put("status", "unreachable");
                o.put("reachable", false);
                o.put("error", e.getMessage());
                verdict(o, v);
                System.out.println(Json.compact(o));
            } else {
                System.out.println(url + ": " + v.state().wireName());
                printReasons(v);
            }
            System.err.println("kiln: " + e.getMessage());
            return v.state().exitCode();
        }
        List<String> problems = h.problems();
        HealthVerdict v = h.verdict();
        if (json.enabled()) {
            System.out.println(Json.compact(toJson(h, problems)));
        } else {
            System.out.println(h.url() + ": " + v.state().wireName());
            printReasons(v);
            System.out.println("  api:        v" + h.apiVersion() + h.tlsFingerprint().map(f -> ", TLS pinned").orElse(""));
            System.out.println("  revision:   " + h.revision() + " (" + h.projections() + " projections)");
            System.out.println("  projected:  " + h.lastProjectionAge().map(a -> seconds(a.toMillis()) + " ago")
                    .orElse("not yet") + " (heartbeat " + seconds(h.heartbeat().toMillis()) + ")");
            System.out.println("  watch:      " + (h.watchLive() ? "live" : "degraded: " + h.watchReason()));
            System.out.println("  contracts:  " + h.contracts() + " (" + h.failures() + " failures)");
            h.seeds().ifPresent(sd -> System.out.println("  seeds:      " + sd.targets() + " targets, " + sd.stale() + " stale"));
            h.lastProbe().ifPresent(pr -> System.out.println("  last probe: " + pr.at() + ": " + pr.verdict()));
        }
        return v.state().exitCode();
    }

    /** Every reason, worst first: {@code  failing:   contract_failures: 2 contracts failed: …}. */
    private static void printReasons(HealthVerdict v) {
        for (HealthReason r : v.reasons()) {
            System.out.println(String.format(java.util.Locale.ROOT, "  %-11s %s: %s", r.state().wireName() + ":", r.code(),
                    r.message()));
        }
    }

    /** {@code verdict} and {@code reasons}, as the daemon's health answer has them. */
    private static void verdict(ObjectNode o, HealthVerdict v) {
        o.put("verdict", v.state().wireName());
        ArrayNode a = o.putArray("reasons");
        v.reasons().forEach(r -> a.addObject().put("code", r.code()).put("state", r.state().wireName())
                .put("message", r.message()));
    }

    private static ObjectNode toJson(DaemonHealth h, List<String> problems) {
        ObjectNode o = Json.object();
        HealthVerdict v = h.verdict();
        o.put("url", h.url().toString());
        o.put("status", v.state().wireName());
        verdict(o, v);
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
                HealthVerdict v = h.verdict();
                exit = Math.max(exit, v.state().exitCode());
                ObjectNode o = toJson(h, problems);
                o.put("name", d.name());
                arr.add(o);
                table.add(new String[] {d.name(), v.state().wireName(), "r" + h.revision(),
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
                verdict(o, HealthVerdict.unreachable(String.valueOf(r)));
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
