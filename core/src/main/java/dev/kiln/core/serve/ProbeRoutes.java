package dev.kiln.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.serve.wire.Wire;
import java.util.Optional;

/**
 * The startup probe's routes: {@code GET servers} (servers.json, secrets redacted), {@code POST probe} (202,
 * {@code Idempotency-Key}), {@code GET probe/runs}, {@code probe/runs/{id}}, {@code probe/sweep} (404
 * {@code no_sweep} before one is saved), and the bytecode audit: {@code GET bytecode?server=S}, {@code POST
 * bytecode/precompile {"server"}}.
 *
 * <p>Concurrency: stateless; the engine's actions are safe for concurrent use.
 */
final class ProbeRoutes implements Rules.Routes {
    private final ApiServer.Backend backend;

    ProbeRoutes(ApiServer.Backend backend) {
        this.backend = backend;
    }

    @Override
    public void routing(Rules rules) {
        rules.get(Wire.SERVERS, x -> x.json(200, Wire.value(backend.actions().probes().servers().stream().map(Wire::redacted).toList())))
                .post(Wire.PROBE, x -> x.json(202, Wire.started(backend.actions().probes().probe(Wire.readProbeRequest(x.body()),
                        x.key()))))
                .get(Wire.PROBE_RUNS, x -> x.json(200, Wire.value(backend.actions().probes().runs())))
                .get(Wire.PROBE_RUN, x -> x.json(200, backend.actions().probeRunDocument(x.id())))
                .get(Wire.PROBE_SWEEP, x -> {
                    Optional<JsonNode> sweep = backend.actions().latestSweepDocument();
                    if (sweep.isEmpty()) {
                        x.error(404, "no_sweep", "no CPU sweep has been saved in this workspace (kiln probe --sweep saves one)");
                    } else {
                        x.json(200, sweep.get());
                    }
                })
                .get(Wire.BYTECODE, x -> x.json(200, Wire.value(backend.actions().probes().audit(x.query("server")))))
                .post(Wire.PRECOMPILE, x -> x.json(202, Wire.started(backend.actions().probes().precompile(
                        Exchange.field(x.body(), "server"), x.key()))));
    }
}
