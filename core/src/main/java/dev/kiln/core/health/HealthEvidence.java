package dev.kiln.core.health;

import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.startup.SavedProbeRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a verdict is judged from (an immutable value): the facts of one daemon or console workspace, measured where
 * they live (ages by the daemon's own injected clock, so there is no skew between hosts). Built with
 * {@link #builder()}; every part not given is the healthy default.
 *
 * @param contracts contract files the last projection enumerated
 * @param failures contract files and directories that failed to read in it
 * @param failedContracts the first few of those paths (relative to the workspace), for the reason's message
 * @param projectionAge how old the last projection is; empty before the first
 * @param heartbeat the projection's heartbeat: a live projection is never older than a few of them
 * @param lastError why the last projection failed; empty when it did not
 * @param watch the watch; empty when nothing watches (a console ticking on demand)
 * @param seedTargets targets of the workspace
 * @param staleSeeds targets whose seed does not match their lockfile now
 * @param failedSeeds of those, the targets whose latest warm failed (or needs a build)
 * @param probe the latest saved startup probe; empty when never probed
 * @param stateFileError why {@code observer/state.json} cannot be written now; empty when it can
 * @param storeError why the configured store cannot be reached; empty when none is configured or it answers
 */
public record HealthEvidence(long contracts, long failures, List<String> failedContracts, Optional<Duration> projectionAge,
        Duration heartbeat, String lastError, Optional<Watch> watch, int seedTargets, List<String> staleSeeds,
        List<String> failedSeeds, Optional<Probe> probe, String stateFileError, Optional<String> storeError) {

    /** How many failing paths a message names; the count is always whole. */
    public static final int NAMED_FAILURES = 5;

    public HealthEvidence {
        failedContracts = List.copyOf(failedContracts.subList(0, Math.min(NAMED_FAILURES, failedContracts.size())));
        staleSeeds = List.copyOf(staleSeeds);
        failedSeeds = List.copyOf(failedSeeds);
        Objects.requireNonNull(heartbeat, "heartbeat");
        if (heartbeat.isNegative() || heartbeat.isZero()) {
            throw new IllegalArgumentException("the heartbeat must be positive: " + heartbeat);
        }
    }

    /**
     * The watch.
     *
     * @param live whether change events drive the projection (else the fixed interval)
     * @param partial whether some directories are stat-walked instead of watched (the inotify limit)
     * @param reason why it is degraded, or the note of a partial watch (the {@code sysctl} to run)
     */
    public record Watch(boolean live, boolean partial, String reason) {
    }

    /**
     * The latest saved probe run's summary.
     *
     * @param servers servers it probed
     * @param overTimeout servers that missed their startup timeout in a run
     * @param failed servers that failed in a run
     * @param slowest the slowest server that answered
     * @param slowestStart its spawn → initialize
     * @param timeout the startup timeout it is held to
     */
    public record Probe(int servers, int overTimeout, int failed, Optional<String> slowest, Optional<Duration> slowestStart,
            Optional<Duration> timeout) {

        /** A saved run: its slowest server against that server's timeout. */
        public static Probe ofSavedRun(SavedProbeRun run) {
            SavedProbeRun.Summary summary = run.summary();
            Optional<SavedProbeRun.Slowest> slowest = Optional.ofNullable(summary.slowest());
            Optional<Duration> start = slowest.map(s -> Duration.ofNanos(Math.round(s.initializeMs() * 1e6)));
            Optional<Duration> timeout = slowest.flatMap(s -> run.server(s.name()))
                    .map(s -> Duration.ofMillis(s.representative().timeoutMs()));
            return new Probe(run.servers().size(), (int) summary.overTimeout(), (int) summary.failed(),
                    slowest.map(SavedProbeRun.Slowest::name), start, timeout);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The series this evidence gives under Kiln's {@code /metrics} names ({@code name} or {@code name{label="v"}}),
     * so that alert rules evaluate in the console the very names Prometheus scrapes from a daemon.
     */
    public Map<String, List<Double>> samples() {
        Map<String, List<Double>> s = new LinkedHashMap<>();
        s.put("kiln_projection_contracts", List.of((double) contracts));
        s.put("kiln_projection_contract_failures", List.of((double) failures));
        projectionAge.ifPresent(a -> {
            s.put("kiln_projection_age_seconds", List.of(a.toMillis() / 1e3));
            s.put("kiln_projection_age_heartbeats", List.of(ageInHeartbeats(a, heartbeat)));
        });
        watch.ifPresent(w -> s.put("kiln_watch_live", List.of(w.live() ? 1.0 : 0.0)));
        List<Double> current = new ArrayList<>();
        for (int i = 0; i < seedTargets; i++) {
            current.add(i < staleSeeds.size() ? 0.0 : 1.0);
        }
        s.put("kiln_seed_current", current);
        probe.ifPresent(p -> s.put("kiln_probe_servers_over_timeout", List.of((double) p.overTimeout())));
        s.put("kiln_state_file_write_failing", List.of(stateFileError.isEmpty() ? 0.0 : 1.0));
        HealthVerdict v = HealthRules.judge(this);
        for (HealthState st : HealthState.values()) {
            s.put("kiln_health{state=\"" + st.wireName() + "\"}", List.of(v.state() == st ? 1.0 : 0.0));
        }
        for (HealthRules.Row r : HealthRules.table()) {
            s.put("kiln_health_reason{code=\"" + r.code() + "\"}", List.of(v.has(r.code()) ? 1.0 : 0.0));
        }
        return s;
    }

    /** Age over heartbeat, the unit of {@link HealthRules#STALE_HEARTBEATS}. */
    public static double ageInHeartbeats(Duration age, Duration heartbeat) {
        return (double) age.toMillis() / heartbeat.toMillis();
    }

    /** Builds evidence; every part not given is the healthy default. Not thread-safe. */
    public static final class Builder {
        private long contracts;
        private long failures;
        private List<String> failedContracts = List.of();
        private Optional<Duration> projectionAge = Optional.empty();
        private Duration heartbeat = Duration.ofSeconds(15);
        private String lastError = "";
        private Optional<Watch> watch = Optional.empty();
        private int seedTargets;
        private List<String> staleSeeds = List.of();
        private List<String> failedSeeds = List.of();
        private Optional<Probe> probe = Optional.empty();
        private String stateFileError = "";
        private Optional<String> storeError = Optional.empty();

        private Builder() {
        }

        /** The last projection's counts, the first few failing paths, and its error (empty when it did not fail). */
        public Builder projection(long contracts, long failures, List<String> failedContracts, String lastError) {
            this.contracts = contracts;
            this.failures = failures;
            this.failedContracts = List.copyOf(failedContracts);
            this.lastError = lastError;
            return this;
        }

        /** The last projection's age (empty before the first) and the heartbeat it keeps. */
        public Builder age(Optional<Duration> age, Duration heartbeat) {
            this.projectionAge = age;
            this.heartbeat = heartbeat;
            return this;
        }

        public Builder watch(boolean live, boolean partial, String reason) {
            this.watch = Optional.of(new Watch(live, partial, reason));
            return this;
        }

        /** Counted seeds: targets, stale ones, and the stale ones whose latest warm failed. */
        public Builder seeds(int targets, List<String> stale, List<String> failed) {
            this.seedTargets = targets;
            this.staleSeeds = List.copyOf(stale);
            this.failedSeeds = List.copyOf(failed);
            return this;
        }

        /** The seeds as they are and the warm journal: a stale seed whose target's latest warm failed is failed. */
        public Builder seeds(List<SeedInfo> seeds, List<WarmResult> history) {
            Map<String, WarmOutcome> latest = new HashMap<>();
            history.forEach(w -> latest.put(w.target(), w.outcome())); // the journal is oldest first
            List<String> stale = new ArrayList<>();
            List<String> failed = new ArrayList<>();
            for (SeedInfo s : seeds) {
                if (!s.current()) {
                    stale.add(s.target());
                    WarmOutcome o = latest.get(s.target());
                    if (o == WarmOutcome.FAILED || o == WarmOutcome.NEEDS_BUILD) {
                        failed.add(s.target());
                    }
                }
            }
            return seeds(seeds.size(), stale, failed);
        }

        public Builder probe(Optional<Probe> probe) {
            this.probe = probe;
            return this;
        }

        /** Why observer/state.json cannot be written; empty when it can. */
        public Builder stateFileError(String error) {
            this.stateFileError = error;
            return this;
        }

        /** Why the configured store cannot be reached; empty when none is configured or it answers. */
        public Builder storeError(Optional<String> error) {
            this.storeError = error;
            return this;
        }

        public HealthEvidence build() {
            return new HealthEvidence(contracts, failures, failedContracts, projectionAge, heartbeat, lastError, watch,
                    seedTargets, staleSeeds, failedSeeds, probe, stateFileError, storeError);
        }
    }
}
