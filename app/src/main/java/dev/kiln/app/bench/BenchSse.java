package dev.kiln.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.app.common.Json;
import dev.kiln.core.serve.client.EventStream;
import dev.kiln.core.serve.client.ServeClient;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The benchmarks' view of a daemon's event stream, read through core's one reader ({@link EventStream}): each
 * snapshot and delta with the bytes of its data on the wire. A snapshot comes back as an empty object: its data,
 * the whole document (tens of megabytes at 100,000 leaves), is skipped unread, so the client does not weigh on the
 * heap it shares with the daemon it measures. Ticks, warm lines and probe steps are not measured.
 */
final class BenchSse implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BenchSse.class);
    private final BlockingQueue<Frame> events = new LinkedBlockingQueue<>();
    private final EventStream stream;

    /** One event: its data (empty for a snapshot: not parsed) and the bytes of its data on the wire. */
    record Frame(JsonNode data, long bytes) {
        boolean snapshot() {
            return data.isEmpty();
        }
    }

    /** Reads the events of the loopback daemon at {@code base} ({@code http://127.0.0.1:PORT/}). */
    BenchSse(URI base) {
        stream = EventStream.of(ServeClient.remote(base, null, null)).name("bench-sse")
                .keepData(event -> !event.equals("snapshot")).start(f -> {
                    if (f.event().equals("snapshot")) {
                        events.add(new Frame(Json.MAPPER.createObjectNode(), 0));
                    } else if (f.event().equals("delta")) {
                        try {
                            events.add(new Frame(Json.MAPPER.readTree(f.data()), f.data().length));
                        } catch (IOException e) {
                            LOG.warn("A delta that is not JSON; not measured: {}", e.getMessage());
                        }
                    }
                });
    }

    JsonNode next(Duration timeout) throws InterruptedException {
        Frame f = nextFrame(timeout);
        return f == null ? null : f.data();
    }

    /** The next snapshot or delta with its size on the wire, or null after {@code timeout}. */
    Frame nextFrame(Duration timeout) throws InterruptedException {
        return events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        stream.close();
    }
}
