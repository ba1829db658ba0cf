package dev.kiln.core.serve;

import dev.kiln.core.health.DaemonHealth;
import dev.kiln.core.health.HealthEvidence;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.startup.ProbeRuns;
import dev.kiln.core.startup.SavedProbeRun;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the daemon's health says about its workspace beyond the projection — stale seeds and the latest probe's
 * verdict — read from the workspace on the daemon's host. Reading seeds hashes every target's lockfile, so the
 * facts are computed at most once per {@link #TTL}, not per health request (a fleet console polls every few
 * seconds, several consoles at once).
 *
 * <p>Concurrency: HTTP threads call {@link #get()}; one computes, the others wait for it and share the answer
 * (guarded by {@code this}).
 */
final class HostFacts {
    static final Duration TTL = Duration.ofSeconds(5);
    private static final Logger LOG = LoggerFactory.getLogger(HostFacts.class);

    /** What the health body carries; an empty part could not be read (the log says why). */
    record Facts(Optional<DaemonHealth.Seeds> seeds, Optional<DaemonHealth.Probe> lastProbe) {
        static final Facts NONE = new Facts(Optional.empty(), Optional.empty());
    }

    private final WorkspaceLayout layout;
    private final Clock clock;
    private final Duration ttl;
    private @Nullable Facts cached;
    private Instant computedAt = Instant.MIN;

    HostFacts(WorkspaceLayout layout, Clock clock, Duration ttl) {
        this.layout = layout;
        this.clock = clock;
        this.ttl = ttl;
    }

    /** The facts, at most {@code ttl} old. */
    synchronized Facts get() {
        Instant now = clock.instant();
        if (cached == null || Duration.between(computedAt, now).compareTo(ttl) >= 0) {
            cached = new Facts(seeds(), probe(layout));
            computedAt = now;
        }
        return cached;
    }

    private Optional<DaemonHealth.Seeds> seeds() {
        try {
            SeedCaches caches = SeedCaches.of(layout.root());
            List<SeedInfo> all = caches.seeds();
            // the verdict's evidence: which are stale, and which of those failed their latest warm
            HealthEvidence e = HealthEvidence.builder().seeds(all, caches.history()).build();
            return Optional.of(new DaemonHealth.Seeds(all.size(), e.staleSeeds().size(), e.staleSeeds(), e.failedSeeds()));
        } catch (RuntimeException e) {
            LOG.debug("Health: seeds of {} not read: {}", layout.root(), e.getMessage());
            return Optional.empty();
        }
    }

    /** The verdict of {@code layout}'s newest saved probe run, empty when it has none or it does not read. */
    static Optional<DaemonHealth.Probe> probe(WorkspaceLayout layout) {
        try {
            List<Path> runs = ProbeRuns.list(layout);
            return runs.isEmpty() ? Optional.empty() : Optional.of(verdict(ProbeRuns.read(runs.get(0))));
        } catch (RuntimeException e) {
            LOG.debug("Health: probe runs of {} not read: {}", layout.root(), e.getMessage());
            return Optional.empty();
        }
    }

    /** A saved run's summary as a verdict: its slowest server against that server's timeout. */
    static DaemonHealth.Probe verdict(SavedProbeRun run) {
        HealthEvidence.Probe p = HealthEvidence.Probe.ofSavedRun(run);
        Instant at = Optional.ofNullable(run.summary().startedAt()).orElse(Instant.EPOCH);
        return new DaemonHealth.Probe(at, p.servers(), p.slowest(), p.slowestStart(), p.timeout(), p.overTimeout(), p.failed());
    }
}
