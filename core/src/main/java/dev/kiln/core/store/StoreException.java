package dev.kiln.core.store;

import org.jspecify.annotations.Nullable;

/**
 * A push or pull that did not happen, with a message that names the store, the key and what to do. Never carries a
 * credential: messages are built from the store's URL, endpoint and keys only.
 */
public class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
