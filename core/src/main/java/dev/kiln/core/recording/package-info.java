/**
 * Recordings of a workspace's event frames, and their replay: {@link dev.kiln.core.recording.Recorder} writes one (the
 * state at the start, then every SSE frame with its time, in compressed blocks with periodic keyframes, bounded),
 * {@link dev.kiln.core.recording.Recording} opens one (up to its damage, with a keyframe index for seeking) and
 * {@link dev.kiln.core.recording.ReplayEngine} plays one back as a read-only {@link dev.kiln.core.engine.Engine}. The
 * format is specified in {@code docs/RECORDING.md}.
 */
@NullMarked
package dev.kiln.core.recording;

import org.jspecify.annotations.NullMarked;
