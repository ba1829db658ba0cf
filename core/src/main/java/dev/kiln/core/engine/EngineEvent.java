package dev.kiln.core.engine;

import dev.kiln.core.contract.HealReport;
import dev.kiln.core.telemetry.KilnEvent;
import java.time.Instant;
import java.util.Locale;

/**
 * What an {@link Engine} itself publishes besides its capabilities' events: a long action ended, a heal was applied,
 * and (remote engines) the connection to the daemon changed.
 */
public sealed interface EngineEvent extends KilnEvent {

    /** How a long action ended. */
    enum Status {
        SUCCEEDED, FAILED, CANCELLED;

        public String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A long action ({@link Action}) ended; its {@link Action#result()} completes with it.
     *
     * @param id the action's id
     * @param kind {@code warm}, {@code probe} or {@code precompile}
     * @param status how it ended
     * @param message what to tell the user: the failure, or a one-line outcome
     */
    record ActionFinished(Instant at, String id, String kind, Status status, String message) implements EngineEvent {
        @Override
        public String summary() {
            return kind + " " + id + " " + status.jsonName() + (message.isEmpty() ? "" : ": " + message);
        }
    }

    /** A heal sweep ran (a preview too: {@code report.dryRun()}). */
    record HealFinished(Instant at, HealReport report) implements EngineEvent {
        @Override
        public String summary() {
            return "heal " + (report.dryRun() ? "preview" : "applied") + ": " + report.changes().size() + " of "
                    + report.scanned() + " contracts " + (report.dryRun() ? "would change" : "rewritten");
        }
    }

    /**
     * A remote engine's event stream connected, broke (it retries by itself), or resumed with a fresh state.
     *
     * @param location the daemon's URL
     * @param connected whether events arrive now
     * @param reset whether the stream resumed with a whole new state instead of the missed events (too many were
     *     missed, or the daemon restarted): a view should reload what it holds rather than wait for events
     * @param text what to tell the user (why it broke, when it retries)
     */
    record ConnectionChanged(Instant at, String location, boolean connected, boolean reset, String text)
            implements EngineEvent {
        @Override
        public String summary() {
            return text;
        }
    }
}
