package dev.kiln.core.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * The one table of which reason makes which state, and the judge that applies it. {@code docs/HEALTH.md} shows the
 * same table ({@code HealthRulesTest} compares them); a new reason is a new row here, never a condition elsewhere.
 *
 * <p>Thread-safety: stateless.
 */
public final class HealthRules {
    /** A projection older than this many heartbeats means its loop is stuck. */
    public static final int STALE_HEARTBEATS = 3;
    /** A server whose slowest start is at least this share of its timeout is near it. */
    public static final double NEAR_TIMEOUT = 0.8;
    /** The code a client gives a daemon it cannot ask. */
    public static final String UNREACHABLE = "unreachable";

    /**
     * One row of the table.
     *
     * @param code the reason's code
     * @param state the state it makes
     * @param when when it applies, in words (the docs' column)
     */
    public record Row(String code, HealthState state, String when) {
    }

    private record Rule(Row row, Function<HealthEvidence, Optional<String>> test) {
    }

    private static final List<Rule> RULES = List.of(
            rule(UNREACHABLE, HealthState.FAILING, "the client cannot ask the daemon (down, stopped, refused, too slow)",
                    e -> Optional.empty()), // judged by the client, never from evidence
            rule("projection_failed", HealthState.FAILING, "the last projection failed",
                    e -> e.lastError().isEmpty() ? Optional.empty() : Optional.of("the last projection failed: " + e.lastError())),
            rule("projection_stale", HealthState.FAILING,
                    "the last projection is older than " + STALE_HEARTBEATS + " heartbeats (its loop is stuck)",
                    HealthRules::stale),
            rule("contract_failures", HealthState.FAILING, "a contract file or directory failed to read or parse",
                    HealthRules::contracts),
            rule("seed_failed", HealthState.FAILING, "a target's seed is not current and its latest warm failed",
                    e -> e.failedSeeds().isEmpty() ? Optional.empty()
                            : Optional.of(count(e.failedSeeds().size(), "seed") + " failed to warm: "
                                    + String.join(", ", e.failedSeeds()) + " (kiln warm names why)")),
            rule("probe_over_timeout", HealthState.FAILING,
                    "in the latest probe a server missed its startup timeout (or its slowest start is over it)",
                    HealthRules::overTimeout),
            rule("probe_failed", HealthState.FAILING, "in the latest probe a server failed to start",
                    e -> e.probe().filter(p -> p.failed() > 0)
                            .map(p -> count(p.failed(), "server") + " failed to start in the latest probe")),
            rule("store_unreachable", HealthState.FAILING, "a store is configured and does not answer",
                    e -> e.storeError().map(s -> "the store is unreachable: " + s)),
            rule("state_file_unwritable", HealthState.DEGRADED,
                    "observer/state.json cannot be written (the revision is served from memory)",
                    e -> e.stateFileError().isEmpty() ? Optional.empty()
                            : Optional.of("observer/state.json cannot be written: " + e.stateFileError())),
            rule("projection_pending", HealthState.DEGRADED, "no projection yet (starting)",
                    e -> e.projectionAge().isEmpty() && e.lastError().isEmpty() ? Optional.of("no projection yet (starting)")
                            : Optional.empty()),
            rule("watch_degraded", HealthState.DEGRADED, "the watch is lost: the projection runs on its fixed interval",
                    e -> e.watch().filter(w -> !w.live()).map(w -> "watch degraded: " + w.reason())),
            rule("watch_polling", HealthState.DEGRADED,
                    "the watch is partial: directories over the inotify limit are stat-walked",
                    e -> e.watch().filter(w -> w.live() && w.partial()).map(w -> "watch partial: " + w.reason())),
            rule("seed_stale", HealthState.DEGRADED, "a target's seed does not match its lockfile (and no warm failed)",
                    HealthRules::staleSeeds),
            rule("probe_near_timeout", HealthState.DEGRADED,
                    "the latest probe's slowest server took " + percent(NEAR_TIMEOUT) + " of its timeout or more",
                    HealthRules::nearTimeout));

    private HealthRules() {
    }

    /** The table, in judging order. */
    public static List<Row> table() {
        return RULES.stream().map(Rule::row).toList();
    }

    /** The verdict of this evidence: every row that applies, the worst state among them. */
    public static HealthVerdict judge(HealthEvidence e) {
        List<HealthReason> reasons = new ArrayList<>();
        for (Rule r : RULES) {
            r.test().apply(e).ifPresent(m -> reasons.add(new HealthReason(r.row().code(), r.row().state(), m)));
        }
        return HealthVerdict.of(reasons);
    }

    /** The state a row of this code makes (unknown codes, from a newer daemon, count as degraded). */
    public static HealthState stateOf(String code) {
        return RULES.stream().filter(r -> r.row().code().equals(code)).map(r -> r.row().state()).findFirst()
                .orElse(HealthState.DEGRADED);
    }

    private static Rule rule(String code, HealthState state, String when, Function<HealthEvidence, Optional<String>> test) {
        return new Rule(new Row(code, state, when), test);
    }

    private static Optional<String> stale(HealthEvidence e) {
        return e.projectionAge().filter(a -> a.compareTo(e.heartbeat().multipliedBy(STALE_HEARTBEATS)) > 0)
                .map(a -> "the last projection is " + seconds(a) + " old, more than " + STALE_HEARTBEATS
                        + " heartbeats (" + seconds(e.heartbeat()) + " each): its loop is stuck");
    }

    private static Optional<String> contracts(HealthEvidence e) {
        if (e.failures() <= 0) {
            return Optional.empty();
        }
        String named = String.join(", ", e.failedContracts());
        return Optional.of(count(e.failures(), "contract") + " failed" + (named.isEmpty() ? "" : ": " + named
                + (e.failures() > e.failedContracts().size() ? ", …" : "")));
    }

    private static Optional<String> overTimeout(HealthEvidence e) {
        return e.probe().flatMap(p -> {
            boolean slowestOver = p.slowestStart().isPresent() && p.timeout().isPresent()
                    && p.slowestStart().get().compareTo(p.timeout().get()) > 0;
            if (p.overTimeout() == 0 && !slowestOver) {
                return Optional.empty();
            }
            return Optional.of(count(Math.max(1, p.overTimeout()), "server") + " over the startup timeout in the latest probe"
                    + slowest(p));
        });
    }

    private static Optional<String> nearTimeout(HealthEvidence e) {
        return e.probe().flatMap(p -> {
            if (p.overTimeout() > 0 || p.slowestStart().isEmpty() || p.timeout().isEmpty()) {
                return Optional.empty();
            }
            double share = (double) p.slowestStart().get().toNanos() / p.timeout().get().toNanos();
            return share >= NEAR_TIMEOUT && share <= 1
                    ? Optional.of("the latest probe's slowest server is near its timeout" + slowest(p)) : Optional.empty();
        });
    }

    private static Optional<String> staleSeeds(HealthEvidence e) {
        List<String> onlyStale = e.staleSeeds().stream().filter(t -> !e.failedSeeds().contains(t)).toList();
        return onlyStale.isEmpty() ? Optional.empty()
                : Optional.of(count(onlyStale.size(), "seed") + " stale: " + String.join(", ", onlyStale) + " (kiln warm)");
    }

    private static String slowest(HealthEvidence.Probe p) {
        return p.slowest().isPresent() && p.slowestStart().isPresent()
                ? ": slowest " + p.slowest().get() + " " + seconds(p.slowestStart().get())
                        + p.timeout().map(t -> " of " + seconds(t)).orElse("")
                : "";
    }

    private static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    private static String percent(double share) {
        return Math.round(share * 100) + " %";
    }

    static String seconds(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
}
