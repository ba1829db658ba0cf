/**
 * The staleness doctor: compares what a workspace publishes (its {@code observer/state.json}, or a daemon's
 * {@code /api/state}) with a fresh read-only projection of the disk, and explains each difference from evidence
 * (the daemon's lock and metrics, its inotify watches, file times, the heartbeat). {@link dev.kiln.core.doctor.Doctor}
 * runs it and returns an immutable {@link dev.kiln.core.doctor.Diagnosis}; the evidence readers are package-private.
 * It never writes to the workspace.
 */
@NullMarked
package dev.kiln.core.doctor;

import org.jspecify.annotations.NullMarked;
