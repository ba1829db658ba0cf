package dev.kiln.core.engine;

import java.time.Instant;

/**
 * A probe run saved in the workspace ({@code observer/probe-runs/}), by the console or by {@code kiln probe}:
 * {@code id} is its file name, which {@link Probes#run(String)} takes.
 */
public record SavedRun(String id, Instant startedAt) {
}
