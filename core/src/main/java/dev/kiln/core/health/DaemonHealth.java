package dev.kiln.core.health;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A daemon's health as {@code GET /api/v1/health} reports it (an immutable value), with the verdict a script acts
 * on: {@link #healthy()} or the {@link #problems()} that make it degraded.
 *
 * @param url the daemon's base URL
 * @param apiVersion the API version it speaks
 * @param revision the revision it serves (0 before its first projection)
 * @param projections ticks it ran
 * @param lastProjectionAt when its last tick ran (its clock), if any
 * @param lastProjectionAge how long ago, measured by the daemon (no clock skew between hosts), if any
 * @param lastError what failed in the last tick, empty when it did not
 * @param heartbeat its heartbeat: a live daemon projects at least this often
 * @param watchLive whether change events drive it (else the fixed interval)
 * @param watchReason why the watch is degraded; empty when live
 * @param contracts leaves of the last projection
 * @param failures contracts and directories that failed to read in the last projection
 * @param tlsFingerprint the SHA-256 of the certificate it served, empty over plain HTTP
 * @param seeds its workspace's seed caches, as its host sees them; empty from a daemon that does not say
 * @param lastProbe the verdict of its workspace's latest saved startup probe; empty when never probed (or not said)
 * @param stateFileError why its {@code observer/state.json} cannot be written now (the file, the OS's reason), so that
 *     the file trails the revision it serves from memory; empty when the file is up to date
 * @param failedContracts the first few contract paths that failed (at most {@link HealthEvidence#NAMED_FAILURES})
 * @param watchPartial whether its watch stat-walks directories over the inotify limit ({@code watchReason} the note)
 * @param reported the verdict the daemon judged ({@code verdict}, {@code reasons}); empty from an older daemon
 * @param storeError why its workspace's configured object store does not answer; empty when it does or none is set
 */
public record DaemonHealth(URI url, int apiVersion, long revision, long projections, Optional<Instant> lastProjectionAt,
        Optional<Duration> lastProjectionAge, String lastError, Duration heartbeat, boolean watchLive,
        String watchReason, long contracts, long failures, Optional<String> tlsFingerprint, Optional<Seeds> seeds,
        Optional<Probe> lastProbe, String stateFileError, List<String> failedContracts, boolean watchPartial,
        Optional<HealthVerdict> reported, String storeError) {

    public DaemonHealth {
        failedContracts = List.copyOf(failedContracts);
    }

    /** A health report that says nothing of an object store (as an older daemon's). */
    public DaemonHealth(URI url, int apiVersion, long revision, long projections, Optional<Instant> lastProjectionAt,
            Optional<Duration> lastProjectionAge, String lastError, Duration heartbeat, boolean watchLive,
            String watchReason, long contracts, long failures, Optional<String> tlsFingerprint, Optional<Seeds> seeds,
            Optional<Probe> lastProbe, String stateFileError, List<String> failedContracts, boolean watchPartial,
            Optional<HealthVerdict> reported) {
        this(url, apiVersion, revision, projections, lastProjectionAt, lastProjectionAge, lastError, heartbeat, watchLive,
                watchReason, contracts, failures, tlsFingerprint, seeds, lastProbe, stateFileError, failedContracts,
                watchPartial, reported, "");
    }

    /** A health report without the verdict's evidence (as an older daemon's). */
    public DaemonHealth(URI url, int apiVersion, long revision, long projections, Optional<Instant> lastProjectionAt,
            Optional<Duration> lastProjectionAge, String lastError, Duration heartbeat, boolean watchLive,
            String watchReason, long contracts, long failures, Optional<String> tlsFingerprint, Optional<Seeds> seeds,
            Optional<Probe> lastProbe, String stateFileError) {
        this(url, apiVersion, revision, projections, lastProjectionAt, lastProjectionAge, lastError, heartbeat, watchLive,
                watchReason, contracts, failures, tlsFingerprint, seeds, lastProbe, stateFileError, List.of(), false,
                Optional.empty());
    }

    /** A health report that says nothing of the state file (as an older daemon's). */
    public DaemonHealth(URI url, int apiVersion, long revision, long projections, Optional<Instant> lastProjectionAt,
            Optional<Duration> lastProjectionAge, String lastError, Duration heartbeat, boolean watchLive,
            String watchReason, long contracts, long failures, Optional<String> tlsFingerprint, Optional<Seeds> seeds,
            Optional<Probe> lastProbe) {
        this(url, apiVersion, revision, projections, lastProjectionAt, lastProjectionAge, lastError, heartbeat, watchLive,
                watchReason, contracts, failures, tlsFingerprint, seeds, lastProbe, "");
    }

    /**
     * The seed caches of the daemon's workspace.
     *
     * @param targets targets (and seeds on disk without a target)
     * @param stale of those, the ones whose seed is not current: warmed for another lockfile, or never warmed
     * @param staleTargets their names (empty from an older daemon)
     * @param failedTargets of those, the ones whose latest warm failed
     */
    public record Seeds(int targets, int stale, List<String> staleTargets, List<String> failedTargets) {
        public Seeds {
            staleTargets = List.copyOf(staleTargets);
            failedTargets = List.copyOf(failedTargets);
        }

        /** Counts only (as an older daemon says them). */
        public Seeds(int targets, int stale) {
            this(targets, stale, List.of(), List.of());
        }
    }

    /**
     * The latest saved startup probe of the daemon's workspace ({@code kiln probe} or the console's).
     *
     * @param at when it started
     * @param servers servers it probed
     * @param slowest the slowest server that answered, if any did
     * @param slowestStart its slowest spawn → initialize
     * @param slowestTimeout the startup timeout it is held to
     * @param overTimeout servers that missed their timeout in a run
     * @param failed servers that failed in a run
     */
    public record Probe(Instant at, int servers, Optional<String> slowest, Optional<Duration> slowestStart,
            Optional<Duration> slowestTimeout, int overTimeout, int failed) {

        /** {@code "slowest demo-graph 2.2 s of 10 s"}, {@code "1 over timeout, slowest …"}, or {@code "2 failed"}. */
        public String verdict() {
            List<String> parts = new ArrayList<>();
            if (failed > 0) {
                parts.add(failed + " failed");
            }
            if (overTimeout > 0) {
                parts.add(overTimeout + " over timeout");
            }
            if (slowest.isPresent() && slowestStart.isPresent()) {
                parts.add("slowest " + slowest.get() + " " + seconds(slowestStart.get())
                        + slowestTimeout.map(t -> " of " + seconds(t)).orElse(""));
            }
            return parts.isEmpty() ? "no server answered" : String.join(", ", parts);
        }

        /** Whether every server answered within its timeout. */
        public boolean ok() {
            return failed == 0 && overTimeout == 0 && slowest.isPresent();
        }

        private static String seconds(Duration d) {
            long ms = d.toMillis();
            return ms % 1000 == 0 ? ms / 1000 + " s" : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
        }
    }

    /** A projection older than this many heartbeats means the loop is stuck. */
    static final int STALE_HEARTBEATS = HealthRules.STALE_HEARTBEATS;

    /** Why it is degraded; empty when it is healthy. Failing contracts are the data's problem, not the daemon's. */
    public List<String> problems() {
        List<String> p = new ArrayList<>();
        if (lastProjectionAge.isEmpty()) {
            p.add("no projection yet (it is starting)");
        } else if (lastProjectionAge.get().compareTo(heartbeat.multipliedBy(STALE_HEARTBEATS)) > 0) {
            p.add("the last projection is " + lastProjectionAge.get().toSeconds() + " s old, more than "
                    + STALE_HEARTBEATS + " heartbeats (" + heartbeat.toSeconds() + " s each): its loop is stuck");
        }
        if (!lastError.isEmpty()) {
            p.add("the last projection failed: " + lastError);
        }
        if (!watchLive) {
            p.add("watch degraded: " + watchReason);
        }
        if (!stateFileError.isEmpty()) {
            p.add("observer/state.json cannot be written (" + stateFileError + "): the API serves revision " + revision
                    + " from memory, the file keeps an older one; retried about once a second");
        }
        return List.copyOf(p);
    }

    public boolean healthy() {
        return problems().isEmpty();
    }

    /** What the verdict is judged from, as this answer says it (the daemon measured the age). */
    public HealthEvidence evidence() {
        HealthEvidence.Builder b = HealthEvidence.builder()
                .projection(contracts, failures, failedContracts, lastError)
                .age(lastProjectionAge, heartbeat.isZero() || heartbeat.isNegative() ? Duration.ofSeconds(15) : heartbeat)
                .watch(watchLive, watchPartial, watchReason)
                .stateFileError(stateFileError)
                .probe(lastProbe.map(p -> new HealthEvidence.Probe(p.servers(), p.overTimeout(), p.failed(), p.slowest(),
                        p.slowestStart(), p.slowestTimeout())))
                .storeError(storeError.isEmpty() ? Optional.empty() : Optional.of(storeError));
        seeds.ifPresent(s -> b.seeds(s.targets(), s.staleTargets().isEmpty() && s.stale() > 0
                ? java.util.Collections.nCopies(s.stale(), "?") : s.staleTargets(), s.failedTargets()));
        return b.build();
    }

    /** The daemon's verdict; for an older daemon that judges none, the one {@link HealthRules} gives its evidence. */
    public HealthVerdict verdict() {
        return reported.orElseGet(() -> HealthRules.judge(evidence()));
    }
}
