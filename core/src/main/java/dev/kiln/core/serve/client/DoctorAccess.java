package dev.kiln.core.serve.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.doctor.DaemonAccess;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The doctor's way to a daemon: the lock file read by {@link ServeLock} (never opened by the process that holds it),
 * the API asked through {@link ServeClient}: a workspace's daemon with its token and the certificate its lock file
 * pins, a daemon known by URL alone without either; the API version checked before each question.
 *
 * <p>Concurrency: stateless; safe from any thread.
 */
final class DoctorAccess implements DaemonAccess {
    static final DoctorAccess INSTANCE = new DoctorAccess();

    private DoctorAccess() {
    }

    @Override
    public Optional<LockRecord> lockFile(WorkspaceLayout layout) {
        return ServeLock.recorded(layout).map(h -> new LockRecord(h.pid(), h.url(), h.kind() == ServeLock.Kind.CONSOLE));
    }

    @Override
    public JsonNode metrics(URI base, @Nullable WorkspaceLayout layout, Duration within)
            throws IOException, InterruptedException {
        byte[] body = client(base, layout).withTimeout(within).get(Wire.METRICS);
        JsonNode n = Wire.JSON.readTree(body);
        if (n == null || !n.isObject()) {
            throw new IOException("the daemon at " + base + " answered GET /" + Wire.METRICS + " with no JSON object");
        }
        return n;
    }

    @Override
    public byte[] state(URI base, @Nullable WorkspaceLayout layout, Duration within) throws IOException, InterruptedException {
        return client(base, layout).withTimeout(within).get(Wire.STATE);
    }

    /** The client of the workspace's daemon when it is the one at {@code base} (token, pin); else one by URL alone. */
    private static ServeClient client(URI base, @Nullable WorkspaceLayout layout) {
        if (layout != null) {
            Optional<ServeClient> own = ServeClient.of(layout).filter(c -> base.equals(c.holder().url()));
            if (own.isPresent()) {
                return own.get();
            }
        }
        return ServeClient.remote(base, null, null);
    }
}
