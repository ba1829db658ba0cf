package dev.kiln.core.serve;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A minimal real SSE client for tests: reads frames off the wire on its own thread. */
final class SseClient implements AutoCloseable {
    record Event(String id, String event, String data) {
    }

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final CompletableFuture<Integer> status = new CompletableFuture<>();
    private final HttpURLConnection connection;
    private final Thread reader;

    SseClient(URI uri, String lastEventId) throws IOException {
        connection = (HttpURLConnection) uri.toURL().openConnection();
        connection.setRequestProperty("Accept", "text/event-stream");
        if (lastEventId != null) {
            connection.setRequestProperty("Last-Event-ID", lastEventId);
        }
        connection.setConnectTimeout(10_000);
        reader = new Thread(this::read, "test-sse-client");
        reader.setDaemon(true);
        reader.start();
    }

    private void read() {
        try {
            status.complete(connection.getResponseCode());
            try (BufferedReader r = new BufferedReader(new InputStreamReader(connection.getInputStream(), StandardCharsets.UTF_8))) {
                String id = null;
                String event = null;
                StringBuilder data = new StringBuilder();
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    if (line.isEmpty()) {
                        if (event != null) {
                            events.add(new Event(id, event, data.toString()));
                        }
                        id = null;
                        event = null;
                        data.setLength(0);
                    } else if (line.startsWith("id: ")) {
                        id = line.substring(4);
                    } else if (line.startsWith("event: ")) {
                        event = line.substring(7);
                    } else if (line.startsWith("data: ")) {
                        data.append(data.length() == 0 ? "" : "\n").append(line.substring(6));
                    }
                }
            }
        } catch (IOException e) {
            status.complete(-1);
        }
    }

    int status() throws Exception {
        return status.get(20, TimeUnit.SECONDS);
    }

    /** The next event, waiting up to 20 s; null if none came. */
    Event next() throws InterruptedException {
        return events.poll(20, TimeUnit.SECONDS);
    }

    /** The next event if one arrives within {@code ms}. */
    Event poll(long ms) throws InterruptedException {
        return events.poll(ms, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        // disconnect() drains the chunked stream under the reader's lock: do it off the test thread
        Thread t = new Thread(connection::disconnect, "test-sse-disconnect");
        t.setDaemon(true);
        t.start();
    }
}
