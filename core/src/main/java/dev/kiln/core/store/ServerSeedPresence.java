package dev.kiln.core.store;

import java.util.Optional;

/**
 * Where a server's runtime seed (for its config as it is now) is against the store: here, in the store, both, or in
 * both but not the same copy, as {@link SeedPresence} says it for a target.
 *
 * @param server the server's name ({@code servers.json})
 * @param key the seed's store key, empty when it cannot be known without asking the registry (an unpinned spec never
 *     warmed here) or the runtime's version cannot be read
 * @param place where the seed is; empty when {@code key} is
 * @param store the store's manifest for that key, if it has one
 * @param note for people: why there is no place, or what the local seed's state adds (a corrupt one does not count);
 *     empty when nothing to add
 */
public record ServerSeedPresence(String server, Optional<StoreKey> key, Optional<SeedPresence.Place> place,
        Optional<ObjectManifest> store, String note) {
}
