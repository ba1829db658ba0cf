package dev.kiln.ui.seeds;

/**
 * One target as the Seeds table shows it.
 *
 * @param target the target's name
 * @param state fresh / stale / never warmed / failed
 * @param reason why (empty when fresh)
 * @param lockfile the lockfile's hash now, short
 * @param seeded the hash the seed was warmed for, short, or "–"
 * @param size the seed's size and wheels, or "–"
 * @param lastWarm when the last warm ended, how and how long it took, or "–"
 * @param progress where a running "warm" stands for it: queued, warming · N lines, or how it just ended; empty otherwise
 */
public record TargetRow(String target, SeedState state, String reason, String lockfile, String seeded, String size,
        String lastWarm, String progress) {
}
