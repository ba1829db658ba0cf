package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.fleet.FleetActions;
import dev.kiln.core.seed.WarmResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code kiln fleet probe|warm|doctor [NAME…|--all]}: one action on many daemons of the daemon list at once, each on
 * its own host through its API (the Fleet page's actions, headless). Exit 0 when every daemon's action finished, 1
 * when one failed (unreachable, refused, a failed warm) or was cancelled, 2 for bad arguments.
 */
@Command(name = "fleet", mixinStandardHelpOptions = true,
        header = "Run a probe, a warm of stale seeds or the doctor on many daemons at once.",
        description = {"Run ACTION on the daemons NAME… of your daemon list (daemons.json in the config directory), or",
            "on --all of them, each on its own host through its API with the token file and pin the list gives:",
            "probe: a startup probe of its servers; warm: a warm of each seed that is not current; doctor: the",
            "doctor's diagnosis of its projection. At most --parallel daemons run at once. Ctrl+C cancels every",
            "running action on its host. Exit 0 when all finished, 1 when one failed or was cancelled."})
final class FleetCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "ACTION", description = "probe, warm or doctor.")
    String action;

    @Parameters(index = "1..*", arity = "0..*", paramLabel = "NAME", description = "Daemons of the daemon list, by name.")
    List<String> names = new ArrayList<>();

    @Option(names = "--all", description = "Every daemon of the daemon list.")
    boolean all;

    @Option(names = "--parallel", paramLabel = "N", description = "Daemons at once (default: ${DEFAULT-VALUE}).")
    int parallel = 8;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        FleetActions.Kind kind;
        try {
            kind = FleetActions.Kind.valueOf(action.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new CliException("kiln fleet runs probe, warm or doctor, not \"" + action + "\"");
        }
        if (all == !names.isEmpty()) {
            throw new CliException(all ? "--all runs on every daemon of the list; give it no NAME"
                    : "name the daemons (as in " + DaemonArgs.listFile() + "), or give --all");
        }
        DaemonList list = DaemonArgs.list();
        List<DaemonEntry> daemons = new ArrayList<>();
        if (all) {
            daemons.addAll(list.daemons());
            if (daemons.isEmpty()) {
                throw new CliException("the daemon list " + DaemonArgs.listFile() + " lists no daemon; add one on the"
                        + " console's Fleet page (Connect to daemon…)");
            }
        } else {
            for (String n : names) {
                daemons.add(DaemonArgs.resolve(n, null, null));
            }
        }
        FleetActions actions;
        FleetActions.Run run;
        try {
            actions = FleetActions.builder().concurrency(parallel).build();
            run = actions.start(kind, daemons, r -> { });
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage(), e);
        }
        Thread cancel = new Thread(() -> {
            if (!run.done()) {
                run.cancelAll();
                try {
                    run.await(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, "kiln-fleet-cancel");
        Runtime.getRuntime().addShutdownHook(cancel);
        while (!run.await(Duration.ofSeconds(1))) {
            // the actions run on their hosts; this only waits
        }
        try {
            Runtime.getRuntime().removeShutdownHook(cancel);
        } catch (IllegalStateException e) {
            // shutting down already: the hook cancels what still runs
        }
        List<FleetActions.Progress> out = run.progress();
        if (json.enabled()) {
            out.forEach(p -> System.out.println(Json.compact(toJson(kind, p))));
        } else {
            table(out);
        }
        out.stream().filter(p -> p.state() == FleetActions.State.FAILED)
                .forEach(p -> System.err.println("kiln: " + p.name() + ": " + p.message()));
        return out.stream().allMatch(p -> p.state() == FleetActions.State.DONE) ? 0 : 1;
    }

    /** One daemon's outcome: what it did, how long, and its results (a probe's servers, a diagnosis, the warms). */
    static ObjectNode toJson(FleetActions.Kind kind, FleetActions.Progress p) {
        ObjectNode o = Json.object();
        o.put("name", p.name());
        o.put("url", p.daemon().url().toString());
        o.put("action", kind.word());
        o.put("state", p.state().word());
        if (!p.code().isEmpty()) {
            o.put("code", p.code());
        }
        o.put("message", p.message());
        p.startedAt().ifPresent(t -> o.put("started_at", t.toString()));
        p.took().ifPresent(d -> o.put("duration_ms", d.toMillis()));
        p.probe().ifPresent(r -> {
            ArrayNode servers = o.putArray("servers");
            p.heat().forEach(h -> {
                ObjectNode s = servers.addObject();
                s.put("server", h.server());
                s.put("outcome", h.ok() ? "ok" : h.outcome());
                if (h.ok()) {
                    s.put("slowest_ms", Math.round(h.slowestMs()));
                }
                s.put("timeout_ms", h.timeoutMs());
                s.put("share_of_timeout", Math.round(h.share() * 1000) / 1000.0);
            });
        });
        p.diagnosis().ifPresent(g -> {
            o.put("verdict", g.verdict().jsonName());
            o.put("headline", g.headline());
            o.put("differences", g.differences().size());
        });
        if (kind == FleetActions.Kind.WARM && p.state().ended()) {
            ArrayNode warms = o.putArray("warms");
            for (WarmResult w : p.warms()) {
                ObjectNode x = warms.addObject();
                x.put("target", w.target());
                x.put("outcome", w.outcome().name().toLowerCase(Locale.ROOT));
                x.put("duration_ms", w.duration().toMillis());
                x.put("message", w.message());
            }
        }
        return o;
    }

    private static void table(List<FleetActions.Progress> out) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"NAME", "STATE", "TOOK", "RESULT"});
        for (FleetActions.Progress p : out) {
            rows.add(new String[] {p.name(), p.state().word(), p.took().map(d -> d.toMillis() + " ms").orElse("-"), p.message()});
        }
        int[] w = new int[3];
        rows.forEach(r -> {
            for (int c = 0; c < 3; c++) {
                w[c] = Math.max(w[c], r[c].length());
            }
        });
        for (String[] r : rows) {
            System.out.println(String.format(Locale.ROOT, "%-" + (w[0] + 2) + "s%-" + (w[1] + 2) + "s%-" + (w[2] + 2) + "s%s",
                    r[0], r[1], r[2], r[3]).stripTrailing());
        }
        out.forEach(p -> {
            if (!p.heat().isEmpty()) {
                System.out.println(p.name() + ": " + String.join("  ", p.heat().stream().map(h -> h.server() + " "
                        + (h.ok() ? Math.round(h.slowestMs()) + " ms" : h.outcome()) + " of " + h.timeoutMs() / 1000 + " s").toList()));
            }
        });
    }
}
