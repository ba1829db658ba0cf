package dev.kiln.core.store;

import dev.kiln.core.telemetry.KilnEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What the store publishes: a push or pull started, was done, or failed (one value type, so the API carries it as one
 * frame type, {@code store}, and a reader switches on {@link #phase}).
 *
 * @param at when
 * @param operation push or pull
 * @param phase started, done or failed
 * @param key the object's key
 * @param outcome how a done transfer ended (pushed, already stored, pulled, unchanged); empty otherwise
 * @param bytes bytes moved by a done transfer (0 otherwise)
 * @param duration how long a done or failed transfer took (zero when it started)
 * @param message for people: what moved, or why it failed (never a credential)
 */
public record StoreEvent(Instant at, Operation operation, Phase phase, StoreKey key, Optional<Transfer.Outcome> outcome,
        long bytes, Duration duration, String message) implements KilnEvent {

    public StoreEvent {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(message, "message");
    }

    /** Which way the object moves. */
    public enum Operation {
        PUSH, PULL;

        /** lower_snake, for the wire. */
        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Where the transfer is. */
    public enum Phase {
        STARTED, DONE, FAILED;

        /** lower_snake, for the wire. */
        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A push or pull of {@code key} began. */
    public static StoreEvent started(Instant at, Operation operation, StoreKey key) {
        return new StoreEvent(at, operation, Phase.STARTED, key, Optional.empty(), 0, Duration.ZERO, "");
    }

    /** {@code transfer} ended well. */
    public static StoreEvent done(Instant at, Operation operation, Transfer transfer) {
        return new StoreEvent(at, operation, Phase.DONE, transfer.key(), Optional.of(transfer.outcome()), transfer.bytes(),
                transfer.duration(), transfer.message());
    }

    /** A push or pull of {@code key} failed after {@code took}, for the reason {@code message}. */
    public static StoreEvent failed(Instant at, Operation operation, StoreKey key, Duration took, String message) {
        return new StoreEvent(at, operation, Phase.FAILED, key, Optional.empty(), 0, took, message);
    }

    @Override
    public String summary() {
        return switch (phase) {
            case STARTED -> "store " + operation.wire() + " " + key + " started";
            case DONE -> "store " + operation.wire() + " " + key + ": " + outcome.map(Transfer.Outcome::wire).orElse("done")
                    + " (" + message + ")";
            case FAILED -> "store " + operation.wire() + " " + key + " failed: " + message;
        };
    }
}
