/**
 * Every shipped benchmark, in one place: {@link dev.kiln.app.bench.BenchCommand} ({@code kiln bench …}) holds the
 * options, one {@code XxxBenchmark} per sub-command does the measuring against a baseline in the same run, with
 * {@link dev.kiln.core.telemetry.Figures} for medians, percentiles and rounding. Nothing in {@code core} depends on
 * it, so no benchmark code (or its sleeps) is on a production path.
 */
package dev.kiln.app.bench;
