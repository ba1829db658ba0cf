package dev.kiln.app.common;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;

/**
 * The CLI's one configured {@link ObjectMapper}: every command builds its output with it and prints through
 * {@link #compact} or {@link #pretty}. Thread-safe once configured (Jackson's mappers are).
 */
public final class Json {
    /** Output keeps insertion order (maps and objects), so figures appear in the order a command puts them. */
    public static final ObjectMapper MAPPER = JsonMapper.builder().build();
    private static final ObjectWriter PRETTY = MAPPER.writerWithDefaultPrettyPrinter();

    private Json() {
    }

    /** A new empty object. */
    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** {@code value} (a tree, map, list or scalar) as JSON on one line. */
    public static String compact(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot render as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** {@code value} as indented JSON, for people. */
    public static String pretty(Object value) {
        try {
            return PRETTY.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot render as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** {@link #compact} when {@code oneLine}, else {@link #pretty}. */
    public static String render(Object value, boolean oneLine) {
        return oneLine ? compact(value) : pretty(value);
    }
}
