package dev.kiln.core.serve;

import dev.kiln.core.projection.Projector;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One revision of the projection as the API serves it: exact for its revision, from memory.
 *
 * <p>The document's bytes are assembled on first use ({@link #document()}) from the projector's chunks, not in the
 * tick: at 100,000 leaves the document is tens of megabytes, and most revisions are only ever sent as SSE deltas.
 * A revision somebody asks for whole is assembled once and kept while it is the current one.
 *
 * <p>Concurrency: immutable but for the memoized bytes (a volatile field; two racing first readers may both
 * assemble the same bytes, which is harmless).
 */
final class Published {
    private final long revision;
    private final Projector.@Nullable DocumentParts parts;
    private final @Nullable List<String> leafIds;
    private final @Nullable List<String> leafJson;
    private final @Nullable String failures;
    private final @Nullable String meta;
    private volatile byte @Nullable [] document;

    /**
     * @param revision the document's revision
     * @param document the state document, UTF-8 JSON
     * @param leafIds leaf ids in document order, or null (then SSE deltas parse {@code document})
     * @param leafJson each leaf's JSON object (text), position for position with {@code leafIds}, or null
     * @param failures the failures array (JSON text), or null
     * @param meta the stable meta object (JSON text), or null
     */
    Published(long revision, byte[] document, @Nullable List<String> leafIds, @Nullable List<String> leafJson,
            @Nullable String failures, @Nullable String meta) {
        this(revision, null, Objects.requireNonNull(document, "document"), leafIds, leafJson, failures, meta);
    }

    /** A revision known only as its document. */
    Published(long revision, byte[] document) {
        this(revision, document, null, null, null, null);
    }

    /** A revision of the projector, in its parts; the whole document is assembled when first asked for. */
    Published(Projector.DocumentParts parts) {
        this(parts.revision(), parts, null, parts.leafIds(), parts.leafJson(), parts.failures(), parts.meta());
    }

    private Published(long revision, Projector.@Nullable DocumentParts parts, byte @Nullable [] document,
            @Nullable List<String> leafIds, @Nullable List<String> leafJson, @Nullable String failures,
            @Nullable String meta) {
        if ((leafIds == null) != (leafJson == null) || leafIds != null && leafIds.size() != leafJson.size()) {
            throw new IllegalArgumentException("leaf ids and leaf JSON go together, one object per id");
        }
        this.revision = revision;
        this.parts = parts;
        this.document = document;
        this.leafIds = leafIds;
        this.leafJson = leafJson;
        this.failures = failures;
        this.meta = meta;
    }

    long revision() {
        return revision;
    }

    /** The state document, UTF-8 JSON; callers must not modify the array. */
    byte[] document() {
        byte[] d = document;
        if (d == null) {
            d = Objects.requireNonNull(parts, "parts").bytes();
            document = d;
        }
        return d;
    }

    @Nullable List<String> leafIds() {
        return leafIds;
    }

    @Nullable List<String> leafJson() {
        return leafJson;
    }

    @Nullable String failures() {
        return failures;
    }

    @Nullable String meta() {
        return meta;
    }
}
