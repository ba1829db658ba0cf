package dev.kiln.core.engine;

import dev.kiln.core.store.ObjectManifest;
import dev.kiln.core.store.StoreStatus;
import dev.kiln.core.store.Transfer;
import java.util.Optional;

/**
 * The workspace's object store ({@code kiln.json "store"}): seeds and source archives moved through S3 by the engine's
 * host, with that host's credentials. Implemented once in process (shared by the local engine and the daemon's routes), once over
 * {@code /api/v1}.
 *
 * <p>Thread-safety: thread-safe; every method may block on disk or the network (the store is asked). A push or pull
 * sent twice with one idempotency key runs once.
 */
public interface Store {
    /**
     * Per target, where its seed for the current lockfile is: here, in the store, both, or differing; empty when the
     * workspace names no store. Asks the store (one request per target).
     */
    Optional<StoreStatus> status();

    /** Pushes {@code target}'s seed from the engine's host to the workspace's store. */
    Action<Transfer> push(String target, String idempotencyKey);

    /** Pulls {@code target}'s seed for its current lockfile from the store onto the engine's host (atomic swap). */
    Action<Transfer> pull(String target, String idempotencyKey);

    /**
     * Per seedable server, where its runtime seed is against the store ({@link StoreStatus#servers}): here, in the
     * store, both, or differing; empty when the workspace names no store. Hashes the server seeds on the engine's host
     * and asks the store (one request per server).
     */
    Optional<StoreStatus> serverStatus();

    /** Pushes the runtime seed of server {@code server} (servers.json; launched through npx/uvx) to the store. */
    Action<Transfer> pushServer(String server, String idempotencyKey);

    /** Pulls the store's runtime seed of server {@code server} onto the engine's host (checked, atomic swap). */
    Action<Transfer> pullServer(String server, String idempotencyKey);

    /**
     * Builds the deterministic archive of {@code members} (all when empty) of {@code directory}, relative to the
     * workspace and refused as {@link Archives#archive} refuses it, on the engine's host, and pushes it to the store under
     * {@code archives/<its sha256>} with that host's credentials. A key already stored is left as it is
     * ({@code already_stored}); the transfer's manifest names the SHA-256 to pull it by.
     */
    Action<Transfer> pushArchive(String directory, java.util.List<String> members, String idempotencyKey);

    /**
     * Pulls the archive {@code sha256} from the store onto the engine's host, checked against that SHA-256, into
     * {@code archivesDir()/<sha256>.tar.gz} of the workspace's layout there (atomically: the file it replaces, or the
     * checked one).
     */
    Action<Transfer> pullArchive(String sha256, String idempotencyKey);

    /**
     * The store's manifest of the archive {@code sha256} (its size, when and by which Kiln it was pushed), asked of the
     * store from the engine's host; empty when the store has no complete copy of it.
     *
     * @throws EngineException {@code REJECTED} when {@code sha256} is not one or the workspace names no store;
     *     {@code FAILED} when the store cannot be asked
     */
    Optional<ObjectManifest> archive(String sha256);
}
