package dev.kiln.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * API v1's golden files ({@code core/src/test/resources/api/v1/}): one JSON per route answer ({@code seeds.json},
 * {@code archive_stats.json}, {@code probe_runs_id.json}), per SSE frame type ({@code frame_delta.json}) and the error
 * body ({@code error.json}). A test compares what the real server answers with its golden <em>structurally</em>: the
 * same keys at every level and the same JSON type for each value, not the same values.
 *
 * <p>The rule for values that differ from run to run (what {@link #normalize} does before a golden is written, and why
 * the comparison ignores values): times become {@code 2026-12-01T10:00:00Z}, paths under the test's directory
 * {@code /srv/kiln/…}, ports {@code 7117}, pids {@code 4242}; a {@code null} matches a value of any type (the OpenAPI
 * schema says which types a nullable field may have); an array's elements are each compared with the golden's first
 * element; the keys of the maps named in {@link #MAPS} are data, not shape. {@code -Dkiln.golden.update=true} rewrites
 * the goldens from the answers of that run (then review the diff: a renamed or removed key is a breaking change).
 */
final class ApiGoldens {
    static final Path DIR = Path.of("src/test/resources/api/v1");
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
    /** Keys whose value is a map of names chosen by data (env names, causes, wake reasons), not by the API. */
    static final Set<String> MAPS = Set.of("env", "headers", "causes", "by_reason", "added", "changed", "meta");
    private static final Pattern TIME = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z");

    private ApiGoldens() {
    }

    static boolean updating() {
        return Boolean.getBoolean("kiln.golden.update");
    }

    /** The golden file of a route ({@code api/v1/probe/runs/{id}} → {@code probe_runs_id.json}). */
    static String fileOf(String route) {
        String r = route.startsWith("api/v1/") ? route.substring("api/v1/".length()) : route;
        return r.replace("{id}", "id").replace('/', '_') + ".json";
    }

    /** The golden file of an SSE frame type. */
    static String frameFile(String event) {
        return "frame_" + event + ".json";
    }

    static JsonNode load(String file) {
        try {
            return JSON.readTree(DIR.resolve(file).toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the golden " + DIR.resolve(file) + " (write it with"
                    + " -Dkiln.golden.update=true, see docs/API.md)", e);
        }
    }

    /**
     * Writes (in update mode) or checks {@code actual} against its golden.
     *
     * @return the differences, each naming the file and the JSON path; empty when it matches
     */
    static List<String> check(String file, JsonNode actual, Path tempRoot, int port) {
        if (updating()) {
            try {
                Files.createDirectories(DIR);
                Files.writeString(DIR.resolve(file), JSON.writeValueAsString(normalize(actual.deepCopy(), tempRoot, port)) + "\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return List.of();
        }
        if (!Files.isRegularFile(DIR.resolve(file))) {
            return List.of(file + ": no golden file (add core/src/test/resources/api/v1/" + file
                    + "; -Dkiln.golden.update=true writes it from this answer)");
        }
        List<String> out = new ArrayList<>();
        diff(load(file), actual, "$", file, out);
        return out;
    }

    /**
     * Keys an answer carries only while they apply (the schema does not require them): the golden shows them, a
     * healthy daemon's answer leaves them out. Each is {@code file:path}.
     */
    static final Set<String> OPTIONAL = Set.of("health.json:$.last_error", "health.json:$.state_file_error",
            "health.json:$.watch.note", "health.json:$.watch.partial", "health.json:$.failed_contracts",
            "health.json:$.seeds.stale_targets", "health.json:$.seeds.failed_targets");

    /** What differs in shape between a golden and an answer. */
    static void diff(JsonNode golden, JsonNode actual, String at, String file, List<String> out) {
        if (golden.isNull() || actual.isNull()) {
            return;
        }
        if (type(golden) != type(actual)) {
            out.add(file + ": " + at + " is " + type(actual) + " in the answer, " + type(golden) + " in the golden");
            return;
        }
        if (golden.isObject()) {
            String key = at.substring(at.lastIndexOf('.') + 1);
            if (MAPS.contains(key)) {
                return;
            }
            Set<String> want = names(golden);
            Set<String> got = names(actual);
            for (String k : want) {
                if (!got.contains(k) && !OPTIONAL.contains(file + ":" + at + "." + k)) {
                    out.add(file + ": " + at + "." + k + " is in the golden but not in the answer (removed or renamed)");
                }
            }
            for (String k : got) {
                if (!want.contains(k)) {
                    out.add(file + ": " + at + "." + k + " is in the answer but not in the golden (new: add it to the golden and"
                            + " the OpenAPI schema)");
                } else {
                    diff(golden.get(k), actual.get(k), at + "." + k, file, out);
                }
            }
        } else if (golden.isArray() && golden.size() > 0) {
            for (int i = 0; i < actual.size(); i++) {
                diff(golden.get(0), actual.get(i), at + "[" + i + "]", file, out);
            }
        }
    }

    private static Set<String> names(JsonNode n) {
        Set<String> s = new TreeSet<>();
        n.fieldNames().forEachRemaining(s::add);
        return s;
    }

    /** Numbers are one type (an integer-valued timing may be written without a fraction). */
    private static JsonNodeType type(JsonNode n) {
        return n.getNodeType();
    }

    /** The golden's rendering of an answer: volatile values replaced by fixed ones (see the class comment). */
    static JsonNode normalize(JsonNode n, Path tempRoot, int port) {
        if (n instanceof ObjectNode o) {
            Iterator<Map.Entry<String, JsonNode>> it = o.fields();
            List<String> keys = new ArrayList<>();
            it.forEachRemaining(e -> keys.add(e.getKey()));
            for (String k : keys) {
                JsonNode v = o.get(k);
                if ((k.equals("pid")) && v.isNumber()) {
                    o.put(k, 4242);
                } else {
                    o.set(k, normalize(v, tempRoot, port));
                }
            }
            return o;
        }
        if (n instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                a.set(i, normalize(a.get(i), tempRoot, port));
            }
            return a;
        }
        if (n.isTextual()) {
            String s = n.asText();
            if (TIME.matcher(s).matches()) {
                return TextNode.valueOf("2026-12-01T10:00:00Z");
            }
            String root = tempRoot.toString();
            s = s.replace(root, "/srv/kiln").replace(":" + port + "/", ":7117/").replace(":" + port, ":7117");
            return TextNode.valueOf(s);
        }
        return n;
    }
}
