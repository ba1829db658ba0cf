package dev.kiln.core.api;

import java.util.Map;
import java.util.Objects;

/**
 * One revision of the projection as the API serves it.
 *
 * @param revision the document's revision
 * @param document the state document, UTF-8 JSON
 * @param leaves each leaf's JSON object (text) by leaf id, or null (then SSE deltas parse {@code document})
 * @param failures the failures array (JSON text), or null
 * @param meta the stable meta object (JSON text), or null
 */
public record Published(long revision, byte[] document, Map<String, String> leaves, String failures, String meta) {
    public Published {
        Objects.requireNonNull(document, "document");
    }

    /** A revision known only as its document. */
    public Published(long revision, byte[] document) {
        this(revision, document, null, null, null);
    }
}
