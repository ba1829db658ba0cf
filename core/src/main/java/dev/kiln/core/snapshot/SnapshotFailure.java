package dev.kiln.core.snapshot;

/**
 * A file or directory a build could not use, with the reason. Failures are never cached: the next build
 * tries again.
 *
 * @param path relative to {@code tasks/}, {@code /}-separated ({@code .} for {@code tasks/} itself)
 * @param kind what went wrong, in one word
 * @param reason what went wrong, for a person
 */
public record SnapshotFailure(String path, Kind kind, String reason) {

    /** What went wrong. */
    public enum Kind {
        TOO_LARGE, NOT_UTF8, MALFORMED, INVALID, IO_ERROR,
        /** A symlinked or special (FIFO, socket, device) contract file; never read (see the contract package's policy). */
        REFUSED,
        /** A directory symlink that leads back to one of its own ancestors; not followed. */
        SYMLINK_LOOP,
        /** A directory that could not be listed; contracts below it are unknown this build. */
        UNREADABLE_DIR
    }

    /** Whether this failure is about a directory (so nothing below {@link #path()} is known this build). */
    public boolean isDirectory() {
        return kind == Kind.SYMLINK_LOOP || kind == Kind.UNREADABLE_DIR;
    }
}
