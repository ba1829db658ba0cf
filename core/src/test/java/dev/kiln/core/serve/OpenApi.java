package dev.kiln.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.kiln.core.serve.wire.Wire;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The served OpenAPI document ({@code dev/kiln/core/serve/wire/openapi.json}, a resource of core) as the tests read it: the
 * schema of each golden file, and a real JSON Schema validator (networknt, draft 2020-12, OpenAPI 3.1's dialect)
 * checking a body against it. A route's golden ({@link ApiGoldens#fileOf}) is checked against the schema of its
 * path's first 2xx {@code application/json} answer; {@code frame_X.json} against {@code components.schemas.frame_X};
 * {@code error.json} against {@code components.schemas.error}.
 */
final class OpenApi {
    static final String RESOURCE = "/dev/kiln/core/serve/wire/openapi.json";
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    final JsonNode doc;

    private OpenApi(JsonNode doc) {
        this.doc = doc;
    }

    static OpenApi load() {
        try (InputStream in = OpenApi.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("no " + RESOURCE + " on the class path");
            }
            return new OpenApi(Wire.JSON.readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The schema a golden file is checked against (its route's answer, its frame or a component of its name), or null. */
    JsonNode schemaOf(String file) {
        if (file.equals("error.json")) {
            return ref("error");
        }
        if (file.startsWith("frame_")) {
            String name = file.substring(0, file.length() - ".json".length());
            return doc.path("components").path("schemas").has(name) ? ref(name) : null;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = doc.path("paths").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> p = it.next();
            if (!ApiGoldens.fileOf(p.getKey().substring(1)).equals(file)) {
                continue;
            }
            for (JsonNode op : p.getValue()) {
                for (Iterator<Map.Entry<String, JsonNode>> rs = op.path("responses").fields(); rs.hasNext();) {
                    Map.Entry<String, JsonNode> r = rs.next();
                    JsonNode s = r.getValue().path("content").path("application/json").path("schema");
                    if (r.getKey().startsWith("2") && !s.isMissingNode()) {
                        return s;
                    }
                }
            }
        }
        // a sample of a shared shape (e.g. one kind of action document) is named after its component schema
        String name = file.substring(0, file.length() - ".json".length());
        return doc.path("components").path("schemas").has(name) ? ref(name) : null;
    }

    /**
     * The route (its path without the leading {@code /}) of every GET the document publishes that needs no parameter
     * and answers JSON, but the document itself: what {@code ApiContractTest} asks of a daemon by its path alone.
     */
    List<String> plainReads() {
        List<String> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = doc.path("paths").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> p = it.next();
            JsonNode get = p.getValue().path("get");
            if (get.isMissingNode() || p.getKey().contains("{") || p.getKey().equals("/" + Wire.OPENAPI)) {
                continue;
            }
            boolean needsParameter = false;
            for (JsonNode param : get.path("parameters")) {
                needsParameter |= param.path("required").asBoolean();
            }
            boolean json = false;
            for (Iterator<Map.Entry<String, JsonNode>> rs = get.path("responses").fields(); rs.hasNext();) {
                Map.Entry<String, JsonNode> r = rs.next();
                json |= r.getKey().startsWith("2") && r.getValue().path("content").has("application/json");
            }
            if (!needsParameter && json) {
                out.add(p.getKey().substring(1));
            }
        }
        return out;
    }

    private JsonNode ref(String name) {
        return Wire.JSON.createObjectNode().put("$ref", "#/components/schemas/" + name);
    }

    /** What is wrong with {@code body} against the schema of {@code file}; each problem names the file. */
    List<String> validate(String file, String body) {
        JsonNode s = schemaOf(file);
        if (s == null) {
            return List.of(file + ": the OpenAPI document (core/src/main/resources" + RESOURCE + ") has no schema for it");
        }
        ObjectNode wrapper = s.deepCopy();
        // the component schemas travel along, so that "#/components/schemas/…" resolves inside the wrapper
        wrapper.set("components", doc.path("components"));
        Schema schema = REGISTRY.getSchema(wrapper.toString(), InputFormat.JSON);
        List<String> out = new ArrayList<>();
        schema.validate(body, InputFormat.JSON).forEach(e -> out.add(file + ": " + e.getInstanceLocation() + " " + e.getMessage()));
        return out;
    }
}
