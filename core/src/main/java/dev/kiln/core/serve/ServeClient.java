package dev.kiln.core.serve;

import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * The API of the {@code kiln serve} that owns a workspace, found through its lock file (where) and its token file
 * (the right to ask): for a command or a console beside the daemon, which must ask it rather than write the state
 * document themselves. It reads the daemon's answers through the same {@link Wire} format the daemon writes them in.
 *
 * <p>Concurrency: immutable; every instance shares one {@link HttpClient} (thread-safe).
 */
public final class ServeClient {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final WorkspaceLayout layout;
    private final ServeLock.Holder holder;

    private ServeClient(WorkspaceLayout layout, ServeLock.Holder holder) {
        this.layout = layout;
        this.holder = holder;
    }

    /** The HTTP client every caller of a daemon shares (one selector thread for the process). */
    static HttpClient http() {
        return HTTP;
    }

    /** The client of the daemon serving {@code layout}'s workspace right now, or empty when none does. */
    public static Optional<ServeClient> of(WorkspaceLayout layout) {
        return ServeLock.holder(layout).map(h -> new ServeClient(layout, h));
    }

    /** The daemon, as its lock file names it. */
    public ServeLock.Holder holder() {
        return holder;
    }

    /**
     * Asks the daemon for a manual projection ({@code POST /api/project}) and waits for it.
     *
     * @return the tick it ran (its duration rounded to the microsecond, as the wire carries it)
     * @throws IOException naming what failed: its API not listening yet, no readable token, or its answer
     */
    public TickRecord project() throws IOException, InterruptedException {
        if (holder.url() == null) {
            throw new IOException(holder.name() + " is starting; its API is not listening yet. Retry in a moment");
        }
        String token;
        try {
            token = ApiToken.read(layout.apiTokenFile()).value();
        } catch (IOException e) {
            throw new IOException("cannot read the API token " + layout.apiTokenFile() + " (" + e.getMessage()
                    + "); run this as the user who runs kiln serve", e);
        }
        HttpResponse<String> r;
        try {
            r = HTTP.send(HttpRequest.newBuilder(holder.url().resolve(Wire.PROJECT))
                    .header(Wire.AUTHORIZATION, Wire.bearer(token)).timeout(Duration.ofMinutes(3))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IOException(holder.describe() + " did not answer POST /api/project: " + e.getMessage(), e);
        }
        if (r.statusCode() != 200) {
            throw new IOException(holder.name() + " answered " + r.statusCode() + " to POST /api/project: "
                    + Wire.errorText(r.body()));
        }
        return Wire.readTick(r.body());
    }
}
