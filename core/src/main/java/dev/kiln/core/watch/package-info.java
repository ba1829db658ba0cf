/**
 * Change-driven projection: the file watcher and its fallback to polling, the change pacer (debounce, max wait,
 * heartbeat) and the loop that runs one tick per paced wake.
 */
@NullMarked
package dev.kiln.core.watch;

import org.jspecify.annotations.NullMarked;
