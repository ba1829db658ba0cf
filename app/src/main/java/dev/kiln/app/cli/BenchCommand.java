package dev.kiln.app.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code kiln bench …}: the shipped benchmarks. Each prints one JSON object with ratios against a same-run baseline. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Run a shipped benchmark; each prints JSON measured against a baseline in the same run.",
        subcommands = {ProjectionBenchCommand.class, BenchArchiveCommand.class, SeedBenchCommand.class, ProbeBench.class, WatchBenchCommand.class,
            dev.kiln.app.bench.StartupBenchmark.class, CommandLine.HelpCommand.class})
final class BenchCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a benchmark: kiln bench --help lists them");
    }
}
