package dev.kiln.core.startup;

import java.util.List;

/**
 * How much of an environment's Python source has usable bytecode for its interpreter.
 *
 * @param environment what was audited
 * @param sources {@code .py} files under its roots
 * @param fresh sources whose pyc matches (timestamp: source mtime and size; checked hash: source hash; unchecked hash:
 *     taken as fresh, as Python does)
 * @param stale sources with a pyc that Python would reject (other magic, moved mtime/size, changed hash, truncated)
 * @param missing sources with no pyc for this interpreter's cache tag: compiled on every bytecode-less start
 * @param uncheckedHash how many of the fresh ones are unchecked-hash pycs (never re-validated against their source)
 * @param examples a few stale or missing sources, for people
 */
public record BytecodeReport(PythonEnvironment environment, long sources, long fresh, long stale, long missing,
        long uncheckedHash, List<String> examples) {

    public BytecodeReport {
        examples = List.copyOf(examples);
    }

    /** Share of sources with fresh bytecode, 0–1 (1 for an environment without sources). */
    public double freshRatio() {
        return sources == 0 ? 1.0 : (double) fresh / sources;
    }
}
