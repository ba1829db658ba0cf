/**
 * The projection: {@link dev.kiln.core.projection.Projector} turns a contract snapshot into the state document
 * {@code observer/state.json} once per tick, advancing the revision only when stable content changed, and reports a
 * {@link dev.kiln.core.projection.TickResult} (published as {@link dev.kiln.core.projection.TickFinished}). Drift
 * pruning, enclosures, engine facts, the document renderer and the state file are package-private.
 */
@NullMarked
package dev.kiln.core.projection;

import org.jspecify.annotations.NullMarked;
