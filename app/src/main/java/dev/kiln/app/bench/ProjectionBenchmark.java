package dev.kiln.app.bench;

import static dev.kiln.core.telemetry.Figures.median;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.Json;
import dev.kiln.core.contract.Contract;
import dev.kiln.core.contract.ContractCodec;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.snapshot.SnapshotBuilder;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.telemetry.Figures;
import dev.kiln.core.workspace.FileTrees;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code kiln bench projection}: the cost of a tick against its floor, in one process on one synthetic
 * workspace (N contracts nested three levels deep, in a temp directory removed afterwards).
 *
 * <p>Each figure is the median of several rounds after warm-up rounds: the bare stat walk (the same
 * enumeration and attribute reads a build does, nothing parsed: the floor), a cold tick (fresh projector,
 * empty cache, state.json written), an unchanged tick, a tick after one file changed (state.json rewritten),
 * and a tick with the parse cache off (every file parsed, nothing written).
 */
final class ProjectionBenchmark {
    /** Contracts generated when no count is given. */
    static final int DEFAULT_CONTRACTS = 10_000;
    private static final Instant EPOCH = Instant.parse("2026-01-05T09:00:00Z");

    private ProjectionBenchmark() {
    }

    /**
     * One benchmark run's figures.
     *
     * @param contracts contracts in the workspace
     * @param rounds measured rounds (each figure is the median over them; the walk and the unchanged tick are
     *     measured three times a round); parses are the worst over the rounds (fewest cold, most unchanged and
     *     one-changed), so a single bad round shows
     */
    record Result(int contracts, int rounds, double statWalkMs, double coldTickMs, double unchangedTickMs,
            double oneChangedTickMs, double reparseAllTickMs, int parsesCold, int parsesUnchanged, int parsesOneChanged) {

        public double unchangedOverStatWalk() {
            return unchangedTickMs / statWalkMs;
        }

        public double reparseAllOverUnchanged() {
            return reparseAllTickMs / unchangedTickMs;
        }

        public ObjectNode toJson() {
            ObjectNode o = Json.object();
            o.put("benchmark", "projection");
            o.put("contracts", contracts);
            o.put("rounds", rounds);
            o.put("stat_walk_ms", r(statWalkMs));
            o.put("cold_tick_ms", r(coldTickMs));
            o.put("unchanged_tick_ms", r(unchangedTickMs));
            o.put("one_changed_tick_ms", r(oneChangedTickMs));
            o.put("reparse_all_tick_ms", r(reparseAllTickMs));
            o.putObject("parses").put("cold", parsesCold).put("unchanged", parsesUnchanged).put("one_changed", parsesOneChanged);
            o.putObject("ratios")
                    .put("unchanged_over_stat_walk", r(unchangedOverStatWalk()))
                    .put("reparse_all_over_unchanged", r(reparseAllOverUnchanged()));
            o.putObject("targets")
                    .put("unchanged_over_stat_walk_max", 1.5)
                    .put("reparse_all_over_unchanged_min", 50.0);
            return o;
        }

        private static double r(double v) {
            return Figures.round(v, 2);
        }
    }

    /** Generates a workspace of {@code contracts} in a temp directory, measures {@code rounds} rounds, cleans up. */
    static Result run(int contracts, int rounds) {
        if (contracts < 1) {
            throw new IllegalArgumentException("contracts must be at least 1, got " + contracts);
        }
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds must be at least 1, got " + rounds);
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("kiln-bench-projection-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temp directory for the benchmark", e);
        }
        try {
            List<Path> files = generate(dir, contracts);
            return measure(WorkspaceLayout.of(dir), files, rounds);
        } finally {
            deleteTree(dir);
        }
    }

    private static Result measure(WorkspaceLayout ws, List<Path> files, int rounds) {
        int warmup = 2;
        int pairs = 3; // walk and unchanged tick measured back to back, so both see the same machine
        double[] walk = new double[rounds * pairs];
        double[] unchanged = new double[rounds * pairs];
        double[] cold = new double[rounds];
        double[] one = new double[rounds];
        double[] reparse = new double[rounds];
        int[] parses = new int[3];
        Projector noCache = Projector.builder(ws).parseCache(false).build();
        for (int round = 0; round < warmup + rounds; round++) {
            int i = round - warmup;
            boolean measured = i >= 0;
            try {
                Files.deleteIfExists(ws.stateFile());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Projector p = Projector.builder(ws).build();
            SnapshotBuilder bare = new SnapshotBuilder(ws.tasksDir()); // a bare stat walk: the floor
            TickResult c = p.tick(WakeReason.STARTUP);
            int unchangedParses = 0;
            for (int k = 0; k < pairs; k++) {
                long w0 = System.nanoTime();
                bare.statWalk();
                long w = System.nanoTime() - w0;
                TickResult u = p.tick(WakeReason.HEARTBEAT);
                unchangedParses = Math.max(unchangedParses, u.stats().parsed());
                if (measured) {
                    walk[i * pairs + k] = w / 1e6;
                    unchanged[i * pairs + k] = u.durationMillis();
                }
            }
            edit(files.get(Math.floorMod(round * 7919, files.size())), round);
            TickResult o = p.tick(WakeReason.CHANGE);
            noCache.tick(WakeReason.CHANGE); // catches up with the edit, so the measured tick below writes nothing
            TickResult r = noCache.tick(WakeReason.MANUAL);
            if (measured) {
                cold[i] = c.durationMillis();
                one[i] = o.durationMillis();
                reparse[i] = r.durationMillis();
                parses[0] = Math.min(i == 0 ? Integer.MAX_VALUE : parses[0], c.stats().parsed());
                parses[1] = Math.max(parses[1], unchangedParses);
                parses[2] = Math.max(parses[2], o.stats().parsed());
            }
        }
        return new Result(files.size(), rounds, median(walk), median(cold), median(unchanged), median(one), median(reparse),
                parses[0], parses[1], parses[2]);
    }

    /** Writes {@code n} contracts as {@code tasks/area-A/project-P/leaf-L/contract.json}. */
    static List<Path> generate(Path root, int n) {
        int fan = (int) Math.ceil(Math.cbrt(n));
        List<Path> files = new ArrayList<>(n);
        long self = ProcessHandle.current().pid();
        try {
            for (int i = 0; i < n; i++) {
                String leaf = String.format("area-%02d/project-%02d/leaf-%04d", i / (fan * fan), (i / fan) % fan, i);
                Path dir = root.resolve("tasks").resolve(leaf);
                Files.createDirectories(dir);
                Contract.Engine engine = i == 0 ? new Contract.Engine(self, "kiln bench", Instant.now(), Map.of())
                        : i % 200 == 1 ? new Contract.Engine(4_000_000 + i, "python -m worker --leaf " + leaf, EPOCH, Map.of()) : null;
                Contract c = new Contract(leaf, "Synthetic leaf " + i, i % 3 == 0 ? "done" : "running",
                        List.of("src/" + leaf, "docs/" + leaf.substring(leaf.lastIndexOf('/') + 1)), engine,
                        EPOCH.plus(i % 4 == 0 ? -3 : 3_000, ChronoUnit.DAYS), EPOCH.minus(i % 1000, ChronoUnit.MINUTES),
                        i % 10 == 0 ? Map.of("x_owner", Json.object().put("team", "t" + i % 7)) : Map.of());
                Path f = dir.resolve("contract.json");
                Files.write(f, ContractCodec.write(c));
                files.add(f);
            }
            Files.createDirectories(root.resolve("observer/drift"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the benchmark workspace in " + root, e);
        }
        return files;
    }

    /** A real edit: a new title whose length differs every round, so size (not only time) moves. */
    private static void edit(Path file, int round) {
        try {
            Contract c = ContractCodec.read(Files.readAllBytes(file));
            Files.write(file, ContractCodec.write(new Contract(c.leafId(), "Edited in round " + round + " " + "x".repeat(round),
                    c.status(), c.enclosure(), c.engine(), c.deadline(), c.updatedAt(), c.unknown())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (dev.kiln.core.contract.ContractReadException e) {
            throw new IllegalStateException("the benchmark's own contract does not parse: " + e.getMessage(), e);
        }
    }

    private static void deleteTree(Path dir) {
        try {
            FileTrees.delete(dir);
        } catch (IOException e) {
            System.err.println("kiln: could not remove the benchmark's temp directory " + dir + ": " + e.getMessage());
        }
    }
}
