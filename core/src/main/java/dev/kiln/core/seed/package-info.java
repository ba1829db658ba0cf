/**
 * Per-target {@code uv} seed caches: {@link dev.kiln.core.seed.SeedCaches} plans and runs warms (wheels only, once per
 * lockfile hash), copies seeds into a job's cache and lists them. The warmer, store, journal, locks and the
 * {@code uv} launcher are package-private.
 */
@NullMarked
package dev.kiln.core.seed;

import org.jspecify.annotations.NullMarked;
