package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.api.WatchBenchmark;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kiln bench watch}: a real daemon on a temp workspace: idle projections, change-to-state latency, burst coalescing, full vs incremental tick. */
@Command(name = "watch", mixinStandardHelpOptions = true,
        header = "Daemon: idle ticks, change latency, bursts, incremental.",
        description = {"Run a real projector daemon on a temp workspace and measure idle projections, change-to-state",
            "latency (SSE), burst coalescing, and on a bigger workspace full vs incremental ticks. Prints one JSON object."})
final class WatchBenchCommand implements Callable<Integer> {

    @Option(names = "--contracts", paramLabel = "N", description = "Contracts of the daemon's workspace (default: ${DEFAULT-VALUE}).")
    int contracts = 2_000;

    @Option(names = "--big-contracts", paramLabel = "N", description = "Contracts for full vs incremental ticks (default: ${DEFAULT-VALUE}).")
    int bigContracts = 10_000;

    @Option(names = "--idle-seconds", paramLabel = "S", description = "Idle observation (default: ${DEFAULT-VALUE}).")
    int idleSeconds = 20;

    @Option(names = "--edits", paramLabel = "N", description = "Timed single-file edits (default: ${DEFAULT-VALUE}).")
    int edits = 20;

    @Option(names = "--burst", paramLabel = "N", description = "Edits in the burst (default: ${DEFAULT-VALUE}).")
    int burst = 1_000;

    @Option(names = "--rounds", paramLabel = "R", description = "Rounds of full and of incremental ticks (default: ${DEFAULT-VALUE}).")
    int rounds = 15;

    @Option(names = "--json", description = "Print compact JSON on one line (default: indented).")
    boolean json;

    @Override
    public Integer call() throws Exception {
        if (contracts < 10 || bigContracts < 10 || edits < 1 || burst < 1 || rounds < 1 || idleSeconds < 1) {
            throw new CliException("every count must be positive (contracts at least 10)");
        }
        ObjectNode r = WatchBenchmark.run(contracts, bigContracts, Duration.ofSeconds(idleSeconds), edits, burst, rounds);
        ObjectMapper m = new ObjectMapper();
        System.out.println(json ? m.writeValueAsString(r) : m.writerWithDefaultPrettyPrinter().writeValueAsString(r));
        return 0;
    }
}
