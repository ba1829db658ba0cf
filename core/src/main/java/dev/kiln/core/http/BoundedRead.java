package dev.kiln.core.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;
import org.jspecify.annotations.Nullable;

/**
 * Reads what a daemon (or whatever answers at the URL it was given) sends, within bounds that a hostile or broken
 * server cannot push past: every body has a size bound, on the wire and once decompressed; every exchange has one
 * deadline for its head and its body together (a server that drips a byte a second does not reset it); every frame
 * of an event stream has a size bound ({@link Frames}). Past a bound the exchange ends, its connection closed, and
 * {@link Exceeded} says which bound and for what, in words a message can quote. Bytes of an answer quoted in a
 * message go through {@link #excerpt}, so nothing binary reaches a terminal.
 *
 * <p>The head is awaited on the caller's thread with a timed wait rather than the HTTP client's own timeout, which its
 * selector thread serves: a client whose selector thread died still returns by the deadline.
 *
 * <p>Concurrency: the methods may be called from any thread, concurrently. One daemon thread, shared by the process
 * and started on first use, closes the body of an answer whose deadline passed, which ends a read blocked on it.
 * A {@link Frames} reader belongs to the one thread that reads it.
 */
public final class BoundedRead {
    private static final long KIB = 1024;
    private static final long MIB = 1024 * KIB;
    /** Version, health, workspace: answers of a few hundred bytes. */
    public static final long SMALL = MIB;
    /** Lists and documents of the API (seeds, runs, metrics, an action). */
    public static final long DOCUMENT = 16 * MIB;
    /**
     * The state document, a snapshot frame of the event stream, the doctor's diagnosis: a state of 100,000 contracts
     * is about 34 MB, so this leaves room for a workspace about three times that large.
     */
    public static final long STATE = 128 * MIB;

    private BoundedRead() {
    }

    /** Why an answer was not read to its end. */
    public static final class Exceeded extends IOException {
        private static final long serialVersionUID = 1L;

        /** The bound that was reached. */
        public enum Bound {
            /** More bytes than the answer's bound came (on the wire, or once decompressed). */
            SIZE,
            /** The answer did not finish before its deadline. */
            DEADLINE,
            /** An event stream's frame (or one of its lines) grew past its bound. */
            FRAME
        }

        private final Bound bound;

        Exceeded(Bound bound, String message) {
            super(message);
            this.bound = bound;
        }

        public Bound bound() {
            return bound;
        }

        /** The {@code Exceeded} in {@code e}'s causes, or null. */
        public static @Nullable Exceeded in(@Nullable Throwable e) {
            for (Throwable c = e; c != null; c = c.getCause()) {
                if (c instanceof Exceeded x) {
                    return x;
                }
            }
            return null;
        }
    }

    /** An answer read whole: its status, its body (decompressed) and headers. */
    public record Answer(int status, byte[] body, HttpHeaders headers) {
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /**
     * Sends {@code request} (gzip accepted) and reads its whole answer, at most {@code maxBytes} on the wire and
     * decompressed, all within {@code deadline}.
     *
     * @param what the request in a message's words, e.g. {@code GET /api/v1/health}
     * @throws Exceeded when the answer is larger than {@code maxBytes} or does not end in time
     * @throws IOException when the exchange fails (the client's own exception, causes kept)
     */
    public static Answer exchange(HttpClient client, HttpRequest.Builder request, String what, long maxBytes,
            Duration deadline) throws IOException, InterruptedException {
        long start = System.nanoTime();
        HttpResponse<InputStream> r = head(client, request.setHeader("Accept-Encoding", "gzip"), what, deadline);
        byte[] body = body(r, what, maxBytes, deadline.minusNanos(System.nanoTime() - start));
        return new Answer(r.statusCode(), body, r.headers());
    }

    /**
     * Sends {@code request} and waits at most {@code deadline} for its answer's head (status and headers); the body,
     * unread, is the caller's to read (through {@link #body} or {@link Frames}) and to close.
     *
     * @throws Exceeded when no head came in time
     */
    public static HttpResponse<InputStream> head(HttpClient client, HttpRequest.Builder request, String what,
            Duration deadline) throws IOException, InterruptedException {
        Duration left = atLeastAMillisecond(deadline);
        CompletableFuture<HttpResponse<InputStream>> f = client.sendAsync(request.timeout(left).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try {
            return f.get(left.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            abandon(f);
            throw new Exceeded(Exceeded.Bound.DEADLINE, "did not answer " + what + " within " + seconds(deadline));
        } catch (InterruptedException e) {
            abandon(f);
            throw e;
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof java.net.http.HttpTimeoutException) { // the client's own timer, the same deadline
                Exceeded x = new Exceeded(Exceeded.Bound.DEADLINE, "did not answer " + what + " within " + seconds(deadline));
                x.initCause(c);
                throw x;
            }
            if (c instanceof IOException io) {
                throw io;
            }
            throw new IOException(String.valueOf(c), c);
        }
    }

    /**
     * Reads the body of {@code r} whole, gzip undone: at most {@code maxBytes} on the wire and decompressed, by
     * {@code deadline} (from now). The body is closed when this returns.
     *
     * @throws Exceeded when the body is larger or does not end in time
     */
    public static byte[] body(HttpResponse<InputStream> r, String what, long maxBytes, Duration deadline)
            throws IOException {
        boolean gzip = r.headers().firstValue("Content-Encoding").map(v -> v.trim().equalsIgnoreCase("gzip")).orElse(false);
        long declared = r.headers().firstValueAsLong("Content-Length").orElse(-1);
        InputStream raw = r.body();
        Watch watch = Watch.close(raw, deadline);
        try (raw) {
            if (declared > maxBytes) {
                throw tooLarge(what, maxBytes, false);
            }
            InputStream wire = new Limited(raw, maxBytes, () -> tooLarge(what, maxBytes, false));
            InputStream decoded = gzip ? new GZIPInputStream(wire, 8192) : wire;
            Chunks out = new Chunks();
            out.readFrom(decoded, maxBytes, () -> tooLarge(what, maxBytes, gzip));
            return out.toByteArray();
        } catch (Exceeded e) {
            throw e;
        } catch (IOException e) {
            if (watch.fired()) {
                throw new Exceeded(Exceeded.Bound.DEADLINE, "did not finish its answer to " + what + " within "
                        + seconds(deadline));
            }
            if (gzip && e instanceof ZipException || gzip && e instanceof java.io.EOFException) {
                throw new IOException("sent a corrupt gzip body answering " + what + " (" + e.getMessage() + ")", e);
            }
            throw e;
        } finally {
            watch.cancel();
        }
    }

    private static Exceeded tooLarge(String what, long maxBytes, boolean decompressed) {
        return new Exceeded(Exceeded.Bound.SIZE, decompressed
                ? "sent an answer to " + what + " that decompresses to more than " + size(maxBytes) + " (a gzip bomb?)"
                : "sent more than " + size(maxBytes) + " answering " + what);
    }

    /** A request given up on: cancelled, and its body closed should its head arrive after all. */
    private static void abandon(CompletableFuture<HttpResponse<InputStream>> f) {
        f.cancel(true);
        f.thenAccept(r -> closeQuietly(r.body()));
    }

    static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException e) {
            // closing is all we wanted
        }
    }

    private static Duration atLeastAMillisecond(Duration d) {
        return d.toMillis() < 1 ? Duration.ofMillis(1) : d;
    }

    /** {@code 10 s}, {@code 1.5 s}, {@code 250 ms}: a deadline in a message. */
    public static String seconds(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + " ms";
        }
        return ms % 1000 == 0 ? ms / 1000 + " s" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    /** {@code 1 MiB}, {@code 128 MiB}, {@code 64 KiB}: a bound in a message. */
    public static String size(long bytes) {
        if (bytes >= MIB && bytes % MIB == 0) {
            return bytes / MIB + " MiB";
        }
        if (bytes >= KIB && bytes % KIB == 0) {
            return bytes / KIB + " KiB";
        }
        return bytes + " bytes";
    }

    /**
     * At most 200 characters of {@code body}, fit for a message on a terminal: text as it is with control characters
     * escaped, or {@code (N bytes, not text)} when it is not UTF-8 text.
     */
    public static String excerpt(byte[] body) {
        int n = Math.min(body.length, 800);
        String s = new String(body, 0, n, StandardCharsets.UTF_8);
        return binary(s) ? "(" + body.length + " bytes, not text)" : excerpt(s) + (n < body.length && !s.isEmpty() && s.length() <= 200 ? "…" : "");
    }

    /**
     * At most 200 characters of {@code text}, fit for a terminal: control characters (a terminal's escape sequences)
     * escaped, line ends as spaces; {@code (N characters, not text)} when it is mostly not text.
     */
    public static String excerpt(String text) {
        if (binary(text.length() > 800 ? text.substring(0, 800) : text)) {
            return "(" + text.length() + " characters, not text)";
        }
        StringBuilder b = new StringBuilder();
        int i = 0;
        for (; i < text.length() && b.length() < 200; i++) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r' || c == '\t') {
                b.append(' ');
            } else if (unprintable(c)) {
                b.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
            } else {
                b.append(c);
            }
        }
        String s = b.toString().strip();
        return i < text.length() ? s + "…" : s;
    }

    private static boolean unprintable(char c) {
        return c < 0x20 || c == 0x7F || c >= 0x80 && c < 0xA0 || c == 0xFFFD;
    }

    /** Mostly not text: more than one character in twenty is a control character or undecodable. */
    private static boolean binary(String s) {
        long bad = s.chars().filter(c -> c != '\n' && c != '\r' && c != '\t' && unprintable((char) c)).count();
        return bad > 2 && bad * 20 > s.length();
    }

    /**
     * The frames of an event stream ({@code text/event-stream}: {@code id:}, {@code event:} and {@code data:} lines, a
     * blank line ending each frame, {@code :} comments), each frame bounded in size: a stream that sends no newline,
     * or one frame without end, fails with {@link Exceeded} ({@code FRAME}) once its frame passes the bound, however
     * slowly it came. A reader that needs only the events' names keeps no data at all.
     *
     * <p>Concurrency: confined to the thread that reads it; {@link #close} may come from another, to end a read.
     */
    public static final class Frames implements java.io.Closeable {
        private static final int FIELD_MAX = 4096;
        private static final byte[] NONE = new byte[0];

        /** One frame: its id (null without one), its event name ({@code message} without one) and its data. */
        public record Frame(@Nullable String id, String event, byte[] data) {
        }

        private final InputStream in;
        private final String what;
        private final long maxFrame;
        private final java.util.function.Predicate<String> keepData;
        private final Runnable onLine;
        private final byte[] buf = new byte[16 * 1024];
        private final byte[] field = new byte[FIELD_MAX];
        private int pos;
        private int lim;
        private long frameBytes;

        /**
         * @param what the stream in a message's words, e.g. {@code GET /api/v1/events}
         * @param maxFrame the most bytes one frame may have, its lines and their ends counted
         * @param keepData whether frames carry their data ({@code false}: skipped, never held)
         * @param onLine run after each line read, comments and blank lines included (a stall detector's pulse)
         */
        public Frames(InputStream in, String what, long maxFrame, boolean keepData, Runnable onLine) {
            this(in, what, maxFrame, event -> keepData, onLine);
        }

        /**
         * Frames whose data is kept only for the events {@code keepData} names (by the {@code event:} line before the
         * data, as a daemon writes it); the others' data is skipped, never held.
         */
        public Frames(InputStream in, String what, long maxFrame, java.util.function.Predicate<String> keepData,
                Runnable onLine) {
            this.in = in;
            this.what = what;
            this.maxFrame = maxFrame;
            this.keepData = keepData;
            this.onLine = onLine;
        }

        /**
         * The next frame, or null when the stream ended (a frame cut off by the end is dropped).
         *
         * @throws Exceeded when a frame grows past its bound
         */
        public @Nullable Frame next() throws IOException {
            String id = null;
            String event = null;
            Chunks data = null;
            boolean hasData = false;
            frameBytes = 0;
            while (true) {
                int b = read();
                if (b < 0) {
                    return null;
                }
                count(1);
                if (b == '\n' || b == '\r' && peekNewline()) {
                    onLine.run();
                    if (event != null || hasData) {
                        return new Frame(id, event == null ? "message" : event, data == null ? NONE : data.toByteArray());
                    }
                    frameBytes = 0;
                    continue;
                }
                int n = 0;
                int c = b;
                while (c != ':' && c != '\n') {
                    if (n == FIELD_MAX) {
                        throw over();
                    }
                    field[n++] = (byte) c;
                    c = read();
                    if (c < 0) {
                        return null;
                    }
                    count(1);
                }
                String name = new String(field, 0, n, StandardCharsets.UTF_8).strip();
                if (c == '\n') { // a line without a colon: a field with an empty value, nothing to keep
                    onLine.run();
                    continue;
                }
                if (pos < lim || fill()) {
                    if (buf[pos] == ' ') {
                        pos++;
                        count(1);
                    }
                }
                if (name.equals("data")) {
                    if (!hasData && keepData.test(event == null ? "message" : event)) {
                        data = new Chunks();
                    } else if (data != null) {
                        data.write('\n');
                    }
                    hasData = true;
                    if (!copyLine(data)) {
                        return null;
                    }
                } else {
                    int v = 0;
                    for (c = read(); c != '\n'; c = read()) {
                        if (c < 0) {
                            return null;
                        }
                        if (v == FIELD_MAX) {
                            throw over();
                        }
                        field[v++] = (byte) c;
                        count(1);
                    }
                    String value = new String(field, 0, v > 0 && field[v - 1] == '\r' ? v - 1 : v, StandardCharsets.UTF_8);
                    if (name.equals("id")) {
                        id = value;
                    } else if (name.equals("event")) {
                        event = value;
                    } // retry, comments (an empty name) and unknown fields: nothing to keep
                }
                onLine.run();
            }
        }

        /** Whether bytes are waiting to be read now (another frame may follow without blocking). */
        public boolean ready() throws IOException {
            return pos < lim || in.available() > 0;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }

        /** Copies the rest of a data line (its end dropped) into {@code sink} (null: skipped); false at the stream's end. */
        private boolean copyLine(@Nullable Chunks sink) throws IOException {
            boolean heldCr = false;
            while (true) {
                if (pos == lim && !fill()) {
                    return false;
                }
                int end = pos;
                while (end < lim && buf[end] != '\n') {
                    end++;
                }
                int len = end - pos;
                count(len + (end < lim ? 1 : 0));
                if (sink != null) {
                    if (heldCr && (len > 0 || end == lim)) {
                        sink.write('\r');
                    }
                    heldCr = len > 0 && buf[end - 1] == '\r';
                    sink.write(buf, pos, heldCr ? len - 1 : len);
                }
                if (end < lim) {
                    pos = end + 1;
                    return true;
                }
                pos = lim;
            }
        }

        private boolean peekNewline() throws IOException {
            if (pos < lim || fill()) {
                if (buf[pos] == '\n') {
                    pos++;
                }
            }
            return true;
        }

        private void count(long n) throws Exceeded {
            frameBytes += n;
            if (frameBytes > maxFrame) {
                throw over();
            }
        }

        private Exceeded over() {
            return new Exceeded(Exceeded.Bound.FRAME, "sent an event frame over " + size(maxFrame) + " on " + what
                    + " (or a line without end)");
        }

        private int read() throws IOException {
            if (pos == lim && !fill()) {
                return -1;
            }
            return buf[pos++] & 0xFF;
        }

        private boolean fill() throws IOException {
            int n = in.read(buf, 0, buf.length);
            if (n <= 0) {
                return false;
            }
            pos = 0;
            lim = n;
            return true;
        }
    }

    /** The process's deadline thread: closes a body whose time is up, which ends a read blocked on it. */
    private static final class Watch {
        private static final ScheduledThreadPoolExecutor TIMER = timer();

        private final AtomicBoolean fired = new AtomicBoolean();
        private volatile @Nullable ScheduledFuture<?> task;

        private static ScheduledThreadPoolExecutor timer() {
            ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
                Thread th = new Thread(r, "kiln-read-deadline");
                th.setDaemon(true);
                return th;
            });
            t.setRemoveOnCancelPolicy(true);
            return t;
        }

        static Watch close(InputStream in, Duration after) {
            Watch w = new Watch();
            w.task = TIMER.schedule(() -> {
                w.fired.set(true);
                closeQuietly(in);
            }, Math.max(1, after.toNanos()), TimeUnit.NANOSECONDS);
            return w;
        }

        boolean fired() {
            return fired.get();
        }

        void cancel() {
            ScheduledFuture<?> t = task;
            if (t != null) {
                t.cancel(false);
            }
        }
    }

    /** A stream that fails once more than its bound has been read from it. */
    private static final class Limited extends java.io.FilterInputStream {
        private final long max;
        private final java.util.function.Supplier<Exceeded> over;
        private long count;

        Limited(InputStream in, long max, java.util.function.Supplier<Exceeded> over) {
            super(in);
            this.max = max;
            this.over = over;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, (int) Math.min(len, max - count + 1));
            if (n > 0 && (count += n) > max) {
                throw over.get();
            }
            return n;
        }
    }
}
