package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.contract.LeafIdHeal;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln heal DIR}: rewrites legacy stem-shaped leaf ids to canonical ones; reports misplaced ids. */
@Command(name = "heal", mixinStandardHelpOptions = true,
        description = {"Rewrite legacy stem-shaped leaf ids (\"retry\") to canonical ones (\"payments/refunds/retry\").",
            "Idempotent; keeps unknown fields and file modes. Ids that disagree with their location are reported, never rewritten."})
final class HealCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "DIR", description = "Workspace directory.")
    Path dir;

    @Option(names = "--dry-run", description = "List every planned change; write nothing.")
    boolean dryRun;

    @Option(names = "--json", description = "Print the report as one JSON object.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        WorkspaceLayout ws = WorkspaceLayout.of(Workspaces.require(dir));
        HealReport r = LeafIdHeal.sweep(ws.tasksDir(), dryRun);
        if (json) {
            ObjectMapper m = new ObjectMapper();
            ObjectNode o = m.createObjectNode();
            o.put("tasks_dir", ws.tasksDir().toString());
            o.put("dry_run", r.dryRun());
            o.put("scanned", r.scanned());
            r.changes().forEach(c -> o.withArray("changes").addObject().put("file", c.file()).put("from", c.from()).put("to", c.to()));
            r.misplaced().forEach(x -> o.withArray("misplaced").addObject()
                    .put("file", x.file()).put("declared", x.declared()).put("expected", x.expected()));
            r.problems().forEach(x -> o.withArray("problems").addObject().put("file", x.file()).put("reason", x.reason()));
            for (String f : new String[] {"changes", "misplaced", "problems"}) {
                o.withArray(f);
            }
            System.out.println(m.writeValueAsString(o));
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
