package dev.kiln.core.startup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A child process speaking newline-delimited JSON-RPC: stdout is split into lines (each capped, so a server that
 * writes an endless line cannot exhaust memory), stderr is drained into a short tail. Both readers run on their own
 * daemon threads so a chatty server never blocks on a full pipe.
 *
 * <p>Concurrency: two reader threads per server feed {@code inbox} (a blocking queue, the only hand-over to the
 * handshake thread); {@code stdin} writes are guarded by its monitor, the stderr tail by its own.
 */
final class StdioChannel implements Channel {
    static final int STDERR_TAIL_LINES = 20;
    private static final long EXIT_SETTLE_MILLIS = 300;
    private static final int STDERR_LINE_CHARS = 400;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final OutputStream stdin;
    /** Bounded: a server flooding stdout waits for the handshake (backpressure) instead of filling the heap. */
    static final int INBOX_CAPACITY = 4_096;
    private final BlockingQueue<Incoming> inbox = new LinkedBlockingQueue<>(INBOX_CAPACITY);
    private final Deque<String> stderrTail = new ArrayDeque<>();
    /** Every byte of stderr, bounded to its last 64 KiB: the conversation's stderr. */
    private final StderrTail stderrBytes = new StderrTail();
    private final Thread stdoutReader;
    private final Thread stderrReader;
    private final Recorder recorder;
    /** Writes for {@link #send}, in order; a write that blocks (a server not reading its stdin) blocks only the writer. */
    private final BlockingQueue<Write> outbox = new LinkedBlockingQueue<>();
    /** The stdin writer has stopped: nothing queued from now on is written. */
    private volatile boolean writerEnded;
    private static final String STDIN_CLOSED = "the server's stdin is closed";
    // markers, told apart by identity: nothing of theirs is written or completed
    private static final Write CLOSE = new Write(new byte[0], new java.util.concurrent.CompletableFuture<>());
    private static final Write STOP = new Write(new byte[0], new java.util.concurrent.CompletableFuture<>());

    /** One write handed to the writer thread; {@code done} completes when its bytes are in the pipe. */
    private record Write(byte[] bytes, java.util.concurrent.CompletableFuture<Void> done) {
    }

    /** Under this much time left, a send that did not finish is the deadline's doing, not the server's. */
    private static final long NO_TIME_LEFT_NANOS = 50_000_000L;

    /** A send that did not finish by its deadline: the server is not reading its stdin, or no time was left. */
    static final class WriteTimeout extends IOException {
        private static final long serialVersionUID = 1L;

        WriteTimeout(String why) {
            super(why);
        }
    }

    /** The fetching launcher's watch, or null: then every stderr byte is the server's. */
    private final @Nullable FetchWatch fetch;

    StdioChannel(Process process, Recorder recorder, int maxLineBytes) {
        this(process, recorder, maxLineBytes, null);
    }

    StdioChannel(Process process, Recorder recorder, int maxLineBytes, @Nullable FetchWatch fetch) {
        this.fetch = fetch;
        this.process = process;
        this.stdin = process.getOutputStream();
        this.recorder = recorder;
        this.stdoutReader = daemon(recorder.server + "-stdout", () -> readStdout(process.getInputStream(), recorder, maxLineBytes));
        this.stderrReader = daemon(recorder.server + "-stderr", () -> readStderr(process.getErrorStream(), recorder));
        // A child the server started may hold its stdout open after the server itself exited: without this, such an
        // exit would look like silence until the timeout. The delay lets the reader queue what the pipe still held.
        process.onExit().thenRunAsync(() -> inbox.offer(new Incoming.Closed("the server exited")),
                java.util.concurrent.CompletableFuture.delayedExecutor(EXIT_SETTLE_MILLIS, TimeUnit.MILLISECONDS));
        // Concurrency: the writer owns stdin. A write blocked on a full pipe ends with the process (EPIPE), then STOP.
        daemon(recorder.server + "-stdin", this::writeStdin);
        process.onExit().thenRun(() -> outbox.add(STOP));
    }

    private void writeStdin() {
        try {
            for (;;) {
                Write w = outbox.take();
                if (w == STOP) {
                    break;
                }
                if (w == CLOSE) {
                    stdin.close();
                    break;
                }
                try {
                    stdin.write(w.bytes);
                    stdin.flush();
                    w.done.complete(null);
                } catch (IOException e) {
                    w.done.completeExceptionally(e);
                    break;
                }
            }
        } catch (InterruptedException | IOException e) {
            // nothing more will be written
        }
        // Set before draining: a send that queues after the drain sees it and fails at once, instead of waiting its
        // whole deadline for a writer that is gone (a server that exits before its first write).
        writerEnded = true;
        IOException ended = new IOException(STDIN_CLOSED);
        for (Write w; (w = outbox.poll()) != null;) {
            if (w.done != null) {
                w.done.completeExceptionally(ended);
            }
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, "kiln-probe-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Override
    public void send(ObjectNode message, long deadline) throws IOException, InterruptedException {
        byte[] json = JSON.writeValueAsBytes(message);
        byte[] bytes = java.util.Arrays.copyOf(json, json.length + 1);
        bytes[json.length] = '\n';
        Write w = new Write(bytes, new java.util.concurrent.CompletableFuture<>());
        outbox.add(w);
        if (writerEnded) {
            w.done.completeExceptionally(new IOException(STDIN_CLOSED)); // no writer will take it (a no-op if it did)
        }
        // A server that floods requests and never reads fills the pipe: the write then blocks, but this wait does not.
        long left = deadline - recorder.now();
        try {
            w.done.get(Math.max(0, left), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            // With almost no time left the writer may simply not have run yet: do not blame the server for that.
            throw new WriteTimeout(left < NO_TIME_LEFT_NANOS ? "the timeout ran out before it was written ("
                    + Math.max(0, left / 1_000_000) + " ms were left)" : "the server does not read its stdin");
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
    }

    /** Queues one item for the handshake, waiting while the inbox is full; drops it once nobody can want it. */
    private void enqueue(Incoming in) {
        try {
            while (!inbox.offer(in, 100, TimeUnit.MILLISECONDS)) {
                if (!process.isAlive()) {
                    return; // the probe is over or ending: nobody reads a full inbox any more
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public Incoming poll(long timeoutNanos) throws InterruptedException {
        return inbox.poll(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
    }

    /** Closes the server's stdin: the polite way to ask a stdio server to exit. */
    void closeInput() {
        outbox.add(CLOSE); // after every pending write, on the writer: a close must not wait behind a blocked write
    }

    /** Waits (bounded) for the readers to drain what the ended process left in its pipes. */
    void awaitDrained(long millis) throws InterruptedException {
        stdoutReader.join(millis);
        stderrReader.join(Math.max(1, millis / 2));
    }

    List<String> stderrTail() {
        synchronized (stderrTail) {
            return new ArrayList<>(stderrTail);
        }
    }

    private void readStdout(InputStream in, Recorder recorder, int maxLineBytes) {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        long overflow = 0; // bytes of the current line past the cap; the line is skipped, not buffered
        byte[] buf = new byte[64 * 1024];
        try {
            int n;
            while ((n = in.read(buf)) > 0) {
                long at = recorder.now();
                if (fetch != null) {
                    fetch.serverSpoke(at); // launchers never write stdout: this is the server
                }
                recorder.firstOutput(false, at);
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (buf[i] != '\n') {
                        continue;
                    }
                    overflow = append(line, buf, start, i - start, overflow, maxLineBytes);
                    emit(line, overflow, at);
                    line.reset();
                    overflow = 0;
                    start = i + 1;
                }
                overflow = append(line, buf, start, n - start, overflow, maxLineBytes);
            }
            if (line.size() > 0 || overflow > 0) {
                emit(line, overflow, recorder.now());
            }
            enqueue(new Incoming.Closed("the server closed its stdout"));
        } catch (IOException e) {
            enqueue(new Incoming.Closed("reading the server's stdout failed: " + e.getMessage()));
        }
    }

    private static long append(ByteArrayOutputStream line, byte[] buf, int off, int len, long overflow, int max) {
        if (overflow > 0) {
            return overflow + len;
        }
        if (line.size() + len > max) {
            return line.size() + (long) len;
        }
        line.write(buf, off, len);
        return 0;
    }

    private void emit(ByteArrayOutputStream line, long overflow, long at) {
        if (overflow > 0) {
            enqueue(new Incoming.Oversized(overflow));
            return;
        }
        String text = line.toString(StandardCharsets.UTF_8);
        if (text.endsWith("\r")) {
            text = text.substring(0, text.length() - 1);
        }
        if (text.isBlank()) {
            return;
        }
        try {
            JsonNode node = JSON.readTree(text);
            enqueue(node != null && node.isObject() ? new Incoming.Message(node, at) : new Incoming.Garbage(text));
        } catch (IOException e) {
            enqueue(new Incoming.Garbage(text));
        }
    }

    private void readStderr(InputStream in, Recorder recorder) {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        byte[] buf = new byte[8 * 1024];
        try {
            int n;
            while ((n = in.read(buf)) > 0) {
                long at = recorder.now();
                stderrBytes.append(buf, 0, n);
                if (fetch == null) {
                    recorder.firstOutput(true, at);
                }
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        if (fetch != null) {
                            // A launcher's own line is not the server's first output; the first line that is not, is.
                            String text = line.toString(StandardCharsets.UTF_8).stripTrailing();
                            if (!text.isEmpty() && !fetch.line(text, at)) {
                                fetch.serverSpoke(at);
                                recorder.firstOutput(true, at);
                            }
                        }
                        keep(line);
                    } else if (line.size() < STDERR_LINE_CHARS * 4) {
                        line.write(buf[i]);
                    }
                }
            }
        } catch (IOException ignored) {
            // The pipe broke because the process was ended; keep what was read.
        }
        keep(line);
    }

    private void keep(ByteArrayOutputStream line) {
        String text = line.toString(StandardCharsets.UTF_8).stripTrailing();
        line.reset();
        if (text.isEmpty()) {
            return;
        }
        if (text.length() > STDERR_LINE_CHARS) {
            text = text.substring(0, STDERR_LINE_CHARS) + "…";
        }
        synchronized (stderrTail) {
            if (stderrTail.size() == STDERR_TAIL_LINES) {
                stderrTail.removeFirst();
            }
            stderrTail.addLast(text);
        }
    }

    /** The end of everything the server wrote to stderr (complete once {@link #awaitDrained} returned). */
    StderrTail stderr() {
        return stderrBytes;
    }

    Process process() {
        return process;
    }
}
