package dev.kiln.core.watch;

/** What part of the projection a changed path affects. */
public enum ChangeDomain {
    /** {@code tasks/**}: contract files and the directories that hold them. */
    CONTRACTS,
    /** {@code observer/drift/**}: drift snapshots. */
    DRIFT,
    /** {@code targets/**}: seed-cache targets. */
    TARGETS,
    /** {@code kiln.json}. */
    SETTINGS,
    /** A path the rules do not know: fail open and re-project everything. */
    UNKNOWN
}
