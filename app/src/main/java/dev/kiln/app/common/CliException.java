package dev.kiln.app.common;

/** A command cannot go on; the message says what happened and what to do. Exit code 2, no stack trace. */
public final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CliException(String message) {
        super(message);
    }

    public CliException(String message, Throwable cause) {
        super(message, cause);
    }
}
