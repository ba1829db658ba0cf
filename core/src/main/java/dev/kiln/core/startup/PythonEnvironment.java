package dev.kiln.core.startup;

import java.nio.file.Path;
import java.util.List;

/**
 * A Python interpreter and the directories its imports come from, as the interpreter itself reported them.
 *
 * @param interpreter the executable the server runs ({@code sys.executable})
 * @param version e.g. {@code 3.11.9}
 * @param cacheTag {@code sys.implementation.cache_tag}, e.g. {@code cpython-311}: the pyc name a fresh cache needs
 * @param magic {@code importlib.util.MAGIC_NUMBER} as hex: a pyc with another magic is stale for this interpreter
 * @param roots the environment's site-packages directories (purelib, platlib), existing ones only
 * @param resolvedFrom how Kiln found the interpreter, for people
 */
public record PythonEnvironment(Path interpreter, String version, String cacheTag, String magic, List<Path> roots,
        String resolvedFrom) {

    public PythonEnvironment {
        roots = List.copyOf(roots);
    }
}
