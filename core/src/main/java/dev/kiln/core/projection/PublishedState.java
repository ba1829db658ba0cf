package dev.kiln.core.projection;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A published state document as a reader sees it ({@code observer/state.json}, or a daemon's {@code /api/v1/state}):
 * its revision and times, its leaves by id and its failures by path. Read by the document's schema, the same class
 * that renders what the projector writes, so the writer and its readers cannot drift apart. Immutable.
 *
 * @param source where it was read (a file path or a URL)
 * @param revision its revision
 * @param generatedAt when its tick ran ({@code generated_at}), or null
 * @param tickReason why that tick ran, or empty
 * @param leaves leaf id → leaf object, in document order
 * @param failures path → failure object, in document order
 * @param meta its meta object (watch status, the daemon's runtime meta)
 */
public record PublishedState(String source, long revision, @Nullable Instant generatedAt, String tickReason,
        Map<String, JsonNode> leaves, Map<String, JsonNode> failures, JsonNode meta) {

    public PublishedState {
        leaves = Collections.unmodifiableMap(new LinkedHashMap<>(leaves));
        failures = Collections.unmodifiableMap(new LinkedHashMap<>(failures));
    }

    /**
     * The document at {@code file}; null when there is none.
     *
     * @throws IOException when it cannot be read or is no state document; the message names the file and what is wrong
     */
    public static @Nullable PublishedState read(Path file) throws IOException {
        return StateDocument.read(file);
    }

    /**
     * Parses a document read from {@code source}.
     *
     * @throws IOException when it is no state document; the message names {@code source} and what is wrong
     */
    public static PublishedState parse(String source, byte[] bytes) throws IOException {
        return StateDocument.parse(source, bytes);
    }
}
