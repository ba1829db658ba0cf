package dev.kiln.core.store;

import dev.kiln.core.telemetry.KilnEvent;
import java.time.Instant;

/** What the store publishes: one event per push or pull, however it ended. */
public sealed interface StoreEvent extends KilnEvent {

    /** The key it was about. */
    StoreKey key();

    /** A push or pull ended well. */
    record Moved(Instant at, Transfer transfer) implements StoreEvent {
        @Override
        public StoreKey key() {
            return transfer.key();
        }

        @Override
        public String summary() {
            return "store " + transfer.outcome().wire() + " " + transfer.key() + ": " + transfer.message();
        }
    }

    /**
     * A push or pull failed.
     *
     * @param operation {@code push} or {@code pull}
     */
    record Failed(Instant at, StoreKey key, String operation, String message) implements StoreEvent {
        @Override
        public String summary() {
            return "store " + operation + " " + key + " failed: " + message;
        }
    }
}
