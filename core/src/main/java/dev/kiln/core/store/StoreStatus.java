package dev.kiln.core.store;

import java.util.List;
import java.util.Optional;

/**
 * The workspace's store as its engine's host sees it: where it is, each target's seed there and here, the counters.
 *
 * @param store the store's URL and endpoint, for people (never a credential)
 * @param seeds per target, where its seed for the current lockfile is (targets that could not be asked are left out
 *     and named in {@code problem})
 * @param stats pushes, pulls, bytes and failures of this host's client
 * @param problem why the store (or some target or server) could not be asked, when it could not
 * @param servers per seedable server, where its runtime seed is ({@code Store.serverStatus}; empty in the
 *     targets' answer, {@code Store.status}, which does not hash the server seeds)
 */
public record StoreStatus(String store, List<SeedPresence> seeds, StoreStats stats, Optional<String> problem,
        List<ServerSeedPresence> servers) {
    public StoreStatus {
        seeds = List.copyOf(seeds);
        servers = List.copyOf(servers);
    }

    /** The targets' answer: no server rows. */
    public StoreStatus(String store, List<SeedPresence> seeds, StoreStats stats, Optional<String> problem) {
        this(store, seeds, stats, problem, List.of());
    }
}
