package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import dev.kiln.app.common.WorkspaceArgument;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.contract.LeafIdHeal;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code kiln heal DIR}: rewrites legacy stem-shaped leaf ids to canonical ones; reports misplaced ids. */
@Command(name = "heal", mixinStandardHelpOptions = true,
        description = {"Rewrite legacy stem-shaped leaf ids (\"retry\") to canonical ones (\"payments/refunds/retry\").",
            "Idempotent; keeps unknown fields and file modes. Ids that disagree with their location are reported, never rewritten."})
final class HealCommand implements Callable<Integer> {

    @Mixin
    WorkspaceArgument workspace;

    @Option(names = "--dry-run", description = "List every planned change; write nothing.")
    boolean dryRun;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() throws Exception {
        WorkspaceLayout ws = workspace.layout();
        HealReport r = LeafIdHeal.sweep(ws.tasksDir(), dryRun);
        if (json.enabled()) {
            ObjectNode o = Json.object().put("tasks_dir", ws.tasksDir().toString());
            o.setAll(r.toJson());
            System.out.println(Json.compact(o));
            return 0;
        }
        String verb = dryRun ? "Would heal" : "Healed";
        System.out.printf("%s %d of %d contracts in %s%s%n", verb, r.changes().size(), r.scanned(), ws.tasksDir(),
                dryRun ? " (dry run: nothing written)" : "");
        for (HealReport.Change c : r.changes()) {
            System.out.printf("  tasks/%s: \"%s\" -> \"%s\"%n", c.file(), c.from(), c.to());
        }
        if (!r.misplaced().isEmpty()) {
            System.out.println("Misplaced ids (left alone; fix by hand or move the leaf):");
            for (HealReport.Misplaced mp : r.misplaced()) {
                System.out.printf("  tasks/%s: declares \"%s\", lives at \"%s\"%n", mp.file(), mp.declared(), mp.expected());
            }
        }
        if (!r.problems().isEmpty()) {
            System.out.println("Not judged:");
            for (HealReport.Problem p : r.problems()) {
                System.out.printf("  tasks/%s: %s%n", p.file(), p.reason());
            }
        }
        return 0;
    }
}
