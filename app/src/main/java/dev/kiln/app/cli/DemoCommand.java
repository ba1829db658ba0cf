package dev.kiln.app.cli;

import dev.kiln.core.demo.DemoSummary;
import dev.kiln.core.demo.DemoWorkspace;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln demo DIR}: writes a deterministic demo workspace. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Write a demo workspace (deterministic for a seed) with a few planted faults.")
final class DemoCommand implements Callable<Integer> {
    static final long DEFAULT_SEED = 7;

    @Parameters(index = "0", paramLabel = "DIR", description = "Directory to write into (created if missing).")
    Path dir;

    @Option(names = "--contracts", paramLabel = "N", description = "Contract files to write (default: ${DEFAULT-VALUE}).")
    int contracts = DemoWorkspace.DEFAULT_CONTRACTS;

    @Option(names = "--seed", paramLabel = "S", description = "Generator seed (default: ${DEFAULT-VALUE}).")
    long seed = DEFAULT_SEED;

    @Option(names = "--force", description = "Write even into a non-empty directory that is not a Kiln workspace.")
    boolean force;

    @Override
    public Integer call() {
        DemoSummary s = new DemoWorkspace().write(dir, contracts, seed, force);
        System.out.println("Demo workspace written to " + s.root());
        System.out.println("  contracts:      " + s.contracts() + " (seed " + s.seed() + ")");
        System.out.println("  legacy ids:     " + s.legacyIds().size() + "  " + String.join(", ", s.legacyIds()));
        System.out.println("  malformed:      " + (s.malformed() == null ? "-" : s.malformed()));
        System.out.println("  engine pid:     " + (s.enginePid() == null ? "-" : s.enginePid()));
        System.out.println("  past deadline:  " + s.pastDeadline().size());
        System.out.println("Open it with: kiln " + s.root());
        return 0;
    }
}
