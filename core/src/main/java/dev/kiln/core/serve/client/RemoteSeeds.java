package dev.kiln.core.serve.client;

import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.Seeds;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.ServerSeedInfo;
import dev.kiln.core.seed.ServerSeedsWarmed;
import dev.kiln.core.seed.WarmPlan;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.serve.wire.Wire;
import java.util.List;

/**
 * The {@link Seeds} of a daemon: each method one request to {@code seeds…}; warms run on the daemon's host.
 *
 * <p>Concurrency: stateless; the engine's client is thread-safe.
 */
final class RemoteSeeds implements Seeds {
    private final RemoteEngine engine;

    RemoteSeeds(RemoteEngine engine) {
        this.engine = engine;
    }

    @Override
    public List<SeedInfo> list() {
        return engine.list(Wire.SEEDS, null, SeedInfo.class);
    }

    @Override
    public List<WarmResult> history() {
        return engine.list(Wire.WARM_HISTORY, null, WarmResult.class);
    }

    @Override
    public WarmPlan plan(String target) {
        return engine.value("GET", Wire.WARM_PLAN, "target=" + RemoteEngine.enc(target), null, null, RemoteEngine.READ, WarmPlan.class);
    }

    @Override
    public Action<WarmResult> warm(String target, String idempotencyKey) {
        return engine.startAction(Wire.WARM, Wire.JSON.createObjectNode().put("target", target), idempotencyKey, WarmResult.class);
    }

    @Override
    public List<ServerSeedInfo> servers() {
        return engine.list(Wire.SERVER_SEEDS, null, ServerSeedInfo.class);
    }

    @Override
    public Action<ServerSeedsWarmed> warmServers(List<String> servers, String idempotencyKey) {
        com.fasterxml.jackson.databind.node.ObjectNode body = Wire.JSON.createObjectNode();
        servers.forEach(body.putArray("servers")::add);
        return engine.startAction(Wire.SERVER_SEEDS_WARM, body, idempotencyKey, ServerSeedsWarmed.class);
    }
}
