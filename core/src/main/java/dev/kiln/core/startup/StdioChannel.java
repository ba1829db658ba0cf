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
    private final BlockingQueue<Incoming> inbox = new LinkedBlockingQueue<>();
    private final Deque<String> stderrTail = new ArrayDeque<>();
    private final Thread stdoutReader;
    private final Thread stderrReader;

    StdioChannel(Process process, Recorder recorder, int maxLineBytes) {
        this.process = process;
        this.stdin = process.getOutputStream();
        this.stdoutReader = daemon(recorder.server + "-stdout", () -> readStdout(process.getInputStream(), recorder, maxLineBytes));
        this.stderrReader = daemon(recorder.server + "-stderr", () -> readStderr(process.getErrorStream(), recorder));
        // A child the server started may hold its stdout open after the server itself exited: without this, such an
        // exit would look like silence until the timeout. The delay lets the reader queue what the pipe still held.
        process.onExit().thenRunAsync(() -> inbox.add(new Incoming.Closed("the server exited")),
                java.util.concurrent.CompletableFuture.delayedExecutor(EXIT_SETTLE_MILLIS, TimeUnit.MILLISECONDS));
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, "kiln-probe-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Override
    public void send(ObjectNode message, long deadline) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(message);
        synchronized (stdin) {
            stdin.write(bytes);
            stdin.write('\n');
            stdin.flush();
        }
    }

    @Override
    public Incoming poll(long timeoutNanos) throws InterruptedException {
        return inbox.poll(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
    }

    /** Closes the server's stdin: the polite way to ask a stdio server to exit. */
    void closeInput() {
        try {
            stdin.close();
        } catch (IOException ignored) {
            // Already gone: the process has exited or closed its end.
        }
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
            inbox.add(new Incoming.Closed("the server closed its stdout"));
        } catch (IOException e) {
            inbox.add(new Incoming.Closed("reading the server's stdout failed: " + e.getMessage()));
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
            inbox.add(new Incoming.Oversized(overflow));
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
            inbox.add(node != null && node.isObject() ? new Incoming.Message(node, at) : new Incoming.Garbage(text));
        } catch (IOException e) {
            inbox.add(new Incoming.Garbage(text));
        }
    }

    private void readStderr(InputStream in, Recorder recorder) {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        byte[] buf = new byte[8 * 1024];
        try {
            int n;
            while ((n = in.read(buf)) > 0) {
                recorder.firstOutput(true);
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
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

    Process process() {
        return process;
    }
}
