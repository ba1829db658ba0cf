package dev.kiln.core.engine;

/**
 * An engine could not do what was asked. The message says what happened, where, and what to do; {@link #kind()}
 * lets a console choose how to show it (a daemon that is down is not a bad request).
 */
public final class EngineException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why. */
    public enum Kind {
        /** The daemon cannot be reached (down, refused, timed out). Retrying later may work. */
        UNREACHABLE,
        /** The daemon refused the token (missing, wrong or revoked: 401). */
        UNAUTHORIZED,
        /** The daemon's certificate is not the pinned one. */
        CERTIFICATE_CHANGED,
        /** The daemon speaks another API version, or answered something that is not its API. */
        INCOMPATIBLE,
        /** The request was refused as invalid (unknown target or server, malformed input). */
        REJECTED,
        /** The engine tried and failed (an I/O error, a failed tool run). */
        FAILED
    }

    private final Kind kind;

    public EngineException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public EngineException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
