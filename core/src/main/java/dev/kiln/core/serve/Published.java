package dev.kiln.core.serve;

import java.util.List;
import java.util.Objects;

/**
 * One revision of the projection as the API serves it.
 *
 * @param revision the document's revision
 * @param document the state document, UTF-8 JSON
 * @param leafIds leaf ids in document order, or null (then SSE deltas parse {@code document})
 * @param leafJson each leaf's JSON object (text), position for position with {@code leafIds}, or null
 * @param failures the failures array (JSON text), or null
 * @param meta the stable meta object (JSON text), or null
 */
record Published(long revision, byte[] document, List<String> leafIds, List<String> leafJson, String failures,
        String meta) {
    public Published {
        Objects.requireNonNull(document, "document");
        if ((leafIds == null) != (leafJson == null) || leafIds != null && leafIds.size() != leafJson.size()) {
            throw new IllegalArgumentException("leaf ids and leaf JSON go together, one object per id");
        }
    }

    /** A revision known only as its document. */
    Published(long revision, byte[] document) {
        this(revision, document, null, null, null, null);
    }
}
