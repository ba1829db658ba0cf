package dev.kiln.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.Store;
import dev.kiln.core.serve.wire.StoreWire;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.serve.wire.WireStoreServers;
import dev.kiln.core.store.Transfer;

/**
 * The object store's routes: {@code GET store} (where each target's seed is: here, there, both), {@code POST
 * store/push} and {@code store/pull} of {@code {"target": T}} (a target's seed) or {@code {"server": S}} (a server's
 * runtime seed), 202 with {@code Idempotency-Key}, and {@code GET store/stats} (the client's counters alone: nothing is
 * asked of the store, so a monitor may poll it), {@code GET store/servers} (each seedable server's runtime seed: here,
 * there, both, differing), and {@code POST store/archives/push} of {@code {"directory": D, "members": [..]}} and
 * {@code store/archives/pull} of {@code {"sha256": S}} (a source archive, built or written on the daemon's host), and
 * {@code GET store/archives?sha256=S} (the store's manifest of that archive, or none).
 *
 * <p>Concurrency: stateless; the engine's actions are safe for concurrent use.
 */
final class StoreRoutes implements Rules.Routes {
    private final ApiServer.Backend backend;

    StoreRoutes(ApiServer.Backend backend) {
        this.backend = backend;
    }

    @Override
    public void routing(Rules rules) {
        rules.get(Wire.STORE_STATUS, x -> x.json(200, StoreWire.status(backend.actions().store().status())))
                .post(Wire.STORE_PUSH, x -> x.json(202, Wire.started(move(x.body(), x.key(), true))))
                .post(Wire.STORE_PULL, x -> x.json(202, Wire.started(move(x.body(), x.key(), false))))
                .get(Wire.STORE_STATS, x -> x.json(200, Wire.value(backend.actions().storeStats())))
                .get(Wire.STORE_SERVERS, x -> x.json(200, WireStoreServers.status(backend.actions().store().serverStatus())))
                .post(Wire.STORE_ARCHIVES_PUSH, x -> {
                    JsonNode req = x.body();
                    java.util.List<String> members = new java.util.ArrayList<>();
                    req.path("members").forEach(m -> members.add(m.asText()));
                    x.json(202, Wire.started(backend.actions().store().pushArchive(Exchange.field(req, "directory"), members,
                            x.key())));
                })
                .post(Wire.STORE_ARCHIVES_PULL, x -> x.json(202, Wire.started(
                        backend.actions().store().pullArchive(Exchange.field(x.body(), "sha256"), x.key()))))
                .get(Wire.STORE_ARCHIVE, x -> {
                    String sha = x.query("sha256");
                    x.json(200, StoreWire.archive(sha, backend.actions().store().archive(sha)));
                });
    }

    private Action<Transfer> move(JsonNode body, String key, boolean push) throws Exchange.BadRequest {
        Store a = backend.actions().store();
        if (body.has("server")) {
            String server = Exchange.field(body, "server");
            return push ? a.pushServer(server, key) : a.pullServer(server, key);
        }
        String target = Exchange.field(body, "target");
        return push ? a.push(target, key) : a.pull(target, key);
    }
}
