package dev.kiln.core.serve;

import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.serve.wire.WireServerSeeds;

/**
 * The seed caches' routes: {@code GET seeds}, {@code seeds/history}, {@code seeds/plan?target=T}, {@code POST
 * seeds/warm {"target"}} (202, {@code Idempotency-Key}), and the runtime seeds of npx/uvx servers: {@code GET
 * seeds/servers}, {@code POST seeds/servers/warm {"servers": [..]}}.
 *
 * <p>Concurrency: stateless; the engine's actions are safe for concurrent use.
 */
final class SeedRoutes implements Rules.Routes {
    private final ApiServer.Backend backend;

    SeedRoutes(ApiServer.Backend backend) {
        this.backend = backend;
    }

    @Override
    public void routing(Rules rules) {
        rules.get(Wire.SEEDS, x -> x.json(200, Wire.value(backend.actions().seeds().list())))
                .get(Wire.WARM_HISTORY, x -> x.json(200, Wire.value(backend.actions().seeds().history())))
                .get(Wire.WARM_PLAN, x -> x.json(200, Wire.value(backend.actions().seeds().plan(x.query("target")))))
                .post(Wire.WARM, x -> x.json(202, Wire.started(backend.actions().seeds().warm(Exchange.field(x.body(), "target"),
                        x.key()))))
                .get(Wire.SERVER_SEEDS, x -> x.json(200, Wire.value(backend.actions().seeds().servers())))
                .post(Wire.SERVER_SEEDS_WARM, x -> x.json(202, Wire.started(backend.actions().seeds().warmServers(
                        WireServerSeeds.servers(x.body()), x.key()))));
    }
}
