package dev.kiln.core.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A published state document, as a reader sees it: its revision and times, its leaves by id and its failures by path.
 *
 * @param source where it was read (a file path or a URL)
 * @param revision its revision
 * @param generatedAt when its tick ran ({@code generated_at}), or null
 * @param tickReason why that tick ran, or empty
 * @param leaves leaf id → leaf object, in document order
 * @param failures path → failure object, in document order
 * @param meta its meta object (watch status, the daemon's runtime meta)
 */
record PublishedState(String source, long revision, Instant generatedAt, String tickReason, Map<String, JsonNode> leaves,
        Map<String, JsonNode> failures, JsonNode meta) {

    static final ObjectMapper MAPPER = new ObjectMapper();

    /** The document at {@code file}; null when there is none. */
    static PublishedState read(Path file) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        }
        return parse(file.toString(), bytes);
    }

    /** Parses a document; the exception says what is wrong with it. */
    static PublishedState parse(String source, byte[] bytes) throws IOException {
        JsonNode doc;
        try {
            doc = MAPPER.readTree(bytes);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IOException(source + " is not valid JSON (" + e.getOriginalMessage() + ")", e);
        }
        if (doc == null || !doc.isObject() || !doc.path("leaves").isArray()) {
            throw new IOException(source + " is not a Kiln state document (no leaves array)");
        }
        Map<String, JsonNode> leaves = new LinkedHashMap<>(doc.path("leaves").size() * 2);
        for (JsonNode l : doc.path("leaves")) {
            leaves.put(l.path("leaf_id").asText(), l);
        }
        Map<String, JsonNode> failures = new LinkedHashMap<>();
        for (JsonNode f : doc.path("failures")) {
            failures.put(f.path("path").asText(), f);
        }
        return new PublishedState(source, doc.path("revision").asLong(0), instant(doc.path("generated_at").asText(null)),
                doc.path("tick").path("reason").asText(""), leaves, failures, doc.path("meta"));
    }

    static Instant instant(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
