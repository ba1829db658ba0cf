package dev.kiln.core.serve.client;

import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.Store;
import dev.kiln.core.serve.wire.StoreWire;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.serve.wire.WireStoreServers;
import dev.kiln.core.store.StoreStatus;
import dev.kiln.core.store.Transfer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link Store} of a daemon: {@code store…}; the daemon's host pushes and pulls, with its own credentials. A
 * server's runtime seed moves through the same routes as a target's, with {@code {"server": NAME}} instead of
 * {@code {"target": …}}; a source archive takes {@code store/archives/push|pull}.
 *
 * <p>Concurrency: stateless; the engine's client is thread-safe.
 */
final class RemoteStore implements Store {
    private final RemoteEngine engine;

    RemoteStore(RemoteEngine engine) {
        this.engine = engine;
    }

    @Override
    public Optional<StoreStatus> status() {
        return engine.value("GET", Wire.STORE_STATUS, null, null, null, RemoteEngine.READ, StoreWire.Status.class).toCore();
    }

    @Override
    public Optional<StoreStatus> serverStatus() {
        // the daemon hashes every server seed and asks the store per server (with its retries): not a quick read
        return engine.value("GET", Wire.STORE_SERVERS, null, null, null, RemoteEngine.SLOW, WireStoreServers.Status.class)
                .toCore();
    }

    @Override
    public Action<Transfer> push(String target, String idempotencyKey) {
        return move(Wire.STORE_PUSH, "target", target, idempotencyKey);
    }

    @Override
    public Action<Transfer> pull(String target, String idempotencyKey) {
        return move(Wire.STORE_PULL, "target", target, idempotencyKey);
    }

    @Override
    public Action<Transfer> pushServer(String server, String idempotencyKey) {
        return move(Wire.STORE_PUSH, "server", server, idempotencyKey);
    }

    @Override
    public Action<Transfer> pullServer(String server, String idempotencyKey) {
        return move(Wire.STORE_PULL, "server", server, idempotencyKey);
    }

    @Override
    public Action<Transfer> pushArchive(String directory, java.util.List<String> members, String idempotencyKey) {
        com.fasterxml.jackson.databind.node.ObjectNode body = Wire.JSON.createObjectNode().put("directory", directory);
        members.forEach(body.putArray("members")::add);
        return transfer(engine.startAction(Wire.STORE_ARCHIVES_PUSH, body, idempotencyKey, StoreWire.TransferWire.class));
    }

    @Override
    public Action<Transfer> pullArchive(String sha256, String idempotencyKey) {
        return transfer(engine.startAction(Wire.STORE_ARCHIVES_PULL, Wire.JSON.createObjectNode().put("sha256", sha256),
                idempotencyKey, StoreWire.TransferWire.class));
    }

    @Override
    public Optional<dev.kiln.core.store.ObjectManifest> archive(String sha256) {
        return engine.value("GET", Wire.STORE_ARCHIVE, "sha256=" + RemoteEngine.enc(sha256), null, null, RemoteEngine.READ,
                StoreWire.Archive.class).toCore();
    }

    private Action<Transfer> move(String route, String field, String name, String idempotencyKey) {
        return transfer(engine.startAction(route, Wire.JSON.createObjectNode().put(field, name), idempotencyKey,
                StoreWire.TransferWire.class));
    }

    private static Action<Transfer> transfer(Action<StoreWire.TransferWire> a) {
        CompletableFuture<Transfer> f = a.result().thenApply(StoreWire.TransferWire::toCore);
        return new Action<>() {
            @Override
            public String id() {
                return a.id();
            }

            @Override
            public CompletableFuture<Transfer> result() {
                return f;
            }

            @Override
            public void cancel() {
                a.cancel();
            }
        };
    }
}
