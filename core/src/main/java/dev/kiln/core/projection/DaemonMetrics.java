package dev.kiln.core.projection;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A daemon's projection instrumentation, read at one moment (an immutable value; {@code GET /api/metrics} renders
 * it with the watch and SSE figures).
 *
 * @param projections ticks run
 * @param byReason ticks per wake reason (every reason present)
 * @param last the last tick, if any
 * @param history up to 500 ticks, oldest first
 * @param live whether the pacer runs on change events (else the fixed interval)
 */
public record DaemonMetrics(long projections, Map<WakeReason, Long> byReason, Optional<TickRecord> last,
        List<TickRecord> history, boolean live) {
}
