package dev.kiln.core.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.projection.PublishedState;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** The published leaves and failures against a fresh projection's, field by field; no causes yet. */
final class Comparison {
    /** Fields a tick derives from the time and the process table, not from the contract file. */
    static final Set<String> TIME_DERIVED = Set.of("overdue", "engine.liveness");

    /** Numbers equal by value: a parsed document holds ints where a fresh projection holds longs. */
    private static final Comparator<JsonNode> BY_VALUE = (a, b) -> a.equals(b)
            || (a.isNumber() && b.isNumber() && a.decimalValue().compareTo(b.decimalValue()) == 0) ? 0 : 1;

    /**
     * One difference before it is explained.
     *
     * @param key leaf id, or failure path
     * @param file contract file under tasks/
     * @param then the published leaf or failure; null for an added one
     * @param now the fresh one; null for a removed one
     */
    record Raw(String key, String file, Difference.Kind kind, List<Difference.FieldChange> fields, @Nullable JsonNode then,
            @Nullable JsonNode now) {
    }

    private Comparison() {
    }

    /** Differences in fresh order, then removed leaves and vanished failures. */
    static List<Raw> of(PublishedState published, ObjectNode fresh) {
        Map<String, JsonNode> nowLeaves = new LinkedHashMap<>();
        for (JsonNode l : fresh.path("leaves")) {
            nowLeaves.put(l.path("leaf_id").asText(), l);
        }
        Map<String, JsonNode> nowFailures = new LinkedHashMap<>();
        for (JsonNode f : fresh.path("failures")) {
            nowFailures.put(f.path("path").asText(), f);
        }

        List<Raw> out = new ArrayList<>();
        Set<String> covered = new LinkedHashSet<>(); // failure paths folded into a leaf's difference
        for (Map.Entry<String, JsonNode> e : nowLeaves.entrySet()) {
            JsonNode now = e.getValue();
            JsonNode then = published.leaves().get(e.getKey());
            String file = now.path("file").asText();
            if (then == null) {
                JsonNode failedThen = published.failures().get(file);
                if (failedThen != null) {
                    covered.add(file);
                    out.add(new Raw(e.getKey(), file, Difference.Kind.FAILED_THEN,
                            List.of(new Difference.FieldChange("failure", text(failedThen.path("reason")), "(parses)")), failedThen, now));
                } else {
                    out.add(new Raw(e.getKey(), file, Difference.Kind.ADDED, List.of(), null, now));
                }
            } else if (!then.equals(BY_VALUE, now)) {
                out.add(new Raw(e.getKey(), file, Difference.Kind.CHANGED, fields(then, now), then, now));
            }
        }
        for (Map.Entry<String, JsonNode> e : published.leaves().entrySet()) {
            if (nowLeaves.containsKey(e.getKey())) {
                continue;
            }
            String file = e.getValue().path("file").asText();
            JsonNode failingNow = nowFailures.get(file);
            if (failingNow != null) {
                covered.add(file);
                out.add(new Raw(e.getKey(), file, Difference.Kind.FAILING_NOW,
                        List.of(new Difference.FieldChange("failure", "(parsed)", text(failingNow.path("reason")))), e.getValue(), failingNow));
            } else {
                out.add(new Raw(e.getKey(), file, Difference.Kind.REMOVED, List.of(), e.getValue(), null));
            }
        }
        for (Map.Entry<String, JsonNode> e : nowFailures.entrySet()) {
            if (covered.contains(e.getKey())) {
                continue;
            }
            JsonNode then = published.failures().get(e.getKey());
            if (then == null) {
                out.add(new Raw(e.getKey(), e.getKey(), Difference.Kind.FAILING_NOW,
                        List.of(new Difference.FieldChange("failure", "(absent)", text(e.getValue().path("reason")))), null, e.getValue()));
            } else if (!then.equals(BY_VALUE, e.getValue())) {
                out.add(new Raw(e.getKey(), e.getKey(), Difference.Kind.FAILING_NOW, fields(then, e.getValue()), then, e.getValue()));
            }
        }
        for (Map.Entry<String, JsonNode> e : published.failures().entrySet()) {
            if (!covered.contains(e.getKey()) && !nowFailures.containsKey(e.getKey())) {
                out.add(new Raw(e.getKey(), e.getKey(), Difference.Kind.FAILED_THEN,
                        List.of(new Difference.FieldChange("failure", text(e.getValue().path("reason")), "(absent)")), e.getValue(), null));
            }
        }
        return out;
    }

    /** Field by field, nested objects (the engine) one level down, in the fresh document's field order. */
    private static List<Difference.FieldChange> fields(JsonNode then, JsonNode now) {
        List<Difference.FieldChange> out = new ArrayList<>();
        for (String name : names(then, now)) {
            JsonNode a = then.get(name);
            JsonNode b = now.get(name);
            if (a != null && b != null && a.isObject() && b.isObject()) {
                for (String sub : names(a, b)) {
                    add(out, name + "." + sub, a.get(sub), b.get(sub));
                }
            } else {
                add(out, name, a, b);
            }
        }
        return out;
    }

    private static void add(List<Difference.FieldChange> out, String name, JsonNode a, JsonNode b) {
        if (a == null || b == null ? a != b : !a.equals(BY_VALUE, b)) {
            out.add(new Difference.FieldChange(name, text(a), text(b)));
        }
    }

    private static Set<String> names(JsonNode a, JsonNode b) {
        Set<String> s = new LinkedHashSet<>();
        for (Iterator<String> i = b.fieldNames(); i.hasNext();) {
            s.add(i.next());
        }
        for (Iterator<String> i = a.fieldNames(); i.hasNext();) {
            s.add(i.next());
        }
        return s;
    }

    static String text(JsonNode n) {
        return n == null || n.isMissingNode() ? "(absent)" : n.isTextual() ? n.asText() : n.toString();
    }
}
