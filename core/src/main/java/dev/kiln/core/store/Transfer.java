package dev.kiln.core.store;

import java.time.Duration;

/**
 * What one push or pull did.
 *
 * @param key the object's key
 * @param outcome what happened
 * @param manifest the store's manifest of the key (the one pushed, or the one found there)
 * @param bytes bytes sent or received (0 when nothing moved)
 * @param duration how long it took, end to end (for a pull: download, unpack, checks and swap)
 * @param message one line for people
 */
public record Transfer(StoreKey key, Outcome outcome, ObjectManifest manifest, long bytes, Duration duration,
        String message) {

    /** How a transfer ended (failures are a {@link StoreException}). */
    public enum Outcome {
        /** This push wrote the object. */
        PUSHED,
        /** The store already had the key (another host pushed it first, or an earlier push): nothing was written. */
        ALREADY_STORED,
        /** This pull installed the store's copy. */
        PULLED,
        /** The local copy already was the store's: nothing was downloaded. */
        UNCHANGED;

        /** lower_snake, for the wire and JSON output. */
        public String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
