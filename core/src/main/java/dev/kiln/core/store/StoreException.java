package dev.kiln.core.store;

import org.jspecify.annotations.Nullable;

/**
 * A push or pull that did not happen, with a message that names the store, the key and what to do. Never carries a
 * credential: messages are built from the store's URL, endpoint and keys only.
 */
public class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StoreException(String message) {
        this(message, null, false);
    }

    private final boolean unreachable;

    public StoreException(String message, @Nullable Throwable cause) {
        this(message, cause, false);
    }

    StoreException(String message, @Nullable Throwable cause, boolean unreachable) {
        super(message, cause);
        this.unreachable = unreachable;
    }

    /**
     * Whether the store did not answer (down, too slow, or failing with 5xx) through all the bounded retries — what
     * health's {@code store_unreachable} reports; a refusal (403, a missing key, a corrupted object) is an answer.
     */
    public boolean unreachable() {
        return unreachable;
    }
}
