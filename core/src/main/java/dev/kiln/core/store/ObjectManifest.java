package dev.kiln.core.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.regex.Pattern;

/**
 * The small JSON document beside each object ({@code <key>/manifest.json}): what a pull checks the object against.
 * It is written last, so an object without one was never completely pushed and is never taken.
 *
 * @param key the key it describes
 * @param object the object's name beside it ({@code <sha256>.tar.gz})
 * @param bytes the object's size in bytes
 * @param files the regular files it holds (for a tree; 1 for a single file)
 * @param sha256 the SHA-256 of the object's bytes, checked by Kiln on every pull
 * @param treeBytes bytes of the files it holds, unpacked
 * @param kilnVersion the Kiln that pushed it
 * @param pushedAt when it was pushed
 * @param packing {@code tar+gzip} for a tree, {@code file} for a single file stored as is
 */
public record ObjectManifest(StoreKey key, String object, long bytes, long files, String sha256, long treeBytes,
        String kilnVersion, Instant pushedAt, String packing) {
    static final int FORMAT = 1;
    static final String TREE = "tar+gzip";
    static final String FILE = "file";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SHA = Pattern.compile("[0-9a-f]{64}");

    byte[] toJson() {
        ObjectNode n = JSON.createObjectNode();
        n.put("kiln_store_manifest", FORMAT);
        n.put("key", key.path());
        n.put("object", object);
        n.put("bytes", bytes);
        n.put("files", files);
        n.put("sha256", sha256);
        n.put("tree_bytes", treeBytes);
        n.put("kiln_version", kilnVersion);
        n.put("pushed_at", pushedAt.toString());
        n.put("packing", packing);
        try {
            return (JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads a manifest of {@code key}; a document that is not one (another format, fields missing) is refused. */
    static ObjectManifest parse(StoreKey key, byte[] json, String where) {
        try {
            JsonNode n = JSON.readTree(json);
            if (n == null || n.path("kiln_store_manifest").asInt(-1) != FORMAT) {
                throw new StoreException(where + ": " + key.manifestPath() + " is not a Kiln store manifest of format "
                        + FORMAT + "; not taken");
            }
            String sha = n.path("sha256").asText("");
            String object = n.path("object").asText("");
            if (!SHA.matcher(sha).matches() || !object.equals(sha + ".tar.gz") || !n.path("key").asText("").equals(key.path())) {
                throw new StoreException(where + ": " + key.manifestPath() + " names object \"" + object + "\" / sha256 \""
                        + sha + "\" / key \"" + n.path("key").asText("") + "\", which do not agree with its key; not taken");
            }
            return new ObjectManifest(key, object, n.path("bytes").asLong(), n.path("files").asLong(), sha,
                    n.path("tree_bytes").asLong(), n.path("kiln_version").asText("unknown"),
                    Instant.parse(n.path("pushed_at").asText("1970-01-01T00:00:00Z")), n.path("packing").asText(TREE));
        } catch (IOException | java.time.format.DateTimeParseException e) {
            throw new StoreException(where + ": " + key.manifestPath() + " is not readable JSON (" + e.getMessage()
                    + "); not taken", e);
        }
    }
}
