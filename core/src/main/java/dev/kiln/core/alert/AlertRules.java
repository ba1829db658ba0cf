package dev.kiln.core.alert;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.workspace.Durations;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The alert rules: the shipped defaults, the operator's {@code alerts.json}, and the same rules as a Prometheus rules
 * file. A file that does not read is never half-used: the defaults stay, and the problem names the file and line.
 *
 * <p>The file: {@code {"rules": [{"name": "KilnContractFailures", "metric": "kiln_projection_contract_failures",
 * "op": ">", "threshold": 0, "for": "0s", "severity": "critical", "summary": "…"}]}} ({@code for} a duration as
 * {@code 30s}, {@code 5m}; {@code severity} and {@code summary} optional).
 *
 * <p>Thread-safety: stateless.
 */
public final class AlertRules {
    /** The largest alerts.json read: rules are a few hundred bytes each. */
    static final long MAX_BYTES = 1 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> FIELDS = Set.of("name", "metric", "op", "threshold", "for", "severity", "summary");

    /**
     * Rules as loaded.
     *
     * @param rules the rules in force
     * @param file the file they were looked for in
     * @param fromFile whether they came from it (else the defaults)
     * @param problem why the file was not used, naming file and line; empty when it was used or is absent
     */
    public record Loaded(List<AlertRule> rules, Path file, boolean fromFile, Optional<String> problem) {
        public Loaded {
            rules = List.copyOf(rules);
        }
    }

    private AlertRules() {
    }

    /** The rules shipped: what an operator of Kiln wants to hear about, over metrics every daemon exports. */
    public static List<AlertRule> defaults() {
        return List.of(
                rule("KilnContractFailures", "kiln_projection_contract_failures", ">", 0, "0s", "critical",
                        "Contract files of the workspace fail to read or parse"),
                rule("KilnProjectionStale", "kiln_projection_age_heartbeats", ">", 3, "30s", "critical",
                        "The last projection is older than 3 heartbeats: the projection loop is stuck"),
                rule("KilnSeedStale", "kiln_seed_current", "<", 1, "0s", "warning",
                        "A target's seed does not match its lockfile: run kiln warm"),
                rule("KilnSeedWarmFailed", "kiln_health_reason{code=\"seed_failed\"}", ">", 0, "0s", "critical",
                        "A target's latest warm failed and its seed is not current"),
                rule("KilnProbeOverTimeout", "kiln_probe_servers_over_timeout", ">", 0, "0s", "critical",
                        "A server missed its startup timeout in the latest probe"),
                rule("KilnStateFileWriteFailing", "kiln_state_file_write_failing", ">", 0, "0s", "warning",
                        "observer/state.json cannot be written: the revision is served from memory only"),
                rule("KilnWatchDegraded", "kiln_watch_live", "<", 1, "60s", "warning",
                        "The watch is lost: the projection runs on its fixed interval"));
    }

    /** {@code alerts.json} in a config directory ({@code $XDG_CONFIG_HOME/kiln}). */
    public static Path file(Path configDirectory) {
        return configDirectory.resolve("alerts.json");
    }

    /** The rules of {@code file}, or the defaults when it is absent or does not read (then {@link Loaded#problem()}). */
    public static Loaded load(Path file) {
        try {
            if (Files.size(file) > MAX_BYTES) {
                return new Loaded(defaults(), file, false, Optional.of(file + ": larger than " + MAX_BYTES
                        + " bytes, not read; the default alert rules are used"));
            }
            return new Loaded(parse(file, Files.readString(file)), file, true, Optional.empty());
        } catch (NoSuchFileException e) {
            return new Loaded(defaults(), file, false, Optional.empty());
        } catch (IOException | IllegalArgumentException e) {
            return new Loaded(defaults(), file, false, Optional.of(e.getMessage()
                    + "; the default alert rules are used until it is fixed (the file is left as it is)"));
        }
    }

    /**
     * The rules of a file's text.
     *
     * @throws IllegalArgumentException naming the file, the line and what is wrong
     */
    static List<AlertRule> parse(Path file, String text) {
        List<AlertRule> rules = new ArrayList<>();
        Set<String> names = new HashSet<>();
        try (JsonParser p = new JsonFactory(JSON).createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw bad(file, p, "expected an object {\"rules\": [...]}");
            }
            boolean sawRules = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken t = p.nextToken();
                if (!field.equals("rules")) {
                    p.skipChildren();
                    continue;
                }
                sawRules = true;
                if (t != JsonToken.START_ARRAY) {
                    throw bad(file, p, "\"rules\" must be an array of rules");
                }
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    int line = p.currentTokenLocation().getLineNr();
                    JsonNode n = p.readValueAsTree();
                    try {
                        AlertRule r = rule(n);
                        if (!names.add(r.name())) {
                            throw new IllegalArgumentException("a second rule named " + r.name());
                        }
                        rules.add(r);
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(file + ":" + line + ": rule " + (rules.size() + 1) + ": "
                                + e.getMessage(), e);
                    }
                }
                if (p.currentToken() != JsonToken.END_ARRAY) {
                    throw bad(file, p, "each rule must be an object");
                }
            }
            if (!sawRules) {
                throw new IllegalArgumentException(file + ":1: no \"rules\" array");
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw bad(file, p, "unexpected content after the rules");
            }
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(file + ":" + e.getLocation().getLineNr() + ": not JSON: "
                    + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
        return rules;
    }

    private static AlertRule rule(JsonNode n) {
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) {
                throw new IllegalArgumentException("unknown field \"" + f + "\" (known: " + String.join(", ", FIELDS.stream().sorted().toList()) + ")");
            }
        }
        String name = text(n, "name");
        String metric = text(n, "metric");
        String op = text(n, "op");
        if (!n.path("threshold").isNumber()) {
            throw new IllegalArgumentException("\"threshold\" must be a number");
        }
        Duration d = n.has("for") ? Durations.parse(text(n, "for")) : Duration.ZERO;
        String severity = n.has("severity") ? text(n, "severity") : "warning";
        String summary = n.has("summary") ? text(n, "summary") : name;
        return new AlertRule(name, metric, AlertRule.Comparison.ofSymbol(op), n.path("threshold").asDouble(), d, severity,
                summary);
    }

    private static String text(JsonNode n, String field) {
        if (!n.path(field).isTextual()) {
            throw new IllegalArgumentException("\"" + field + "\" must be a string");
        }
        return n.path(field).asText();
    }

    private static IllegalArgumentException bad(Path file, JsonParser p, String what) {
        return new IllegalArgumentException(file + ":" + p.currentTokenLocation().getLineNr() + ": " + what);
    }

    private static AlertRule rule(String name, String metric, String op, double threshold, String duration,
            String severity, String summary) {
        return new AlertRule(name, metric, AlertRule.Comparison.ofSymbol(op), threshold, Durations.parse(duration),
                severity, summary);
    }

    /** The rules as {@code alerts.json} text (what {@code kiln alerts ls --json} prints and an operator edits). */
    public static String json(List<AlertRule> rules) {
        var root = JSON.createObjectNode();
        var arr = root.putArray("rules");
        for (AlertRule r : rules) {
            var o = arr.addObject();
            o.put("name", r.name());
            o.put("metric", r.metric());
            o.put("op", r.comparison().symbol());
            o.put("threshold", r.threshold());
            o.put("for", AlertRule.promDuration(r.duration()));
            o.put("severity", r.severity());
            o.put("summary", r.summary());
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The rules as a Prometheus rules file (one group, {@code kiln}), which {@code promtool check rules} accepts:
     * each rule's expression over the metric names of a daemon's {@code /metrics}.
     */
    public static String prometheus(List<AlertRule> rules) {
        StringBuilder b = new StringBuilder();
        b.append("# Kiln's alert rules (kiln alerts export), over the metrics of kiln serve's /metrics.\n");
        b.append("groups:\n  - name: kiln\n    rules:\n");
        for (AlertRule r : rules) {
            b.append("      - alert: ").append(r.name()).append('\n');
            b.append("        expr: ").append(quote(r.expression())).append('\n');
            b.append("        for: ").append(AlertRule.promDuration(r.duration())).append('\n');
            b.append("        labels:\n          severity: ").append(r.severity()).append('\n');
            b.append("        annotations:\n          summary: ").append(quote(r.summary())).append('\n');
        }
        return b.toString();
    }

    /** A YAML single-quoted scalar: only the quote itself needs escaping (doubled). */
    private static String quote(String s) {
        return "'" + s.replace("\n", " ").replace("'", "''") + "'";
    }
}
