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
 * @param progress where a running warm, push or pull stands for it: queued, warming · N lines, pushing…, or how it just
 *     ended; empty otherwise
 * @param store where its seed is against the object store: local only, in the store, both, differing…
 * @param storeReason the store's object, or why the store could not be asked
 */
public record TargetRow(String target, SeedState state, String reason, String lockfile, String seeded, String size,
        String lastWarm, String progress, StoreState store, String storeReason) {

    /** A row before the store was asked. */
    public TargetRow(String target, SeedState state, String reason, String lockfile, String seeded, String size,
            String lastWarm, String progress) {
        this(target, state, reason, lockfile, seeded, size, lastWarm, progress, StoreState.UNKNOWN, "");
    }
}
