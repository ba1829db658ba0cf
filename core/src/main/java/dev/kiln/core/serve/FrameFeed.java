package dev.kiln.core.serve;

import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.serve.client.EventStream;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A workspace's events as the API's SSE frames ({@code event} name and {@code data} JSON, exactly what
 * {@code GET /api/v1/events} sends): a {@code snapshot} first, then {@code delta}s and the core events. What a
 * recording is made of, from a local projector or from a daemon.
 *
 * <p>{@link #local} runs the daemon's own frame machinery ({@link SseHub}: snapshot, delta by leaf-text identity,
 * event JSON of {@link Wire}) in this process over a projector and its bus, so a local recording's frames are those
 * a daemon of the same workspace would have sent. {@link #remote} reads a daemon's stream itself through an
 * {@link EventStream} (its own connection, resumed with {@code Last-Event-ID} after a break; a daemon that cannot
 * replay sends a fresh snapshot).
 *
 * <p>Concurrency: frames reach the sink on one thread of the feed's own ({@code kiln-frames}), in order. A sink must
 * be quick; one that throws is logged and the feed goes on. {@link #close} ends the thread.
 */
public final class FrameFeed implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FrameFeed.class);

    private final Thread thread;
    private final @Nullable AutoCloseable subscription;
    private volatile boolean closed;

    private FrameFeed(@Nullable AutoCloseable subscription, Runnable body) {
        this.subscription = subscription;
        this.thread = new Thread(body, "kiln-frames");
        this.thread.setDaemon(true);
    }

    /**
     * The frames of an in-process projector: the current revision as a {@code snapshot} at once (or at its first
     * tick), then a {@code delta} per revision and every core event of {@code bus} that goes to API clients.
     */
    public static FrameFeed local(Projector projector, EventBus bus, BiConsumer<String, String> sink) {
        Objects.requireNonNull(projector, "projector");
        Objects.requireNonNull(sink, "sink");
        SseHub hub = new SseHub(8_192, 1, 1);
        Projector.DocumentParts first = projector.parts();
        if (first != null) {
            hub.publish(new Published(first));
        }
        SseHub.Client[] client = {connect(hub)};
        FrameFeed[] self = new FrameFeed[1];
        AutoCloseable sub = bus.subscribe(e -> toHub(hub, projector, e));
        self[0] = new FrameFeed(sub, () -> {
            while (!self[0].closed) {
                SseHub.Client c = client[0];
                String frame;
                try {
                    frame = c.queue.poll(200, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                }
                if (frame != null) {
                    deliver(frame, sink);
                } else if (c.dropped) { // the sink fell 8,192 frames behind: start again from a snapshot
                    LOG.warn("A frame feed fell behind; it starts again from the whole state");
                    client[0] = connect(hub);
                }
            }
        });
        self[0].thread.start();
        return self[0];
    }

    /** The feed's one client of its own hub, which has room for one: the one before it was dropped, or none. */
    private static SseHub.Client connect(SseHub hub) {
        SseHub.Client c = hub.connect(null);
        if (c == null) {
            throw new IllegalStateException("a frame feed's hub refused its only client");
        }
        return c;
    }

    private static void toHub(SseHub hub, Projector projector, KilnEvent e) {
        String name = Wire.eventName(e);
        if (name == null) {
            return;
        }
        if (e instanceof TickFinished) { // the revision the tick made goes out before the tick, as the daemon does
            Projector.DocumentParts parts = projector.parts();
            if (parts != null) {
                hub.publish(new Published(parts));
            }
        }
        try {
            hub.publishEvent(name, Wire.JSON.writeValueAsString(Wire.event(e)));
        } catch (IOException ex) {
            LOG.error("A {} event could not be written as JSON; the frame feed misses it: {}", name, ex.getMessage());
        }
    }

    /** One SSE frame's text ({@code id:}, {@code event:}, {@code data:} lines) to the sink. */
    private static void deliver(String frame, BiConsumer<String, String> sink) {
        String event = "";
        StringBuilder data = new StringBuilder(frame.length());
        boolean first = true;
        for (String line : frame.split("\n")) {
            if (line.startsWith("event: ")) {
                event = line.substring(7);
            } else if (line.startsWith("data: ")) {
                if (!first) {
                    data.append('\n');
                }
                data.append(line, 6, line.length());
                first = false;
            }
        }
        try {
            sink.accept(event, data.toString());
        } catch (RuntimeException ex) {
            LOG.error("A frame sink failed on a {} frame; the feed goes on", event, ex);
        }
    }

    /**
     * The frames of the daemon {@code client} reaches, on a connection of the feed's own: the daemon's
     * {@code snapshot} first, then what it sends. After a break the feed reconnects with {@code Last-Event-ID}
     * (backing off from 250 ms to 5 s); a daemon that cannot replay the gap sends a fresh {@code snapshot}.
     *
     * @param onProblem told (on the feed's thread) why the stream broke, for a person; may be a no-op
     */
    public static FrameFeed remote(ServeClient client, BiConsumer<String, String> sink,
            java.util.function.Consumer<String> onProblem) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(sink, "sink");
        return new FrameFeed(EventStream.frames(client, sink, onProblem), () -> { });
    }

    @Override
    public void close() {
        closed = true;
        if (subscription != null) {
            try {
                subscription.close();
            } catch (Exception e) {
                LOG.debug("unsubscribing: {}", e.toString());
            }
        }
        thread.interrupt(); // the local feed's (a remote feed's reader is closed with its subscription)
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
