package dev.kiln.ui.fleet;

import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.health.HealthState;
import dev.kiln.core.health.HealthVerdict;
import dev.kiln.core.health.DaemonHealth;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;

/**
 * One daemon on the Fleet page as its poller last saw it: an immutable value, replaced on each update. The texts
 * are derived from it and the time now, so the ages tick without asking the daemon again.
 *
 * @param entry the daemon (from the list, or attached for this session only when {@code saved} is false)
 * @param saved whether it is in the daemon list
 * @param state what the last poll found
 * @param health the last health it answered, kept while it is down (last known revision)
 * @param seenAt when that answer came (this console's clock)
 * @param downSince since when it has not answered, while down
 * @param error why the last poll failed, empty when it did not
 * @param retryAt when the poller asks again, while down
 * @param verdict the daemon's health verdict, core's one ({@link DaemonHealth#verdict()}, as {@code kiln status} and
 *     the cards show it); failing with reason {@code unreachable} while it does not answer (or refuses: token, pin,
 *     an API version this console does not speak, with its message); empty, "unknown" on the page, before its first
 *     answer: unknown is this page's word for a row not asked yet, not a verdict
 * @param alerts the alert rules that fire on its last answer (the console's rules over its health's samples, as the
 *     Alerts panel evaluates them for the console's own workspace); they tint its row: critical as failing, a
 *     warning as degraded, whatever its verdict
 */
public record FleetRow(DaemonEntry entry, boolean saved, State state, Optional<DaemonHealth> health, Optional<Instant> seenAt,
        Optional<Instant> downSince, String error, Optional<Instant> retryAt, Optional<HealthVerdict> verdict,
        java.util.List<dev.kiln.core.alert.AlertRule> alerts) {

    public FleetRow {
        alerts = java.util.List.copyOf(alerts);
    }
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    /** What the last poll found, in the order the page lists them: the ones that need a look first. */
    public enum State {
        /** It did not answer, or refused (token, pin, API version). */
        DOWN,
        /** It answered, with problems (watch degraded, projection stuck or failing). */
        DEGRADED,
        /** Not asked yet. */
        CONNECTING,
        /** It answered and is healthy. */
        UP
    }

    static FleetRow connecting(DaemonEntry entry, boolean saved) {
        return new FleetRow(entry, saved, State.CONNECTING, Optional.empty(), Optional.empty(), Optional.empty(), "",
                Optional.empty(), Optional.empty(), java.util.List.of());
    }

    FleetRow answered(DaemonHealth h, Instant now) {
        return new FleetRow(entry, saved, h.healthy() ? State.UP : State.DEGRADED, Optional.of(h), Optional.of(now),
                Optional.empty(), "", Optional.empty(), Optional.of(h.verdict()), alerts);
    }

    FleetRow failed(String why, Instant now, Instant retry) {
        return new FleetRow(entry, saved, State.DOWN, health, seenAt, Optional.of(downSince.orElse(now)), why,
                Optional.of(retry), Optional.of(HealthVerdict.unreachable(why)), java.util.List.of());
    }

    FleetRow with(DaemonEntry e, boolean nowSaved) {
        return new FleetRow(e, nowSaved, state, health, seenAt, downSince, error, retryAt, verdict, alerts);
    }

    /** The same row with the rules that fire on its answer. */
    FleetRow firing(java.util.List<dev.kiln.core.alert.AlertRule> rules) {
        return new FleetRow(entry, saved, state, health, seenAt, downSince, error, retryAt, verdict, rules);
    }

    /**
     * How its row is tinted: {@code "failing"}, {@code "degraded"} or {@code ""}: its verdict, raised by a rule that
     * fires on it (critical as failing, a warning as degraded).
     */
    public String tint() {
        int rank = verdictRank();
        for (dev.kiln.core.alert.AlertRule r : alerts) {
            rank = Math.min(rank, r.severity().equals("critical") ? 0 : 1);
        }
        return rank == 0 ? "failing" : rank == 1 ? "degraded" : "";
    }

    /**
     * Whether {@code shown} (the row on screen) shows what this row shows at {@code at}, and goes on showing it as the
     * clock moves: every text of its cells, tooltips and tint. A fresh answer that changes nothing on screen (the same
     * revision, a projection age that moved with the clock) then leaves the row and its cells alone.
     */
    boolean looksLike(FleetRow shown, Instant at) {
        return shown == this || shown != null && entry.equals(shown.entry) && saved == shown.saved && state == shown.state
                && verdict.equals(shown.verdict) && alerts.equals(shown.alerts) && error.equals(shown.error)
                && downSince.equals(shown.downSince) && retryAt.equals(shown.retryAt)
                && healthText(at).equals(shown.healthText(at)) && reachText(at).equals(shown.reachText(at))
                && revisionText().equals(shown.revisionText()) && projectedText(at).equals(shown.projectedText(at))
                && watchText().equals(shown.watchText()) && contractsText().equals(shown.contractsText())
                && seedsText().equals(shown.seedsText()) && probeText().equals(shown.probeText())
                && probeTooltip().equals(shown.probeTooltip()) && probeBad() == shown.probeBad();
    }

    /** {@code "alerts firing: CRITICAL KilnContractFailures, WARNING KilnSeedStale"}, empty when none fires. */
    public String alertsText() {
        return alerts.isEmpty() ? "" : "alerts firing: " + String.join(", ", alerts.stream()
                .map(r -> r.severity().toUpperCase(Locale.ROOT) + " " + r.name()).toList());
    }

    /** The verdict's word: {@code "failing"}, {@code "degraded"}, {@code "unknown"} (not asked yet), {@code "healthy"}. */
    public String verdictWord() {
        return verdict.map(v -> v.state().wireName()).orElse("unknown");
    }

    /** Where the page lists it, the ones that need a look first: failing, degraded, not yet known, healthy. */
    int verdictRank() {
        return verdict.map(v -> switch (v.state()) {
            case FAILING -> 0;
            case DEGRADED -> 1;
            case HEALTHY -> 3;
        }).orElse(2);
    }

    /** {@code "degraded: 2 contracts fail to read; …"}, {@code "healthy"}, {@code "unknown: not asked yet"}. */
    public String verdictText() {
        return verdict.map(v -> v.reasons().isEmpty() ? v.state().wireName() : v.state().wireName() + ": "
                + String.join("; ", v.reasons().stream().map(r -> r.message().isEmpty() ? r.code() : r.message()).toList()))
                .orElse("unknown: not asked yet");
    }

    /**
     * The Health column: the verdict's word and its reasons ({@code "degraded: 2 contracts fail"}); while down the
     * reach text ({@code "failing: unreachable, down since …"}); {@code "unknown: connecting…"} before it answered.
     */
    public String healthText(Instant now) {
        if (verdict.isEmpty()) {
            return "unknown: " + reachText(now);
        }
        return verdict.get().state() == HealthState.FAILING && state == State.DOWN
                ? "failing: unreachable " + reachText(now).replaceFirst("^down ", "") : verdictText();
    }

    /** Whether {@code filter} (lower case) names it: in its name, URL, verdict word or reach state. */
    boolean matches(String filter) {
        if (filter.isEmpty()) {
            return true;
        }
        return name().toLowerCase(Locale.ROOT).contains(filter) || entry.url().toString().contains(filter)
                || verdictWord().startsWith(filter) || state.name().toLowerCase(Locale.ROOT).startsWith(filter);
    }

    public String name() {
        return entry.name();
    }

    /** {@code "up"}, {@code "degraded: watch degraded: …"}, {@code "down since 12:03:05 · retry in 4 s"}. */
    public String reachText(Instant now) {
        return switch (state) {
            case CONNECTING -> "connecting…";
            case UP -> "up";
            case DEGRADED -> "degraded: " + String.join("; ", health.map(DaemonHealth::problems).orElse(java.util.List.of()));
            case DOWN -> "down since " + CLOCK.format(downSince.orElse(now)) + retryAt.map(r -> r.isAfter(now)
                    ? " · retry in " + Math.max(1, ceilSeconds(Duration.between(now, r))) + " s" : " · retrying").orElse("");
        };
    }

    /** {@code "down for 2 min"} while down, else empty. */
    public String downForText(Instant now) {
        return downSince.map(d -> "down for " + age(Duration.between(d, now))).orElse("");
    }

    /** {@code "r42"} (while down: the last one seen), {@code "–"} before any answer. */
    public String revisionText() {
        return health.map(h -> "r" + h.revision()).orElse("–");
    }

    /** How old its last projection is now: the daemon's age when it answered plus the time since (no clock skew). */
    public String projectedText(Instant now) {
        if (state == State.DOWN || health.isEmpty()) {
            return "–";
        }
        DaemonHealth h = health.get();
        return h.lastProjectionAge().map(a -> age(a.plus(Duration.between(seenAt.orElse(now), now))) + " ago").orElse("not yet");
    }

    /** {@code "live"} or {@code "degraded: why"}. */
    public String watchText() {
        return health.filter(h -> state != State.DOWN).map(h -> h.watchLive() ? "live" : "degraded: " + h.watchReason()).orElse("–");
    }

    /** {@code "500"}, {@code "500 · 3 failed"}. */
    public String contractsText() {
        return health.filter(h -> state != State.DOWN).map(h -> h.contracts() + (h.failures() == 0 ? ""
                : " · " + h.failures() + " failed")).orElse("–");
    }

    /** {@code "all 3 current"}, {@code "2 of 3 stale"}, {@code "no targets"}; {@code "–"} when unknown. */
    public String seedsText() {
        return health.filter(h -> state != State.DOWN).flatMap(DaemonHealth::seeds).map(s -> s.targets() == 0 ? "no targets"
                : s.stale() == 0 ? "all " + s.targets() + " current" : s.stale() + " of " + s.targets() + " stale").orElse("–");
    }

    /**
     * The latest probe's verdict for the column headed "slowest": {@code "demo-graph 2.2 s of 10 s"},
     * {@code "1 over timeout, demo-graph 12.3 s of 10 s"}; {@code "never probed"}, or {@code "–"} when unknown.
     */
    public String probeText() {
        if (state == State.DOWN || health.isEmpty()) {
            return "–";
        }
        return health.get().lastProbe().map(p -> p.verdict().replaceFirst("(^|, )slowest ", "$1"))
                .orElse(health.get().seeds().isPresent() ? "never probed" : "–");
    }

    /** The probe's verdict in full, with when it ran. */
    public String probeTooltip() {
        return health.flatMap(DaemonHealth::lastProbe).map(p -> "Probed " + CLOCK.format(p.at()) + " (" + p.servers()
                + " servers): " + p.verdict()).orElse("No saved probe run in its workspace (kiln probe saves one)");
    }

    /** Whether the latest probe is a concern (a failure, a missed timeout). */
    public boolean probeBad() {
        return health.flatMap(DaemonHealth::lastProbe).map(p -> !p.ok()).orElse(false);
    }

    /** {@code "4 s"}, {@code "3 min"}, {@code "2 h 5 min"}; tenths under ten seconds. */
    static String age(Duration d) {
        long ms = Math.max(0, d.toMillis());
        if (ms < 10_000) {
            return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 120) {
            return s + " s";
        }
        if (s < 7200) {
            return s / 60 + " min";
        }
        return s / 3600 + " h " + (s % 3600) / 60 + " min";
    }

    private static long ceilSeconds(Duration d) {
        return (d.toMillis() + 999) / 1000;
    }
}
