package dev.kiln.core.startup;

/** Which Python bytecode a probed server may use; Kiln never deletes anyone's caches to get a cold start. */
public enum BytecodeMode {
    /** The server runs as configured: it may use, and write, {@code __pycache__}. */
    AS_IS,
    /**
     * {@code PYTHONDONTWRITEBYTECODE=1}: the server uses only the bytecode its environment ships and writes none, so
     * repeated runs stay as cold as the first — the model of a sandbox started from a fresh image.
     */
    NO_WRITE,
    /**
     * {@code PYTHONDONTWRITEBYTECODE=1} plus an empty {@code PYTHONPYCACHEPREFIX} per run: no bytecode at all is
     * usable (the stdlib's and a precompiled environment's included), a true bytecode-cold start every run.
     */
    COLD;

    /** The name used in JSON and on the command line. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
