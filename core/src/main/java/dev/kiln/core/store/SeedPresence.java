package dev.kiln.core.store;

import java.util.Optional;

/**
 * Where a target's seed for its current lockfile is: here, in the store, both, or in both but not the same copy.
 *
 * @param target the target
 * @param lockHash the target's lockfile hash now
 * @param place where the seed is
 * @param store the store's manifest for that hash, if it has one
 */
public record SeedPresence(String target, String lockHash, Place place, Optional<ObjectManifest> store) {

    /** Where a seed is. */
    public enum Place {
        /** Only this host has a current seed: push offers. */
        LOCAL,
        /** Only the store has it: pull offers. */
        STORE,
        /** Both, the same copy (this host pushed it or pulled it). */
        BOTH,
        /** Both have a seed for this lockfile, warmed separately: a pull replaces this host's with the store's. */
        DIFFERING,
        /** Neither: warm it. */
        NONE;

        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
