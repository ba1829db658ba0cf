package dev.kiln.core.engine;

import dev.kiln.core.startup.Bytecode;
import dev.kiln.core.startup.BytecodeReport;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.SavedProbeRun;
import dev.kiln.core.startup.SavedSweep;
import dev.kiln.core.startup.ServerConfig;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The servers of {@code servers.json} as the engine's host runs them: the startup probe, its saved runs and sweeps,
 * and the bytecode of a Python server's environment. Implemented once in process (shared by the local engine and the
 * daemon's routes), once over {@code /api/v1}.
 *
 * <p>Thread-safety: thread-safe. Methods documented "from memory" never block; the others may block on disk,
 * processes or the network. A probe or precompile sent twice with one idempotency key runs once.
 */
public interface Probes {
    /** The servers of {@code servers.json}; none when it is absent. */
    List<ServerConfig> servers();

    /** The startup timeout of a server that sets none ({@code kiln.json}, default 30 s). From memory. */
    Duration defaultStartupTimeout();

    /** Starts the servers at once and times each to its {@code initialize} answer; steps arrive as {@code ProbeEvent}s. The run is saved. */
    Action<ProbeReport> probe(ProbeRequest request, String idempotencyKey);

    /** The workspace's saved probe runs, newest first (the CLI's included). */
    List<SavedRun> runs();

    /** A saved run, read ({@code kiln probe --json} writes the same document). */
    SavedProbeRun run(String id);

    /** The latest saved CPU sweep, if any. */
    Optional<SavedSweep> latestSweep();

    /** Audits the bytecode of a Python server's environment (fresh, stale, missing {@code .pyc}). */
    BytecodeReport audit(String server);

    /** Precompiles the server's environment ({@code compileall}), then re-audits. */
    Action<Bytecode.CompileResult> precompile(String server, String idempotencyKey);
}
