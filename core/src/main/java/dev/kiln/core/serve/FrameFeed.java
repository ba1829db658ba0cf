package dev.kiln.core.serve;

import dev.kiln.core.http.BoundedRead;
import dev.kiln.core.projection.Projector;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * a daemon of the same workspace would have sent. {@link #remote} reads a daemon's stream itself (its own
 * connection, resumed with {@code Last-Event-ID} after a break; a daemon that cannot replay sends a fresh snapshot).
 *
 * <p>Concurrency: frames reach the sink on one thread of the feed's own ({@code kiln-frames}), in order. A sink must
 * be quick; one that throws is logged and the feed goes on. {@link #close} ends the thread.
 */
public final class FrameFeed implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FrameFeed.class);
    private static final Duration READ = Duration.ofSeconds(10);

    private final Thread thread;
    private final @Nullable AutoCloseable subscription;
    private volatile boolean closed;
    private volatile @Nullable InputStream stream;

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
        SseHub.Client[] client = {hub.connect(null)};
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
                    client[0] = hub.connect(null);
                }
            }
        });
        self[0].thread.start();
        return self[0];
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
        FrameFeed[] self = new FrameFeed[1];
        self[0] = new FrameFeed(null, () -> self[0].follow(client, sink, onProblem));
        self[0].thread.start();
        return self[0];
    }

    private void follow(ServeClient client, BiConsumer<String, String> sink, java.util.function.Consumer<String> onProblem) {
        String last = null;
        long wait = 250;
        long[] lastByte = {System.nanoTime()};
        Thread stall = new Thread(() -> { // a daemon sends a comment every 2 s: 10 s of silence is a broken stream
            while (!closed) {
                try {
                    Thread.sleep(1_000);
                } catch (InterruptedException e) {
                    return;
                }
                InputStream s = stream;
                if (s != null && System.nanoTime() - lastByte[0] > RemoteEngine.STALL.toNanos()) {
                    closeQuietly(s);
                }
            }
        }, "kiln-frames-stall");
        stall.setDaemon(true);
        stall.start();
        try {
            while (!closed) {
                try {
                    HttpResponse<InputStream> r = client.events(last, READ);
                    if (r.statusCode() != 200) {
                        String body = new String(BoundedRead.body(r, "GET /" + Wire.EVENTS, BoundedRead.SMALL, READ),
                                StandardCharsets.UTF_8);
                        throw new IOException("GET /" + Wire.EVENTS + " answered " + r.statusCode() + ": " + Wire.errorText(body));
                    }
                    stream = r.body();
                    lastByte[0] = System.nanoTime();
                    wait = 250;
                    try (BoundedRead.Frames in = new BoundedRead.Frames(r.body(), "GET /" + Wire.EVENTS, BoundedRead.STATE, true,
                            () -> lastByte[0] = System.nanoTime())) {
                        for (BoundedRead.Frames.Frame f = in.next(); f != null && !closed; f = in.next()) {
                            try {
                                sink.accept(f.event(), new String(f.data(), StandardCharsets.UTF_8));
                            } catch (RuntimeException ex) {
                                LOG.error("A frame sink failed on a {} frame; the feed goes on", f.event(), ex);
                            }
                            if (f.id() != null) {
                                last = f.id();
                            }
                        }
                    }
                    if (!closed) {
                        onProblem.accept("the daemon closed the event stream; reconnecting");
                    }
                } catch (IOException e) {
                    if (!closed) {
                        onProblem.accept(e.getMessage() + "; retrying in " + wait + " ms");
                    }
                } catch (InterruptedException e) {
                    return;
                }
                stream = null;
                try {
                    Thread.sleep(wait);
                } catch (InterruptedException e) {
                    return;
                }
                wait = Math.min(5_000, wait * 2);
            }
        } finally {
            stall.interrupt();
        }
    }

    private static void closeQuietly(InputStream s) {
        try {
            s.close();
        } catch (IOException e) {
            LOG.debug("closing a frame stream: {}", e.toString());
        }
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
        InputStream s = stream;
        if (s != null) {
            closeQuietly(s);
        }
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
