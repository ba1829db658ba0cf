package dev.kiln.core.serve.client;

import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * The client's test hooks for the daemon's tests (package {@code dev.kiln.core.serve}), so the exported client keeps
 * them package-private: a remote engine with short reconnect delays, a broken stream, a pinned TLS context, the lock's
 * file name.
 */
public final class ClientInternals {
    public static final String LOCK_FILE_NAME = ServeLock.FILE_NAME;

    private ClientInternals() {
    }

    public static RemoteEngine connect(URI url, @Nullable Path tokenFile, @Nullable String pin, Clock clock, Duration retryMin,
            Duration retryMax) {
        return RemoteEngine.connect(url, tokenFile, pin, clock, retryMin, retryMax);
    }

    public static void breakStream(RemoteEngine engine) {
        engine.breakStream();
    }

    public static SSLContext pinnedContext(String pin) {
        return PinnedTls.context(pin);
    }
}
