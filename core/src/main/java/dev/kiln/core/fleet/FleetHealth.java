package dev.kiln.core.fleet;

import dev.kiln.core.serve.DaemonHealth;
import dev.kiln.core.serve.ServeClient;
import java.io.IOException;
import java.time.Duration;

/**
 * One daemon's answer to a fleet's health poll: its health and its verdict. Immutable.
 *
 * @param health what {@code GET /api/v1/health} said
 * @param verdict its verdict ({@link HealthVerdict.State#UNKNOWN} from a daemon that does not say)
 */
public record FleetHealth(DaemonHealth health, HealthVerdict verdict) {

    /** A health without a verdict (an older daemon's). */
    public static FleetHealth of(DaemonHealth health) {
        return new FleetHealth(health, HealthVerdict.unknown());
    }

    /**
     * Asks {@code daemon} once, version and health together within {@code timeout}: a dead daemon costs at most that.
     *
     * @throws IOException why it did not answer (unreachable, refused, not this API)
     */
    public static FleetHealth ask(DaemonEntry daemon, Duration timeout) throws IOException, InterruptedException {
        return ask(daemon.client().withTimeout(timeout));
    }

    /** Asks through {@code client} (one per daemon: it may keep a connection). */
    public static FleetHealth ask(ServeClient client) throws IOException, InterruptedException {
        ServeClient.HealthAnswer a = client.healthAnswer();
        return new FleetHealth(a.health(), HealthVerdict.read(a.body()));
    }
}
