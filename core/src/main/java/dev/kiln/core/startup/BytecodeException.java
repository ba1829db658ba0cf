package dev.kiln.core.startup;

/** A server's Python environment cannot be found, audited or compiled; the message says why and what to do. */
public final class BytecodeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    BytecodeException(String message) {
        super(message);
    }

    BytecodeException(String message, Throwable cause) {
        super(message, cause);
    }
}
