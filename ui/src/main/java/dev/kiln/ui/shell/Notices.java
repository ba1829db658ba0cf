package dev.kiln.ui.shell;

import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.startup.ProbeEvent;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.watch.WatchChanged;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which engine events deserve a notification: long actions that finished (a warm, a whole probe) and failures
 * (a degraded watch, state.json not written, the attached daemon lost). Only transitions notify, so a failure that lasts does not repeat
 * every tick.
 *
 * <p>Concurrency: FX thread only (fed by the shell's event pump).
 */
public final class Notices {

    /** What a notification says. */
    public enum Kind { DONE, FAILED,
        /** An alert rule started firing (once per firing; the Alerts panel lists it while it fires). */
        ALERT }

    /** One notification. */
    public record Notice(Kind kind, String title, String text) {
    }

    private boolean watchDegraded;
    /** Whether the daemon this console is attached to was lost (a remote engine's stream broke). */
    private boolean daemonLost;
    private boolean writeFailing;
    private int probeRuns;
    private int probeServers;
    private final Map<Integer, Integer> finishedPerRun = new HashMap<>();

    /**
     * The notifications of rules that started firing on the Fleet page's daemons in one poll cycle: one per rule
     * ({@code "Alert KilnSeedStale firing on fleet-03"}, or {@code "… on 12 daemons"} naming them), each firing once.
     */
    public static List<Notice> fleetAlerts(List<dev.kiln.ui.fleet.FleetViewModel.Fired> fired) {
        Map<String, List<dev.kiln.ui.fleet.FleetViewModel.Fired>> byRule = new java.util.LinkedHashMap<>();
        fired.forEach(f -> byRule.computeIfAbsent(f.fired().alert().rule().name(), k -> new ArrayList<>()).add(f));
        List<Notice> out = new ArrayList<>();
        byRule.forEach((rule, on) -> {
            List<String> names = on.stream().map(dev.kiln.ui.fleet.FleetViewModel.Fired::daemon).toList();
            String where = names.size() == 1 ? names.get(0) : names.size() + " daemons";
            String listed = names.size() == 1 ? "" : " (" + String.join(", ", names.stream().limit(5).toList())
                    + (names.size() > 5 ? " +" + (names.size() - 5) + " more" : "") + ")";
            out.add(new Notice(Kind.ALERT, "Alert " + rule + " firing on " + where,
                    on.get(0).fired().alert().rule().summary() + listed + " — see the Fleet page"));
        });
        return out;
    }

    /** The notifications one frame's events give, in order. */
    public List<Notice> accept(List<? extends KilnEvent> batch) {
        List<Notice> out = new ArrayList<>();
        for (KilnEvent e : batch) {
            if (e instanceof SeedEvent.WarmFinished w) {
                var r = w.result();
                out.add(r.outcome().isSuccess()
                        ? new Notice(Kind.DONE, "Warm of " + r.target() + " " + r.outcome().label(), r.message())
                        : new Notice(Kind.FAILED, "Warm of " + r.target() + " " + r.outcome().label(), r.message()));
            } else if (e instanceof WatchChanged c) {
                if (!c.status().live() && !watchDegraded) {
                    out.add(new Notice(Kind.FAILED, "Watch degraded", c.status().reason() + " — projecting on the fixed interval"));
                } else if (c.status().live() && watchDegraded) {
                    out.add(new Notice(Kind.DONE, "Watch live again", "changes drive the projection again"));
                }
                watchDegraded = !c.status().live();
            } else if (e instanceof TickFinished t) {
                String err = t.result().writeError();
                if (err != null && !writeFailing) {
                    out.add(new Notice(Kind.FAILED, "state.json not written", err + " (retried until it can be written)"));
                } else if (err == null && writeFailing) {
                    out.add(new Notice(Kind.DONE, "state.json written again", "revision " + t.result().revision()));
                }
                writeFailing = err != null;
            } else if (e instanceof dev.kiln.core.engine.EngineEvent.ConnectionChanged c) {
                if (!c.connected() && !daemonLost) {
                    out.add(new Notice(Kind.FAILED, "Daemon unreachable", c.text()
                            + ". The pages show its last state; they catch up by themselves when it is back"));
                } else if (c.connected() && daemonLost) {
                    out.add(new Notice(Kind.DONE, "Daemon back", c.text()));
                }
                daemonLost = !c.connected();
            } else if (e instanceof ProbeEvent.RunStarted s) {
                if (s.run() == 1) {
                    finishedPerRun.clear();
                }
                probeRuns = s.runs();
                probeServers = s.servers();
            } else if (e instanceof ProbeEvent.Finished f) {
                int done = finishedPerRun.merge(f.run(), 1, Integer::sum);
                if (f.run() == probeRuns && done == probeServers) {
                    out.add(new Notice(Kind.DONE, "Probe finished", probeServers + " server" + (probeServers == 1 ? "" : "s")
                            + (probeRuns > 1 ? " × " + probeRuns + " runs" : "") + " — see the Startup page"));
                }
            }
        }
        return out;
    }
}
