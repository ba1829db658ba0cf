package dev.kiln.core.contract;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One leaf task's enclosure contract ({@code tasks/<leaf>/contract.json}), as declared by its file.
 *
 * <p>Fields Kiln does not know are kept in {@link #unknown()}, in file order, so that a read followed by a
 * write keeps every piece of data. The values there are private copies; treat them as read-only.
 *
 * @param leafId the declared {@code leaf_id}, or {@code null} when the file has none
 * @param title human title, or {@code null}
 * @param status free-form status ({@code pending}, {@code running}, {@code done}…), or {@code null}
 * @param enclosure paths the leaf may touch
 * @param engine the declared engine process, or {@code null}
 * @param deadline when the leaf is due, or {@code null}
 * @param updatedAt when the contract was last updated, or {@code null}
 * @param unknown fields Kiln does not model, by name, in file order
 */
public record Contract(
        @Nullable String leafId,
        @Nullable String title,
        @Nullable String status,
        List<String> enclosure,
        @Nullable Engine engine,
        @Nullable Instant deadline,
        @Nullable Instant updatedAt,
        Map<String, JsonNode> unknown) {

    public Contract {
        enclosure = List.copyOf(enclosure);
        unknown = copyOf(unknown);
    }

    /** The same contract with another declared leaf id; everything else, unknown fields included, is kept. */
    public Contract withLeafId(String id) {
        return new Contract(id, title, status, enclosure, engine, deadline, updatedAt, unknown);
    }

    /**
     * The process a leaf declares as its engine.
     *
     * @param pid declared process id
     * @param command declared command line, or {@code null}
     * @param startedAt declared start, or {@code null}
     * @param unknown fields Kiln does not model, in file order
     */
    public record Engine(long pid, @Nullable String command, @Nullable Instant startedAt, Map<String, JsonNode> unknown) {
        public Engine {
            unknown = copyOf(unknown);
        }
    }

    static Map<String, JsonNode> copyOf(Map<String, JsonNode> m) {
        Objects.requireNonNull(m, "unknown");
        if (m.isEmpty()) {
            return Map.of();
        }
        Map<String, JsonNode> copy = new LinkedHashMap<>();
        m.forEach((k, v) -> copy.put(k, v.deepCopy()));
        return Collections.unmodifiableMap(copy);
    }
}
