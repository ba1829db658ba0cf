package dev.kiln.core.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A daemon's health verdict as the fleet sees it: what {@code GET /api/v1/health} says in its {@code verdict} and
 * {@code reasons} fields, {@link State#UNKNOWN} when a daemon does not say (an older one: the fleet never invents a
 * verdict), and {@link State#FAILING} with reason {@code unreachable} when it could not be asked. Immutable.
 *
 * @param state the verdict
 * @param reasons why, worst first as the daemon listed them; empty when healthy or unknown
 */
public record HealthVerdict(State state, List<Reason> reasons) {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The reason code of a daemon that did not answer. */
    public static final String UNREACHABLE = "unreachable";

    /** The verdicts, in the order the fleet lists them: the ones that need a look first. */
    public enum State {
        FAILING, DEGRADED, UNKNOWN, HEALTHY;

        /** {@code "failing"}, as on the wire and on screen. */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The state a wire word names, or {@link #UNKNOWN} for a word this kiln does not know. */
        static State of(String word) {
            for (State s : values()) {
                if (s != UNKNOWN && s.word().equals(word)) {
                    return s;
                }
            }
            return UNKNOWN;
        }
    }

    /**
     * One reason of a verdict.
     *
     * @param code what kind ({@code contract_failures}, {@code unreachable}, …)
     * @param state the verdict this reason alone makes
     * @param message for people
     */
    public record Reason(String code, State state, String message) {
    }

    public HealthVerdict {
        reasons = List.copyOf(reasons);
    }

    /** A daemon that said nothing of its verdict. */
    public static HealthVerdict unknown() {
        return new HealthVerdict(State.UNKNOWN, List.of());
    }

    /** A daemon that could not be asked: failing, with reason {@code unreachable} and {@code why}. */
    public static HealthVerdict unreachable(String why) {
        return new HealthVerdict(State.FAILING, List.of(new Reason(UNREACHABLE, State.FAILING, why)));
    }

    /** The verdict in a health answer's body; {@link #unknown()} when it has none or is no JSON object. */
    public static HealthVerdict read(String healthBody) {
        JsonNode n;
        try {
            n = JSON.readTree(healthBody);
        } catch (java.io.IOException e) {
            return unknown();
        }
        if (n == null || !n.path("verdict").isTextual()) {
            return unknown();
        }
        List<Reason> reasons = new ArrayList<>();
        for (JsonNode r : n.path("reasons")) {
            reasons.add(new Reason(r.path("code").asText(""), State.of(r.path("state").asText("")),
                    r.path("message").asText("")));
        }
        return new HealthVerdict(State.of(n.path("verdict").asText()), reasons);
    }

    /** {@code "degraded: 2 contracts fail to read; …"}, {@code "healthy"}, {@code "unknown (the daemon does not say)"}. */
    public String text() {
        if (state == State.UNKNOWN) {
            return "unknown (the daemon does not say)";
        }
        return reasons.isEmpty() ? state.word() : state.word() + ": "
                + String.join("; ", reasons.stream().map(r -> r.message().isEmpty() ? r.code() : r.message()).toList());
    }
}
