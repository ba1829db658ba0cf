package dev.kiln.core.serve.client;

import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.ProbeRequest;
import dev.kiln.core.engine.Probes;
import dev.kiln.core.engine.SavedRun;
import dev.kiln.core.serve.wire.Wire;
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
 * The {@link Probes} of a daemon: {@code servers}, {@code probe…} and {@code bytecode…}; probes and precompiles run
 * on the daemon's host. The default startup timeout is the one {@code GET workspace} answered at attach.
 *
 * <p>Concurrency: immutable; the engine's client is thread-safe.
 */
final class RemoteProbes implements Probes {
    private final RemoteEngine engine;
    private final Duration defaultStartupTimeout;

    RemoteProbes(RemoteEngine engine, Duration defaultStartupTimeout) {
        this.engine = engine;
        this.defaultStartupTimeout = defaultStartupTimeout;
    }

    @Override
    public List<ServerConfig> servers() {
        return engine.list(Wire.SERVERS, null, ServerConfig.class);
    }

    @Override
    public Duration defaultStartupTimeout() {
        return defaultStartupTimeout;
    }

    @Override
    public Action<ProbeReport> probe(ProbeRequest request, String idempotencyKey) {
        return engine.startAction(Wire.PROBE, Wire.probeRequest(request), idempotencyKey, ProbeReport.class);
    }

    @Override
    public List<SavedRun> runs() {
        return engine.list(Wire.PROBE_RUNS, null, SavedRun.class);
    }

    @Override
    public SavedProbeRun run(String id) {
        String route = Wire.withId(Wire.PROBE_RUN, id);
        ServeClient.Answer a = engine.request("GET", route, null, null, null, RemoteEngine.READ);
        engine.check("GET /" + route, a);
        return engine.read("GET /" + route, a, SavedProbeRun::fromJson);
    }

    @Override
    public Optional<SavedSweep> latestSweep() {
        ServeClient.Answer a = engine.request("GET", Wire.PROBE_SWEEP, null, null, null, RemoteEngine.READ);
        if (a.status() == 404 && Wire.errorText(a.text()).contains("(no_sweep)")) {
            return Optional.empty();
        }
        engine.check("GET /" + Wire.PROBE_SWEEP, a);
        return Optional.of(engine.read("GET /" + Wire.PROBE_SWEEP, a, SavedSweep::fromJson));
    }

    @Override
    public BytecodeReport audit(String server) {
        return engine.value("GET", Wire.BYTECODE, "server=" + RemoteEngine.enc(server), null, null, Duration.ofSeconds(60),
                BytecodeReport.class);
    }

    @Override
    public Action<Bytecode.CompileResult> precompile(String server, String idempotencyKey) {
        return engine.startAction(Wire.PRECOMPILE, Wire.JSON.createObjectNode().put("server", server), idempotencyKey,
                Bytecode.CompileResult.class);
    }
}
