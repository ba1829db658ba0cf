package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.projection.ProjectionBenchmark;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kiln bench projection}: tick costs against the bare stat walk, as one JSON object. */
@Command(name = "projection", mixinStandardHelpOptions = true,
        description = {"Measure projection ticks (cold, unchanged, one changed, no cache) against the bare stat walk",
            "on a synthetic workspace in a temp directory. Prints one JSON object of medians."})
final class ProjectionBenchCommand implements Callable<Integer> {

    @Option(names = "--contracts", paramLabel = "N", description = "Contracts to generate (default: ${DEFAULT-VALUE}).")
    int contracts = ProjectionBenchmark.DEFAULT_CONTRACTS;

    @Option(names = "--rounds", paramLabel = "R", description = "Measured rounds; each figure is their median (default: ${DEFAULT-VALUE}).")
    int rounds = 7;

    @Option(names = "--json", description = "Print compact JSON on one line (default: indented).")
    boolean json;

    @Override
    public Integer call() throws Exception {
        ProjectionBenchmark.Result r = ProjectionBenchmark.run(contracts, rounds);
        ObjectMapper m = new ObjectMapper();
        String out = json ? m.writeValueAsString(r.toJson()) : m.writerWithDefaultPrettyPrinter().writeValueAsString(r.toJson());
        System.out.println(out);
        return 0;
    }
}
