package dev.kiln.core.contract;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Reads and writes contract JSON. Reading is strict about shape (a known field of the wrong type is an
 * {@link ContractReadException.Kind#INVALID} failure naming the field) and lossless about content: unknown
 * fields, exact decimals and field order survive a read → write round trip; duplicate keys are refused
 * because a tree cannot keep both.
 */
public final class ContractCodec {
    static final Set<String> KNOWN = Set.of("leaf_id", "title", "status", "enclosure", "engine", "deadline", "updated_at");
    private static final Set<String> ENGINE_KNOWN = Set.of("pid", "command", "started_at");

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();
    private static final ObjectWriter WRITER = MAPPER.writer(new DefaultPrettyPrinter()
            .withObjectIndenter(new DefaultIndenter("  ", "\n")).withArrayIndenter(new DefaultIndenter("  ", "\n")));

    private ContractCodec() {
    }

    /** Decodes a contract from the bytes of its file. */
    public static Contract read(byte[] utf8) throws ContractReadException {
        return fromTree(readTree(utf8));
    }

    /** Encodes a contract the way Kiln writes contract files: two-space indent, trailing newline. */
    public static byte[] write(Contract c) {
        return writeTree(toTree(c));
    }

    /** Decodes the bytes of a contract file as a JSON object tree, without interpreting fields. */
    public static ObjectNode readTree(byte[] utf8) throws ContractReadException {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(utf8)).toString();
        } catch (CharacterCodingException e) {
            throw new ContractReadException(ContractReadException.Kind.NOT_UTF8, "not UTF-8 text (" + e.getMessage() + ")", e);
        }
        JsonNode n;
        try {
            n = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            // Jackson's message quotes the offending token (a whole API token, for a file that is one): say where and
            // what kind, never the bytes, and keep no cause that would carry them into a log.
            throw new ContractReadException(ContractReadException.Kind.MALFORMED, "not valid JSON"
                    + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr())
                    + ": " + syntaxKind(e));
        }
        if (n == null || n.isMissingNode()) {
            throw new ContractReadException(ContractReadException.Kind.MALFORMED, "empty file; a contract is a JSON object");
        }
        if (!n.isObject()) {
            throw new ContractReadException(ContractReadException.Kind.MALFORMED, "a contract is a JSON object, found " + n.getNodeType().name().toLowerCase());
        }
        return (ObjectNode) n;
    }

    /** Encodes a JSON tree the way Kiln writes contract files. */
    public static byte[] writeTree(ObjectNode tree) {
        try {
            byte[] body = WRITER.writeValueAsBytes(tree);
            byte[] out = new byte[body.length + 1];
            System.arraycopy(body, 0, out, 0, body.length);
            out[body.length] = '\n';
            return out;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
    }

    /** Interprets a JSON object as a contract. */
    public static Contract fromTree(ObjectNode o) throws ContractReadException {
        Map<String, com.fasterxml.jackson.databind.JsonNode> unknown = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!KNOWN.contains(e.getKey())) {
                unknown.put(e.getKey(), e.getValue());
            }
        }
        return new Contract(
                text(o, "leaf_id"),
                text(o, "title"),
                text(o, "status"),
                enclosure(o),
                engine(o),
                instant(o, "deadline", "deadline"),
                instant(o, "updated_at", "updated_at"),
                unknown);
    }

    /** The JSON object of a contract, known fields first in Kiln's order, then the unknown ones in theirs. */
    public static ObjectNode toTree(Contract c) {
        ObjectNode o = MAPPER.createObjectNode();
        putText(o, "leaf_id", c.leafId());
        putText(o, "title", c.title());
        putText(o, "status", c.status());
        c.enclosure().forEach(o.putArray("enclosure")::add);
        if (c.engine() == null) {
            o.putNull("engine");
        } else {
            ObjectNode e = o.putObject("engine");
            e.put("pid", c.engine().pid());
            putText(e, "command", c.engine().command());
            putText(e, "started_at", c.engine().startedAt() == null ? null : c.engine().startedAt().toString());
            c.engine().unknown().forEach((k, v) -> e.set(k, v.deepCopy()));
        }
        putText(o, "deadline", c.deadline() == null ? null : c.deadline().toString());
        putText(o, "updated_at", c.updatedAt() == null ? null : c.updatedAt().toString());
        c.unknown().forEach((k, v) -> o.set(k, v.deepCopy()));
        return o;
    }

    private static void putText(ObjectNode o, String field, @Nullable String value) {
        if (value != null) {
            o.put(field, value);
        }
    }

    private static @Nullable String text(JsonNode o, String field) throws ContractReadException {
        JsonNode n = o.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isTextual()) {
            throw invalid(field, "a string", n);
        }
        return n.textValue();
    }

    private static List<String> enclosure(JsonNode o) throws ContractReadException {
        JsonNode n = o.get("enclosure");
        if (n == null || n.isNull()) {
            return List.of();
        }
        if (!n.isArray()) {
            throw invalid("enclosure", "an array of paths", n);
        }
        List<String> paths = new ArrayList<>(n.size());
        for (JsonNode p : n) {
            if (!p.isTextual()) {
                throw invalid("enclosure[" + paths.size() + "]", "a path string", p);
            }
            paths.add(p.textValue());
        }
        return paths;
    }

    private static Contract.@Nullable Engine engine(JsonNode o) throws ContractReadException {
        JsonNode n = o.get("engine");
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isObject()) {
            throw invalid("engine", "an object {pid, command, started_at} or null", n);
        }
        JsonNode pid = n.get("pid");
        if (pid == null || !pid.canConvertToLong() || !pid.isIntegralNumber() || pid.longValue() <= 0) {
            throw invalid("engine.pid", "a positive integer", pid == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : pid);
        }
        Map<String, JsonNode> unknown = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!ENGINE_KNOWN.contains(e.getKey())) {
                unknown.put(e.getKey(), e.getValue());
            }
        }
        return new Contract.Engine(pid.longValue(), text(n, "command"), instant(n, "started_at", "engine.started_at"), unknown);
    }

    private static @Nullable Instant instant(JsonNode o, String field, String label) throws ContractReadException {
        JsonNode n = o.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isTextual()) {
            throw invalid(label, "an ISO-8601 instant such as 2026-01-05T09:00:00Z", n);
        }
        try {
            return Instant.parse(n.textValue());
        } catch (DateTimeParseException e) {
            throw invalid(label, "an ISO-8601 instant such as 2026-01-05T09:00:00Z", n);
        }
    }

    /** The field is Kiln's own name; what was found is described by its JSON type only, never quoted. */
    private static ContractReadException invalid(String field, String expected, JsonNode found) {
        return new ContractReadException(ContractReadException.Kind.INVALID, "field '" + field + "' must be " + expected
                + ", found " + typeOf(found));
    }

    private static String typeOf(JsonNode n) {
        if (n.isMissingNode()) {
            return "nothing";
        }
        return switch (n.getNodeType()) {
            case STRING -> "a string (" + n.textValue().length() + " characters) that is not one";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            case ARRAY -> "an array";
            case OBJECT, POJO -> "an object";
            default -> "a " + n.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    /**
     * What kind of syntax error Jackson found, in fixed words: its own message quotes the offending bytes. The prefixes
     * are Jackson 2.x's message texts; anything else is a plain "malformed JSON".
     */
    static String syntaxKind(JsonProcessingException e) {
        if (e instanceof com.fasterxml.jackson.core.exc.StreamConstraintsException) {
            return "exceeds a parser limit (nesting depth, number or string length)";
        }
        String m = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        if (m.startsWith("Duplicate field")) {
            return "a key appears twice in one object (a rewrite would drop one)";
        }
        if (m.startsWith("Unexpected end-of-input")) {
            return "the file ends before the JSON does";
        }
        if (m.startsWith("Unrecognized token")) {
            return "a word that is not a JSON value (strings need double quotes)";
        }
        if (m.startsWith("Unexpected character")) {
            return "an unexpected character";
        }
        if (m.startsWith("Illegal unquoted character") || m.startsWith("Illegal character")) {
            return "a control character inside a string (escape it)";
        }
        if (m.startsWith("Unrecognized character escape")) {
            return "an invalid escape sequence in a string";
        }
        if (m.contains("umeric value") || m.contains("number")) {
            return "an invalid number";
        }
        return "malformed JSON";
    }
}
