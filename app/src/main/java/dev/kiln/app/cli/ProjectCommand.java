package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import dev.kiln.app.common.WorkspaceArgument;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.core.projection.TickRecord;
import dev.kiln.core.telemetry.Figures;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.snapshot.SnapshotFailure;
import dev.kiln.core.snapshot.SnapshotStats;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code kiln project DIR}: one projection tick; writes observer/state.json if it changed and prints the counters.
 * When a {@code kiln serve} owns the workspace, asks it to project instead (one writer per workspace).
 */
@Command(name = "project", mixinStandardHelpOptions = true,
        description = {"Run one projection tick over a workspace: write observer/state.json if it changed, print counters and failures.",
            "When a kiln serve owns the workspace, ask it to project instead (its token in observer/api-token)."})
final class ProjectCommand implements Callable<Integer> {

    @Mixin
    WorkspaceArgument workspace;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        WorkspaceLayout ws = workspace.layout();
        Optional<ServeClient> daemon = ServeClient.of(ws);
        if (daemon.isPresent()) {
            return viaDaemon(ws, daemon.get());
        }
        Projector projector = Projector.builder(ws).build();
        TickResult r = projector.tick(WakeReason.MANUAL);
        String syncError = null;
        try {
            projector.flush();
        } catch (java.io.IOException e) {
            syncError = e.getMessage();
        }
        if (json.enabled()) {
            System.out.println(Json.compact(toJson(ws, r, projector)));
        } else {
            print(ws, r, projector);
        }
        if (r.writeError() != null) {
            throw new CliException(r.writeError() + ". Make room on its disk (or the observer/ directory writable) and run again.");
        }
        if (syncError != null) {
            throw new CliException(syncError + ". The document is in place; check the disk (dmesg) and run again.");
        }
        return 0;
    }

    /**
     * A {@code kiln serve} owns the workspace: writing state.json here would start a second revision sequence, so
     * the daemon is asked to project instead.
     */
    private int viaDaemon(WorkspaceLayout ws, ServeClient daemon) throws Exception {
        TickRecord t;
        try {
            t = daemon.project();
        } catch (java.io.IOException e) {
            throw new CliException(daemon.holder().name() + " owns " + ws.root() + " and must do its projections, but: "
                    + e.getMessage());
        }
        if (json.enabled()) {
            ObjectNode o = Json.object();
            o.put("workspace", ws.root().toString());
            o.put("state_file", ws.stateFile().toString());
            o.put("served_by", daemon.holder().describe());
            o.put("revision", t.revision());
            o.put("changed", t.changed());
            o.put("leaves", t.counter("leaves"));
            ObjectNode counters = o.putObject("counters");
            t.counters().forEach(counters::put);
            o.put("tick_ms", Figures.round(t.durationMillis(), 3));
            System.out.println(Json.compact(o));
        } else {
            System.out.printf("Asked %s, which owns %s: revision %d (%s)%n", daemon.holder().describe(), ws.root(),
                    t.revision(), t.changed() ? "changed, state.json written" : "unchanged");
            System.out.printf("  contracts: %d enumerated, %d parsed, %d reused, %d failed; tick %.1f ms%n",
                    t.counter("enumerated"), t.counter("parsed"), t.counter("reused"), t.counter("failed"),
                    t.durationMillis());
            System.out.println("  state: " + ws.stateFile());
        }
        return 0;
    }

    private static void print(WorkspaceLayout ws, TickResult r, Projector p) {
        SnapshotStats s = r.stats();
        System.out.printf("Projected %s: revision %d (%s)%n", ws.root(), r.revision(), r.changed() ? "changed, state.json written" : "unchanged");
        System.out.printf("  contracts: %d enumerated, %d parsed, %d reused, %d failed, %d pruned; build %.1f ms, tick %.1f ms%n",
                s.enumerated(), s.parsed(), s.reused(), s.failed(), s.pruned(), s.buildMillis(), r.durationMillis());
        for (SnapshotFailure f : p.snapshot().failures()) {
            System.out.printf("  failed: tasks/%s [%s] %s%n", f.path(), f.kind().name().toLowerCase(Locale.ROOT), f.reason());
        }
        for (String d : r.driftPruned()) {
            System.out.println("  drift pruned: observer/drift/" + d);
        }
        System.out.println("  state: " + ws.stateFile());
    }

    private static ObjectNode toJson(WorkspaceLayout ws, TickResult r, Projector p) {
        ObjectNode o = Json.object();
        o.put("workspace", ws.root().toString());
        o.put("state_file", ws.stateFile().toString());
        o.put("revision", r.revision());
        o.put("changed", r.changed());
        o.put("leaves", r.leaves());
        o.set("counters", r.stats().toJson());
        o.put("tick_ms", r.durationMillis());
        ArrayNode failures = o.putArray("failures");
        for (SnapshotFailure f : p.snapshot().failures()) {
            failures.addObject().put("path", f.path()).put("kind", f.kind().name().toLowerCase(Locale.ROOT)).put("reason", f.reason());
        }
        ArrayNode drift = o.putArray("drift_pruned");
        r.driftPruned().forEach(drift::add);
        o.put("write_error", r.writeError());
        return o;
    }
}
