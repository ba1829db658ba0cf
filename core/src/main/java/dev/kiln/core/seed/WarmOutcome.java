package dev.kiln.core.seed;

import java.util.Locale;

/** How one warm of a seed ended. The {@link #label()} is what the journal, the CLI and the console show. */
public enum WarmOutcome {
    /** uv ran, succeeded, and the fresh seed was swapped in. */
    WARMED,
    /** The seed already holds the current lockfile hash; nothing ran. */
    UNCHANGED,
    /** The lock needs a package built from source, which Kiln never does on the warming host. */
    NEEDS_BUILD,
    /** The warm could not be done (bad target, uv missing, uv failed, timed out); the old seed stays. */
    FAILED,
    /** The warm was cancelled; uv's process tree was killed and the old seed stays. */
    CANCELLED;

    /** {@code warmed}, {@code unchanged}, {@code needs-build}, {@code failed}, {@code cancelled}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The outcome of a {@link #label()}. */
    public static WarmOutcome ofLabel(String label) {
        return valueOf(label.toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    /** Whether the seed is usable for the current lockfile afterwards. */
    public boolean isSuccess() {
        return this == WARMED || this == UNCHANGED;
    }
}
