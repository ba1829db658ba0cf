package dev.kiln.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.app.common.Json;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The benchmarks' SSE client: the data of each event of a daemon's {@code /api/events} as JSON, read on its own
 * thread. A snapshot event comes back as an empty object (its data, the whole document, is skipped unread).
 */
final class BenchSse implements AutoCloseable {
    private final BlockingQueue<Frame> events = new LinkedBlockingQueue<>();

    /** One event: its data (empty for a snapshot: not parsed) and the bytes of its data on the wire. */
    record Frame(JsonNode data, long bytes) {
        boolean snapshot() {
            return data.isEmpty();
        }
    }
    private final HttpURLConnection c;

    BenchSse(java.net.URL url) throws IOException {
        c = (HttpURLConnection) url.openConnection();
        c.setConnectTimeout(10_000);
        Thread t = new Thread(this::read, "bench-sse");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Reads the stream byte by byte: a snapshot's data line is the whole document (tens of megabytes at 100,000
     * leaves) and is skipped without being held, so the client does not weigh on the heap it shares with the
     * daemon it measures.
     */
    private void read() {
        try (java.io.InputStream in = new java.io.BufferedInputStream(c.getInputStream(), 1 << 16)) {
            java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
            StringBuilder data = new StringBuilder();
            String event = "";
            boolean skipping = false;
            long bytes = 0;
            for (int b = in.read(); b >= 0; b = in.read()) {
                if (b != '\n') {
                    if (skipping) {
                        bytes++;
                    } else {
                        line.write(b);
                        if (line.size() == 6 && event.equals("snapshot") && line.toString(StandardCharsets.UTF_8).equals("data: ")) {
                            skipping = true;
                        }
                    }
                    continue;
                }
                String l = skipping ? "data: " : line.toString(StandardCharsets.UTF_8);
                skipping = false;
                line.reset();
                if (l.startsWith("event: ")) {
                    event = l.substring(7);
                } else if (l.startsWith("data: ") && !event.equals("snapshot")) {
                    data.append(l, 6, l.length());
                    bytes += l.getBytes(StandardCharsets.UTF_8).length - 6;
                } else if (l.isEmpty() && event.equals("snapshot")) {
                    events.add(new Frame(Json.MAPPER.createObjectNode(), bytes)); // the whole document: not parsed
                    bytes = 0;
                    event = "";
                } else if (l.isEmpty() && data.length() > 0) {
                    if (event.equals("delta")) { // the state's frames only: tick, warm, probe… events are not measured
                        events.add(new Frame(Json.MAPPER.readTree(data.toString()), bytes));
                    }
                    data.setLength(0);
                    bytes = 0;
                    event = "";
                }
            }
        } catch (IOException e) {
            // closed
        }
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
        Thread t = new Thread(c::disconnect, "bench-sse-close");
        t.setDaemon(true);
        t.start();
    }
}
