package dev.kiln.core.startup;

import dev.kiln.core.workspace.WorkspaceException;

/** A server config file cannot be used; the message names the file, the server and the field. */
public final class ServerConfigException extends WorkspaceException {
    private static final long serialVersionUID = 1L;

    ServerConfigException(String message) {
        super(message);
    }

    ServerConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
