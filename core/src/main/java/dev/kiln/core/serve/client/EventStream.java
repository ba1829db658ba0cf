package dev.kiln.core.serve.client;

import dev.kiln.core.http.BoundedRead;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.telemetry.Ticker;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one reader of a daemon's event stream ({@code GET /api/v1/events}): the remote engine, the follower of a
 * daemon beside the console, a recording's frame feed and the benchmarks all read through it.
 *
 * <ul>
 *   <li><b>Resume</b>: after a break it reconnects with {@code Last-Event-ID} (the highest id seen, so frames are
 *       neither lost nor delivered twice while the daemon's ring holds them; a daemon that cannot replay the gap sends
 *       a fresh {@code snapshot}, which the listener treats as a reset).
 *   <li><b>Bounded backoff</b>: the wait before a reconnect doubles from the first wait to the cap and starts again
 *       at the first wait once a connection opens.
 *   <li><b>Stall detection</b> on an injected {@link Ticker}: a daemon sends a comment every 2 s when idle, so no
 *       byte for the stall bound means a broken stream; the sweep closes it and the reader reconnects.
 *   <li><b>Backfill</b> (when asked for): the first connection asks the daemon for its replay ring, so a reader that
 *       attaches sees the events that happened before it (the daemon names how many of the leading frames are
 *       history, {@code Kiln-Backfill}); they arrive flagged {@link Frame#history()}, before the live ones.
 * </ul>
 *
 * <p>Concurrency: one reader thread of its own calls the {@link Listener}, frame by frame in the daemon's order; one
 * sweep thread watches for a stall. A listener that throws is logged and the stream goes on. {@link #close} may come
 * from any thread (not the listener's): it closes the stream to unblock the read and joins the reader.
 */
public final class EventStream implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventStream.class);
    /** No byte for this long (the daemon sends a comment every 2 s when idle): the stream is broken. */
    static final Duration STALL = Duration.ofSeconds(10);
    /** The bound on the answer's head; the stream itself is bounded by the stall detector. */
    static final Duration HEAD = Duration.ofSeconds(10);

    /** One frame of the stream. */
    public record Frame(@Nullable String id, String event, byte[] data, boolean history, boolean more) {
        /** Its data as text (empty when the reader was told not to keep this event's data). */
        public String text() {
            return new String(data, StandardCharsets.UTF_8);
        }
    }

    /** What the stream tells; every call is on the reader thread. */
    public interface Listener {
        /** One frame: {@code history} ones (backfill) first, then the live ones; {@code more}: another is waiting. */
        void frame(Frame f);

        /** A connection opened ({@code first}: the first this reader opened). */
        default void connected(boolean first) {
        }

        /**
         * Once: after the history frames of the first connection (at once when none were asked for), or after the
         * first attempt to connect failed, so that whoever waits for the backfill does not wait for a dead daemon.
         */
        default void caughtUp() {
        }

        /** The stream broke (or could not open) for {@code why}; the next attempt comes after {@code retryIn}. */
        default void broke(String why, Duration retryIn) {
        }

        /** The source said the daemon is gone for good ({@link Ended}); the reader has stopped. */
        default void ended(String why) {
        }
    }

    /** Where the stream comes from: one connection per call. */
    @FunctionalInterface
    interface Source {
        /**
         * Opens a connection.
         *
         * @param lastEventId the resume point, or null for the daemon's current state
         * @param backfill whether to ask for the daemon's replay ring before the live frames
         * @throws Ended when there is no daemon any more and the reader should stop
         */
        Opened open(@Nullable String lastEventId, boolean backfill) throws IOException, InterruptedException;
    }

    /** An open connection: its body, and how many of its first frames are history (backfill). */
    record Opened(InputStream body, int history) {
    }

    /** Thrown by a {@link Source}: nobody serves the stream any more; the reader stops instead of retrying. */
    static final class Ended extends IOException {
        private static final long serialVersionUID = 1L;

        Ended(String message) {
            super(message);
        }
    }

    private final Source source;
    private final Listener listener;
    private final Predicate<String> keepData;
    private final Duration retryMin;
    private final Duration retryMax;
    private final Duration stall;
    private final Ticker ticker;
    private final boolean backfill;
    private final Thread reader;
    private final ScheduledExecutorService sweeper;
    private volatile @Nullable String lastEventId;
    private volatile boolean closed;
    private volatile boolean connected;
    private volatile long lastByte;
    private volatile @Nullable InputStream stream;

    private EventStream(Builder b, Source source, Listener listener) {
        this.source = source;
        this.listener = listener;
        this.keepData = b.keepData;
        this.retryMin = b.retryMin;
        this.retryMax = b.retryMax;
        this.stall = b.stall;
        this.ticker = b.ticker;
        this.backfill = b.backfill;
        this.lastEventId = b.resumeFrom;
        this.lastByte = ticker.read();
        this.reader = new Thread(this::run, b.name);
        this.reader.setDaemon(true);
        String sweepName = b.name + "-stall";
        this.sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, sweepName);
            t.setDaemon(true);
            return t;
        });
    }

    /** A reader of the daemon {@code client} reaches (its token, its pinned certificate). */
    public static Builder of(ServeClient client) {
        Objects.requireNonNull(client, "client");
        return new Builder((last, backfill) -> open(client, last, backfill, ""));
    }

    /**
     * The frames of the daemon {@code client} reaches, each to {@code sink} as its event name and data text, on a
     * reader of their own ({@code kiln-frames}); {@code onProblem} hears why the stream broke. What a recording reads
     * (the remote engine's and {@code FrameFeed.remote}); a sink that throws is logged and the stream goes on.
     */
    public static EventStream frames(ServeClient client, java.util.function.BiConsumer<String, String> sink,
            java.util.function.Consumer<String> onProblem) {
        Objects.requireNonNull(sink, "sink");
        return of(client).name("kiln-frames").start(new Listener() {
            @Override
            public void frame(Frame f) {
                try {
                    sink.accept(f.event(), f.text());
                } catch (RuntimeException ex) {
                    LOG.error("A frame sink failed on a {} frame; the feed goes on", f.event(), ex);
                }
            }

            @Override
            public void broke(String why, Duration retryIn) {
                onProblem.accept(why + "; retrying in " + retryIn.toMillis() + " ms");
            }
        });
    }

    /** A reader of another source (the follower's: the lock file names the daemon anew at each connection). */
    static Builder of(Source source) {
        return new Builder(Objects.requireNonNull(source, "source"));
    }

    /**
     * Opens one connection through {@code client}; an answer other than 200 is an {@link IOException} naming the
     * status and the daemon's message, with {@code refusedAdvice} after a 401.
     */
    static Opened open(ServeClient client, @Nullable String lastEventId, boolean backfill, String refusedAdvice)
            throws IOException, InterruptedException {
        HttpResponse<InputStream> r = client.events(lastEventId, backfill, HEAD);
        if (r.statusCode() != 200) {
            String body = new String(BoundedRead.body(r, "GET /" + Wire.EVENTS, BoundedRead.SMALL, HEAD),
                    StandardCharsets.UTF_8);
            throw new IOException(r.statusCode() == 401 ? "the daemon refused the token (401: " + Wire.errorText(body)
                    + ")" + (refusedAdvice.isEmpty() ? "" : "; " + refusedAdvice)
                    : "GET /" + Wire.EVENTS + " answered " + r.statusCode() + ": " + Wire.errorText(body));
        }
        return new Opened(r.body(), historyCount(r.headers().firstValue(Wire.BACKFILL_COUNT).orElse(null)));
    }

    /** The daemon's count of history frames; 0 when it sent none or nonsense (then nothing is flagged history). */
    static int historyCount(@Nullable String header) {
        if (header == null) {
            return 0;
        }
        try {
            return Math.max(0, Integer.parseInt(header.trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** How a reader reads; {@link #start} starts it. Options are checked when set. */
    public static final class Builder {
        private final Source source;
        private Predicate<String> keepData = event -> true;
        private Duration retryMin = Duration.ofMillis(250);
        private Duration retryMax = Duration.ofSeconds(5);
        private Duration stall = STALL;
        private Ticker ticker = Ticker.systemTicker();
        private boolean backfill;
        private @Nullable String resumeFrom;
        private String name = "kiln-events";

        private Builder(Source source) {
            this.source = source;
        }

        /** Keeps the data only of the events this names; the others' data is skipped unread (a snapshot is MBs). */
        public Builder keepData(Predicate<String> keep) {
            this.keepData = Objects.requireNonNull(keep, "keep");
            return this;
        }

        /** The wait before the first reconnect and its cap (it doubles between them); defaults 250 ms and 5 s. */
        public Builder backoff(Duration first, Duration cap) {
            if (first.isNegative() || first.isZero() || cap.compareTo(first) < 0) {
                throw new IllegalArgumentException("a backoff runs from a positive first wait up to a cap no smaller,"
                        + " not " + first + " to " + cap);
            }
            this.retryMin = first;
            this.retryMax = cap;
            return this;
        }

        /** How long without a byte counts as a broken stream (default 10 s), read on {@code ticker}. */
        Builder stall(Duration bound, Ticker t) {
            if (bound.isNegative() || bound.isZero()) {
                throw new IllegalArgumentException("a stall bound is positive, not " + bound);
            }
            this.stall = bound;
            this.ticker = Objects.requireNonNull(t, "ticker");
            return this;
        }

        /** Asks the daemon's replay ring on the first connection: events from before the attach arrive first. */
        public Builder backfill() {
            this.backfill = true;
            return this;
        }

        /** Starts after the frame {@code id} (the id a state document came with), not at the daemon's current state. */
        public Builder resumeFrom(@Nullable String id) {
            this.resumeFrom = id;
            return this;
        }

        /** The reader thread's name. */
        public Builder name(String threadName) {
            this.name = Objects.requireNonNull(threadName, "threadName");
            return this;
        }

        /** Starts reading; frames reach {@code listener} on the reader's thread. */
        public EventStream start(Listener listener) {
            EventStream s = new EventStream(this, source, Objects.requireNonNull(listener, "listener"));
            s.reader.start();
            long period = Math.max(50, stall.toMillis() / 4);
            s.sweeper.scheduleWithFixedDelay(s::sweep, period, period, TimeUnit.MILLISECONDS);
            return s;
        }
    }

    private void run() {
        Duration wait = retryMin;
        boolean first = true;
        boolean caughtUp = false;
        boolean askBackfill = backfill;
        while (!closed) {
            String why;
            try {
                Opened o = source.open(lastEventId, askBackfill);
                stream = o.body();
                lastByte = ticker.read();
                connected = true;
                wait = retryMin;
                askBackfill = false; // the ring once: after a break the resume brings what was missed
                boolean isFirst = first;
                first = false;
                safely(() -> listener.connected(isFirst), "connected");
                int history = o.history();
                if (history == 0 && !caughtUp) {
                    caughtUp = true;
                    safely(listener::caughtUp, "caughtUp");
                }
                try (BoundedRead.Frames in = new BoundedRead.Frames(o.body(), "GET /" + Wire.EVENTS, BoundedRead.STATE,
                        keepData, () -> lastByte = ticker.read())) {
                    for (BoundedRead.Frames.Frame f = in.next(); f != null && !closed; f = in.next()) {
                        boolean past = history > 0;
                        Frame frame = new Frame(f.id(), f.event(), f.data(), past, in.ready());
                        safely(() -> listener.frame(frame), "frame");
                        advance(f.id());
                        if (past && --history == 0 && !caughtUp) {
                            caughtUp = true;
                            safely(listener::caughtUp, "caughtUp");
                        }
                    }
                }
                why = "the daemon closed the event stream";
            } catch (Ended e) {
                stream = null;
                connected = false;
                if (!caughtUp) {
                    safely(listener::caughtUp, "caughtUp");
                }
                if (!closed) {
                    safely(() -> listener.ended(String.valueOf(e.getMessage())), "ended");
                }
                return;
            } catch (IOException e) {
                why = String.valueOf(e.getMessage());
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.error("An event stream failed; reconnecting", e);
                why = e.toString();
            }
            stream = null;
            connected = false;
            if (!caughtUp) { // whoever waits for the backfill must not wait for a daemon that is not there
                caughtUp = true;
                safely(listener::caughtUp, "caughtUp");
            }
            if (closed) {
                return;
            }
            Duration retryIn = wait;
            String reason = why;
            safely(() -> listener.broke(reason, retryIn), "broke");
            synchronized (this) {
                try {
                    if (!closed) {
                        wait(wait.toMillis());
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }
            wait = next(wait, retryMax);
        }
    }

    /** The wait after {@code wait}: twice as long, at most {@code cap}. */
    static Duration next(Duration wait, Duration cap) {
        Duration twice = wait.multipliedBy(2);
        return twice.compareTo(cap) > 0 ? cap : twice;
    }

    /** The resume point moves forward only: history frames carry ids older than the point the reader started from. */
    private void advance(@Nullable String id) {
        if (id == null) {
            return;
        }
        String last = lastEventId;
        lastEventId = last == null || newer(id, last) ? id : last;
    }

    /** Whether {@code id} comes after {@code than}; ids are numbers from one sequence, anything else is newer. */
    static boolean newer(String id, String than) {
        try {
            return Long.parseLong(id.trim()) > Long.parseLong(than.trim());
        } catch (NumberFormatException e) {
            return true;
        }
    }

    private void safely(Runnable call, String what) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.error("An event-stream listener failed in {}; the stream goes on", what, e);
        }
    }

    /** The stall sweep: a stream silent for the bound is closed, and the reader reconnects. */
    void sweep() {
        InputStream s = stream;
        if (s != null && ticker.read() - lastByte > stall.toNanos()) {
            LOG.info("No byte on the event stream for {} ms; reconnecting", stall.toMillis());
            closeQuietly(s);
        }
    }

    /** Whether the reader still runs (it stops once closed, or once its source said the daemon is gone). */
    boolean running() {
        return reader.isAlive() && !closed;
    }

    /** Whether a connection is open now. */
    public boolean connected() {
        return connected;
    }

    /** The resume point: the highest frame id seen (or the one it started from). */
    @Nullable String lastEventId() {
        return lastEventId;
    }

    /** Ends the connection now (the reader reconnects): tests of resumption. */
    void breakStream() {
        InputStream s = stream;
        if (s != null) {
            closeQuietly(s);
        }
    }

    private static void closeQuietly(InputStream s) {
        try {
            s.close();
        } catch (IOException e) {
            LOG.debug("closing an event stream: {}", e.toString());
        }
    }

    /** Stops reading; returns once the reader thread ended (or 10 s). A listener call in progress finishes. */
    @Override
    public void close() {
        closed = true;
        sweeper.shutdownNow();
        InputStream s = stream;
        if (s != null) {
            closeQuietly(s);
        }
        synchronized (this) {
            notifyAll();
        }
        if (Thread.currentThread() == reader) {
            return;
        }
        try {
            reader.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
