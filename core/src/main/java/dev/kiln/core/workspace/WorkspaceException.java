package dev.kiln.core.workspace;

/** A workspace cannot be used as it is; the message says where and what to do. */
public class WorkspaceException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public WorkspaceException(String message) {
        super(message);
    }

    public WorkspaceException(String message, Throwable cause) {
        super(message, cause);
    }
}
