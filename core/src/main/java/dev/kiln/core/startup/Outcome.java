package dev.kiln.core.startup;

/** How one server's startup ended. */
public enum Outcome {
    /** Answered {@code initialize} (and {@code tools/list}) within its timeout. */
    OK,
    /** Did not answer within its startup timeout: the client would drop it. */
    TIMEOUT,
    /** The process ended before the handshake finished; the exit code and stderr tail say why. */
    EXITED,
    /** It answered, but not in MCP: a non-JSON or oversized line, a wrong id, an error, a version Kiln does not speak. */
    PROTOCOL_ERROR,
    /** The process could not be started (command not found, not executable, bad working directory). */
    SPAWN_FAILED;

    /** The name used in JSON and on the console: {@code ok}, {@code timeout}, {@code exited}, … */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
