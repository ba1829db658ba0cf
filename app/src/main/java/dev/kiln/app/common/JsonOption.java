package dev.kiln.app.common;

import picocli.CommandLine.Option;

/**
 * Mixin: {@code --json}. Every command that has it prints machine-readable JSON on stdout through {@link Json}:
 * one compact object, or one per line where the command lists several; nothing else goes to stdout.
 */
public final class JsonOption {
    @Option(names = "--json", description = "Print compact JSON on stdout (one object per line) instead of the human-readable output.")
    boolean json;

    /** Whether {@code --json} was given. */
    public boolean enabled() {
        return json;
    }
}
