package dev.kiln.ui.seeds;

import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmResult;
import java.util.Optional;

/**
 * A target's seed as an operator reads it: fresh, stale, never warmed, or failed (with the reason). Derived from the
 * seed on disk and the target's last warm by {@link #of}, a pure function.
 */
public enum SeedState {
    /** The seed holds the target's lockfile as it is now. */
    FRESH("fresh"),
    /** A seed exists, for another lockfile. */
    STALE("stale"),
    /** No seed yet. */
    NEVER("never warmed"),
    /** The target cannot be read, or its last warm for this lockfile failed; the reason says why. */
    FAILED("failed");

    private final String label;

    SeedState(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** Whether "Warm all stale" warms it: stale and never warmed. A failed warm is retried on purpose, one by one. */
    public boolean wantsWarm() {
        return this == STALE || this == NEVER;
    }

    /**
     * A state and why.
     *
     * @param state the state
     * @param reason for a person: why it failed, what is stale against what, or empty when fresh
     */
    public record Status(SeedState state, String reason) {
    }

    /**
     * The state of {@code seed}, given the target's last finished warm. A failure counts only while it is the last
     * word on the lockfile as it is now: a warm that succeeded since, or a lockfile that changed since, ends it; a
     * cancelled warm leaves the state it found.
     */
    public static Status of(SeedInfo seed, Optional<WarmResult> last) {
        if (seed.currentHash().isEmpty() && seed.problem().isPresent()) {
            return new Status(FAILED, "target unreadable: " + seed.problem().get());
        }
        if (seed.current()) {
            return new Status(FRESH, "");
        }
        if (last.isPresent() && last.get().outcome() != WarmOutcome.CANCELLED && !last.get().outcome().isSuccess()
                && seed.currentHash().map(h -> h.equals(last.get().hash())).orElse(false)) {
            return new Status(FAILED, last.get().message());
        }
        String cancelled = last.isPresent() && last.get().outcome() == WarmOutcome.CANCELLED ? "; the last warm was cancelled" : "";
        if (seed.seeded()) {
            return new Status(STALE, "seed for lockfile " + seed.hash().map(SeedsViewModel::shortHash).orElse("?") + ", lockfile now "
                    + seed.currentHash().map(SeedsViewModel::shortHash).orElse("?") + cancelled);
        }
        return new Status(NEVER, "no seed yet" + cancelled);
    }
}
