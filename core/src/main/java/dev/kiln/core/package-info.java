/**
 * Kiln's engine facade: {@link dev.kiln.core.Kiln} opens one workspace and hands out the engines that work on it
 * (projector, seed caches, archive cache, startup probe) with one shared event bus.
 */
@NullMarked
package dev.kiln.core;

import org.jspecify.annotations.NullMarked;
