package dev.kiln.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPOutputStream;

/**
 * A hostile or broken "daemon" on loopback, for the tests of Kiln's clients: a raw HTTP/1.1 server whose routes
 * answer as a test says, well ({@link #json}) or badly: an endless body, a drip of a byte a second, a gzip bomb, an
 * event stream without newlines. Requests are matched by path (the query ignored); an unknown path is 404. Keep-alive
 * is honoured for answers of known length, as the JDK's client reuses connections.
 *
 * <p>Concurrency: one thread accepts, one thread per connection answers (all daemon threads); the counters are
 * thread-safe. {@link #close()} stops accepting and closes every connection.
 */
public final class HostileDaemon implements AutoCloseable {
    /** How a route answers, given the connection's output. */
    @FunctionalInterface
    public interface Answer {
        /** Writes the whole answer; returns whether the connection may serve another request. */
        boolean write(OutputStream out, HostileDaemon daemon) throws IOException, InterruptedException;
    }

    private final ServerSocket server;
    private final Map<String, Answer> routes = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> asked = new ConcurrentHashMap<>();
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final AtomicLong sent = new AtomicLong();
    private volatile boolean closed;

    private HostileDaemon() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "hostile-daemon-accept");
        t.setDaemon(true);
        t.start();
    }

    /**
     * The {@code api_version} this build's clients speak (core's {@code Wire.API_VERSION}; testkit depends on no
     * Kiln module, so it is spelled here too): a hostile daemon must pass the version check to be hostile later.
     */
    public static final int API_VERSION = 2;

    /** A daemon that answers {@code /api/v1/version} as this build's API does, and nothing else yet. */
    public static HostileDaemon start() throws IOException {
        HostileDaemon d = new HostileDaemon();
        d.route("/api/v1/version", json("{\"api_version\": " + API_VERSION + "}"));
        return d;
    }

    /** Answers {@code path} with {@code answer} from now on. */
    public HostileDaemon route(String path, Answer answer) {
        routes.put(path, answer);
        return this;
    }

    /** Its base URL, {@code http://127.0.0.1:PORT/}. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/");
    }

    /** How many requests for {@code path} arrived. */
    public int requests(String path) {
        AtomicInteger n = asked.get(path);
        return n == null ? 0 : n.get();
    }

    /** The bytes of bodies written so far, all routes together. */
    public long bytesSent() {
        return sent.get();
    }

    // ---- answers -------------------------------------------------------------------------------------------------

    /** 200 with a JSON body of known length. */
    public static Answer json(String body) {
        return status(200, "application/json", body.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code code} with {@code body} of known length. */
    public static Answer status(int code, String contentType, byte[] body) {
        return (out, d) -> {
            out.write(head(code, "Content-Type: " + contentType + "\r\nContent-Length: " + body.length).getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            d.sent.addAndGet(body.length);
            out.flush();
            return true;
        };
    }

    /** 200 whose body never ends (no length, spaces after a {@code [}), until the client goes. */
    public static Answer endless() {
        return (out, d) -> {
            out.write(head(200, "Content-Type: application/json\r\nConnection: close").getBytes(StandardCharsets.US_ASCII));
            out.write('[');
            byte[] spaces = new byte[64 * 1024];
            Arrays.fill(spaces, (byte) ' ');
            while (!d.closed) {
                out.write(spaces);
                d.sent.addAndGet(spaces.length);
            }
            return false;
        };
    }

    /** 200 announcing a megabyte, then one space per {@code every}, until the client goes. */
    public static Answer drip(Duration every) {
        return (out, d) -> {
            out.write(head(200, "Content-Type: application/json\r\nContent-Length: 1000000").getBytes(StandardCharsets.US_ASCII));
            out.write('{');
            out.flush();
            while (!d.closed) {
                Thread.sleep(every.toMillis());
                out.write(' ');
                out.flush();
                d.sent.incrementAndGet();
            }
            return false;
        };
    }

    /**
     * 200 {@code Content-Encoding: gzip} whose body decompresses to {@code mebibytes} MiB of zeros: one small gzip
     * member repeated (a reader of gzip reads concatenated members as one stream), so it costs kilobytes per GiB.
     */
    public static Answer gzipBomb(int mebibytes) {
        byte[] member;
        try {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            try (GZIPOutputStream z = new GZIPOutputStream(b)) {
                z.write(new byte[1 << 20]);
            }
            member = b.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        byte[] body = new byte[member.length * mebibytes];
        for (int i = 0; i < mebibytes; i++) {
            System.arraycopy(member, 0, body, i * member.length, member.length);
        }
        return (out, d) -> {
            out.write(head(200, "Content-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: " + body.length)
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            d.sent.addAndGet(body.length);
            out.flush();
            return true;
        };
    }

    /** An event stream ({@code text/event-stream}) that starts a snapshot frame and sends its data without a newline, ever. */
    public static Answer eventsWithoutNewlines() {
        return (out, d) -> {
            out.write(head(200, "Content-Type: text/event-stream\r\nConnection: close").getBytes(StandardCharsets.US_ASCII));
            out.write("retry: 1000\n\nid: 1\nevent: snapshot\ndata: {\"leaves\": [".getBytes(StandardCharsets.US_ASCII));
            byte[] x = new byte[64 * 1024];
            Arrays.fill(x, (byte) 'x');
            while (!d.closed) {
                out.write(x);
                d.sent.addAndGet(x.length);
            }
            return false;
        };
    }

    private static String head(int code, String headers) {
        return "HTTP/1.1 " + code + " " + (code == 200 ? "OK" : "Status") + "\r\n" + headers + "\r\n\r\n";
    }

    // ---- the server ----------------------------------------------------------------------------------------------

    private void accept() {
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return;
            }
            open.add(s);
            Thread t = new Thread(() -> serve(s), "hostile-daemon-conn");
            t.setDaemon(true);
            t.start();
        }
    }

    private void serve(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            while (!closed) {
                String path = readHead(in);
                if (path == null) {
                    return;
                }
                asked.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
                Answer a = routes.get(path);
                boolean again = a != null ? a.write(out, this)
                        : status(404, "application/json", "{\"error\": \"not_found\", \"message\": \"no route\"}"
                                .getBytes(StandardCharsets.UTF_8)).write(out, this);
                if (!again) {
                    return;
                }
            }
        } catch (IOException | InterruptedException e) {
            // the client went, or the test ended
        } finally {
            open.remove(s);
        }
    }

    /** The path of the next request (its headers and any body of declared length skipped); null at the end. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        String first = null;
        long length = 0;
        for (int b = in.read(); b >= 0; b = in.read()) {
            if (b != '\n') {
                if (b != '\r') {
                    line.write(b);
                }
                continue;
            }
            String l = line.toString(StandardCharsets.US_ASCII);
            line.reset();
            if (first == null) {
                first = l;
            } else if (l.isEmpty()) {
                in.skipNBytes(length);
                String target = first.split(" ")[1];
                int q = target.indexOf('?');
                return q < 0 ? target : target.substring(0, q);
            } else if (l.regionMatches(true, 0, "content-length:", 0, 15)) {
                length = Long.parseLong(l.substring(15).trim());
            }
        }
        return null;
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing is all we wanted
        }
        for (Socket s : open) {
            try {
                s.close();
            } catch (IOException e) {
                // closing is all we wanted
            }
        }
    }
}
