package dev.kiln.core.api;

import java.util.Objects;

/**
 * One revision of the projection as the API serves it: the bytes of the state document (compact JSON).
 *
 * @param revision the document's revision
 * @param document the state document, UTF-8 JSON
 */
public record Published(long revision, byte[] document) {
    public Published {
        Objects.requireNonNull(document, "document");
    }
}
