package dev.kiln.core.serve.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.health.HealthReason;
import dev.kiln.core.health.HealthState;
import dev.kiln.core.health.HealthVerdict;
import dev.kiln.core.watch.WatchStatus;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The verdict's part of {@code GET /api/v1/health}: {@code verdict} ({@code healthy|degraded|failing}), {@code reasons}
 * ({@code [{code, state, message}]}), and the evidence beyond the older fields ({@code failed_contracts},
 * {@code watch.partial}/{@code watch.note}, {@code seeds.stale_targets}/{@code failed_targets}). The daemon judges its
 * own body as a client reads it back ({@link #judge}), so what it says and what its fields say cannot disagree.
 *
 * <p>Concurrency: stateless.
 */
public final class HealthWire {
    /** One reason on the wire. */
    record ReasonWire(String code, String state, String message) {
        /** Written and read by hand: the API's mapper reaches no non-public type by reflection. */
        ObjectNode toJson() {
            return Wire.JSON.createObjectNode().put("code", code).put("state", state).put("message", message);
        }

        static ReasonWire of(JsonNode n) {
            return new ReasonWire(n.path("code").asText(), n.path("state").asText(), n.path("message").asText());
        }
    }

    private HealthWire() {
    }

    /** Adds the evidence the verdict needs beyond the older fields. */
    public static ObjectNode evidence(ObjectNode o, List<String> failedContracts, WatchStatus ws) {
        ArrayNode a = o.putArray("failed_contracts");
        failedContracts.stream().limit(dev.kiln.core.health.HealthEvidence.NAMED_FAILURES).forEach(a::add);
        ObjectNode w = (ObjectNode) o.path("watch");
        w.put("partial", ws.partial());
        if (ws.partial()) {
            w.put("note", ws.note());
        }
        return o;
    }

    /** Reads {@code body} back as a client does, judges it, and adds {@code verdict} and {@code reasons}. */
    public static ObjectNode judge(ObjectNode body, URI url) {
        HealthVerdict v;
        try {
            v = Wire.readHealth(url, Wire.JSON.writeValueAsString(body), Optional.empty()).verdict();
        } catch (IOException e) {
            throw new IllegalStateException("the daemon's own health body does not read back: " + e.getMessage(), e);
        }
        return verdict(body, v);
    }

    static ObjectNode verdict(ObjectNode o, HealthVerdict v) {
        o.put("verdict", v.state().wireName());
        ArrayNode a = o.putArray("reasons");
        v.reasons().forEach(r -> a.add(new ReasonWire(r.code(), r.state().wireName(), r.message()).toJson()));
        return o;
    }

    /** The daemon's verdict, empty when it judges none (an older daemon). */
    static Optional<HealthVerdict> readVerdict(JsonNode n) {
        if (!n.path("verdict").isTextual()) {
            return Optional.empty();
        }
        List<HealthReason> reasons = new ArrayList<>();
        for (JsonNode r : n.path("reasons")) {
            ReasonWire w = ReasonWire.of(r);
            reasons.add(new HealthReason(w.code(), HealthState.ofWireName(w.state()), w.message()));
        }
        HealthState said = HealthState.ofWireName(n.path("verdict").asText());
        HealthState worst = reasons.stream().map(HealthReason::state).reduce(HealthState.HEALTHY, HealthState::worst);
        if (said.compareTo(worst) > 0) { // a verdict worse than its reasons: keep what the daemon said, and say so
            reasons.add(new HealthReason("unexplained", said, "the daemon says " + said.wireName() + " without a reason"));
        }
        return Optional.of(HealthVerdict.of(reasons));
    }

    static List<String> failedContracts(JsonNode n) {
        return strings(n.path("failed_contracts"));
    }

    /** Why the watch is not simply live: the degrade's reason, or a partial watch's note. */
    static String watchReason(JsonNode w) {
        return w.path("live").asBoolean(false) && w.path("partial").asBoolean(false) ? w.path("note").asText("")
                : w.path("reason").asText("");
    }

    static ObjectNode seedNames(ObjectNode seeds, DaemonHealth.Seeds s) {
        ArrayNode st = seeds.putArray("stale_targets");
        s.staleTargets().forEach(st::add);
        ArrayNode f = seeds.putArray("failed_targets");
        s.failedTargets().forEach(f::add);
        return seeds;
    }

    static List<String> strings(JsonNode a) {
        List<String> out = new ArrayList<>();
        a.forEach(x -> out.add(x.asText()));
        return out;
    }
}
