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

    /**
     * Why a {@link Kind#REJECTED} request was refused, where an API client may act on the difference (the daemon's
     * API answers each with its own status and error code).
     */
    public enum Refusal {
        /** Malformed, or naming what does not exist (an unknown target or server). */
        INVALID,
        /** It names a path that leaves the workspace, lexically or through a symlink. */
        OUTSIDE_WORKSPACE,
        /** What it names is larger than the workspace allows (an archive above {@code archive_max_bytes}). */
        TOO_LARGE,
        /** Its {@code Idempotency-Key} was given before to another request (another route or body). */
        KEY_REUSED
    }

    private final Kind kind;
    private final Refusal refusal;

    public EngineException(Kind kind, String message) {
        super(message);
        this.kind = kind;
        this.refusal = Refusal.INVALID;
    }

    public EngineException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.refusal = Refusal.INVALID;
    }

    /** A {@link Kind#REJECTED} request, refused for {@code refusal}. */
    public EngineException(Refusal refusal, String message) {
        super(message);
        this.kind = Kind.REJECTED;
        this.refusal = refusal;
    }

    public Kind kind() {
        return kind;
    }

    /** Why a rejected request was refused ({@link Refusal#INVALID} for every other kind). */
    public Refusal refusal() {
        return refusal;
    }
}
