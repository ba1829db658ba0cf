/**
 * Server startup timelines: many MCP servers initialized at once, the way an agent client does at session start,
 * each timed to its {@code initialize} answer against its startup timeout; and the Python bytecode audit and
 * precompile that halves a bytecode-less server's cold start.
 *
 * <p>Public face: {@link dev.kiln.core.startup.ServerConfigs} reads the configs users keep ({@code mcpServers} JSON,
 * Codex {@code config.toml}); {@link dev.kiln.core.startup.StartupProbe} runs a probe and returns a
 * {@link dev.kiln.core.startup.ProbeReport}, publishing {@link dev.kiln.core.startup.ProbeEvent}s as it goes;
 * {@link dev.kiln.core.startup.ProbeRuns} keeps runs (and sweeps) in a workspace; {@link dev.kiln.core.startup.CpuQuota}
 * runs a probe's servers under one fractional CPU share; {@link dev.kiln.core.startup.Sweep} probes at several shares,
 * before and after precompiling, into a {@link dev.kiln.core.startup.SweepReport}; {@link dev.kiln.core.startup.Phase}
 * attributes a server's time to before and after its first output; {@link dev.kiln.core.startup.HandshakeOrder} says
 * which MCP revision is asked first; {@link dev.kiln.core.startup.Bytecode} audits and precompiles; {@link dev.kiln.core.startup.DemoServer} is the bundled stdlib-only server. {@link dev.kiln.core.startup.Launcher} tells a launcher that fetches
 * ({@code npx}, {@code uvx}, …) from a direct start, and its {@link dev.kiln.core.startup.FetchPhase} is the time spent
 * in it, from evidence; {@link dev.kiln.core.startup.ClientProfile} judges a report as one agent client does;
 * {@link dev.kiln.core.startup.NodeCompileCache} is Node's counterpart of bytecode. The MCP client itself
 * (handshake, stdio and Streamable HTTP channels, process-tree ending) is package-private.
 */
@NullMarked
package dev.kiln.core.startup;

import org.jspecify.annotations.NullMarked;
