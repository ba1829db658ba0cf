package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.core.seed.ServerSeeds;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerResult;
import dev.kiln.core.startup.StartupProbe;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code kiln probe --seeded[=cache|installed]}: the servers as configured (cold), then the same servers against
 * their runtime seeds, reported side by side; the difference is the third evidence of a fetch phase (beside the
 * launcher's hand-off and its output).
 */
final class SeededProbe {
    private SeededProbe() {
    }

    static int run(StartupProbe probe, Path file, List<ServerConfig> chosen, String formName, boolean json)
            throws InterruptedException {
        ServerSeeds.Form form;
        try {
            form = ServerSeeds.Form.valueOf(formName.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new CliException("--seeded takes cache or installed, not " + formName);
        }
        Map<String, String> notes = new LinkedHashMap<>();
        List<ServerConfig> seeded = ServerWarm.seeded(file, chosen, form, notes);
        ProbeReport cold;
        ProbeReport warm;
        try {
            cold = probe.run(chosen);
            warm = probe.run(seeded);
        } catch (IllegalStateException e) {
            throw new CliException(e.getMessage(), e);
        }
        ObjectNode root = Json.object().put("form", form.label());
        ArrayNode rows = root.putArray("servers");
        StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "%-22s %12s %12s %7s %12s  %s%n", "SERVER",
                "COLD ms", "SEEDED ms", "RATIO", "FETCH ms", "SEED"));
        for (ProbeReport.ServerSummary c : cold.servers()) {
            ProbeReport.ServerSummary s = warm.servers().stream().filter(x -> x.name().equals(c.name())).findFirst().orElse(null);
            ServerResult cr = c.representative();
            Double coldMs = cr.initializeMs();
            Double seededMs = s == null ? null : s.representative().initializeMs();
            Double fetchMs = cr.fetch() == null ? null : cr.fetch().fetchMs();
            ObjectNode o = rows.addObject().put("name", c.name()).put("cold_outcome", cr.outcomeText())
                    .put("seeded_outcome", s == null ? "" : s.representative().outcomeText())
                    .put("note", notes.getOrDefault(c.name(), ""));
            put(o, "cold_initialize_ms", coldMs);
            put(o, "seeded_initialize_ms", seededMs);
            put(o, "fetch_ms_detected", fetchMs);
            put(o, "cold_minus_seeded_ms", coldMs == null || seededMs == null ? null : coldMs - seededMs);
            t.append(String.format(Locale.ROOT, "%-22s %12s %12s %7s %12s  %s%n", c.name(), ms(coldMs), ms(seededMs),
                    coldMs == null || seededMs == null ? "-" : String.format(Locale.ROOT, "%.2f", seededMs / coldMs),
                    fetchMs == null ? (cr.fetch() != null && cr.fetch().launcher().fetches() ? "unknown" : "-") : ms(fetchMs),
                    notes.getOrDefault(c.name(), "")));
        }
        if (json) {
            System.out.println(Json.compact(root));
        } else {
            System.out.println();
            System.out.print(t);
            System.out.println("\ncold run:");
            System.out.print(cold.whereTheTimeGoes());
            System.out.println("seeded run:");
            System.out.print(warm.whereTheTimeGoes());
        }
        return cold.failed() == 0 && warm.failed() == 0 ? 0 : 1;
    }

    private static void put(ObjectNode o, String k, Double v) {
        if (v == null) {
            o.putNull(k);
        } else {
            o.put(k, Math.round(v * 10) / 10.0);
        }
    }

    private static String ms(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.0f", v);
    }
}
