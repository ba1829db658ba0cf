package dev.kiln.core.startup;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A saved CPU sweep read back: the file {@code observer/probes/sweep-*.json} ({@link ProbeRuns#saveSweep}) and the
 * API's {@code GET probe/sweep}, which serves that file as stored. {@link SweepReport#toJson()} writes the format and
 * {@link #fromJson} is its one reader. Immutable; a field an older file lacks reads as null or empty.
 *
 * @param startedAt when the sweep started, or null when the file does not say
 * @param mechanism how the shares were enforced
 * @param shares the shares asked for, in order
 * @param compareBytecode whether before/after columns were measured
 * @param repeat probe runs per cell
 * @param partial whether it was cancelled before every column was measured
 * @param cancelledAt the column it was cancelled in, or null
 * @param servers the servers, in order (from the matrix when an older file does not list them)
 * @param cells the matrix
 * @param verdicts one per measured column
 * @param ratios after / before of the slowest server per share, where both were measured
 * @param notes what people must know
 * @param runs each column's probe run
 */
public record SavedSweep(@Nullable Instant startedAt, String mechanism, List<Double> shares, boolean compareBytecode, int repeat,
        boolean partial, @Nullable String cancelledAt, List<String> servers, List<SweepReport.Cell> cells,
        List<Verdict> verdicts, List<Ratio> ratios, List<String> notes, List<Column> runs) {

    public SavedSweep {
        shares = List.copyOf(shares);
        servers = List.copyOf(servers);
        cells = List.copyOf(cells);
        verdicts = List.copyOf(verdicts);
        ratios = List.copyOf(ratios);
        notes = List.copyOf(notes);
        runs = List.copyOf(runs);
    }

    /**
     * A column's verdict as saved ({@link SweepReport.Verdict}).
     *
     * @param share CPUs
     * @param bytecode before, after or as-is
     * @param slowest the slowest ok server, or null
     * @param slowestMs its time, or null
     * @param margin timeout / slowest, or null
     * @param timeoutMs its timeout
     * @param overTimeout servers that missed their timeout
     * @param failed servers that did not start
     * @param recommendedStartupTimeoutSec the timeout to configure at this share, or null
     */
    public record Verdict(double share, SweepReport.Bytecode bytecode, @Nullable String slowest, @Nullable Double slowestMs,
            @Nullable Double margin, long timeoutMs, int overTimeout, int failed, @Nullable Integer recommendedStartupTimeoutSec) {
    }

    /** after / before of the slowest server at {@code share}. */
    public record Ratio(double share, double afterOverBefore) {
    }

    /** One column's probe, as saved. */
    public record Column(double share, SweepReport.Bytecode bytecode, SavedProbeRun report) {
    }

    /**
     * Reads a sweep's JSON, as {@link SweepReport#toJson()} writes it.
     *
     * @param source where it came from, for the error
     * @throws IllegalArgumentException when {@code json} is not a sweep (no {@code matrix} array)
     */
    public static SavedSweep fromJson(JsonNode json, String source) {
        if (json == null || !json.isObject() || !json.path("matrix").isArray()) {
            throw new IllegalArgumentException(source + " is not a saved sweep (it has no matrix array); was it written by"
                    + " kiln probe --sweep?");
        }
        List<Double> shares = new ArrayList<>();
        json.path("shares").forEach(n -> shares.add(n.asDouble()));
        List<SweepReport.Cell> cells = new ArrayList<>();
        for (JsonNode n : json.path("matrix")) {
            cells.add(new SweepReport.Cell(n.path("server").asText(), n.path("share").asDouble(),
                    SweepReport.Bytecode.parse(n.path("bytecode").asText("as-is")), SavedProbeRun.number(n.path("initialize_ms")),
                    n.path("outcome").asText(), n.path("timeout_ms").asLong(), n.path("ok_runs").asInt(), n.path("runs").asInt(),
                    n.path("note").asText("")));
        }
        LinkedHashSet<String> servers = new LinkedHashSet<>();
        json.path("servers").forEach(n -> servers.add(n.asText()));
        if (servers.isEmpty()) {
            cells.forEach(c -> servers.add(c.server()));
        }
        List<Verdict> verdicts = new ArrayList<>();
        for (JsonNode v : json.path("verdicts")) {
            verdicts.add(new Verdict(v.path("share").asDouble(), SweepReport.Bytecode.parse(v.path("bytecode").asText("as-is")),
                    v.path("slowest").isTextual() ? v.path("slowest").asText() : null, SavedProbeRun.number(v.path("slowest_ms")),
                    SavedProbeRun.number(v.path("margin")), v.path("timeout_ms").asLong(), v.path("over_timeout").asInt(),
                    v.path("failed").asInt(), v.path("recommended_startup_timeout_sec").isNumber()
                            ? v.path("recommended_startup_timeout_sec").asInt() : null));
        }
        List<Ratio> ratios = new ArrayList<>();
        for (JsonNode r : json.path("ratios")) {
            ratios.add(new Ratio(r.path("share").asDouble(), r.path("after_over_before").asDouble()));
        }
        List<String> notes = new ArrayList<>();
        json.path("notes").forEach(n -> notes.add(n.asText()));
        List<Column> runs = new ArrayList<>();
        for (JsonNode c : json.path("runs")) {
            runs.add(new Column(c.path("share").asDouble(), SweepReport.Bytecode.parse(c.path("bytecode").asText("as-is")),
                    SavedProbeRun.fromJson(c.path("report"), source + " (the probe of column " + runs.size() + ")")));
        }
        return new SavedSweep(SavedProbeRun.instant(json.path("started_at")), json.path("mechanism").asText(""), shares,
                json.path("compare_bytecode").asBoolean(false), json.path("repeat").asInt(1), json.path("partial").asBoolean(false),
                json.path("cancelled_at").isTextual() ? json.path("cancelled_at").asText() : null, List.copyOf(servers), cells,
                verdicts, ratios, notes, runs);
    }
}
