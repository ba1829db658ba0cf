package dev.kiln.core.store;

import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A child JVM that pushes or pulls one seed and is killed by {@link KilledTransferTest} while it does:
 * {@code push|pull WORKSPACE TARGET}, credentials from its environment (the AWS chain). Prints {@code moving} as the
 * transfer starts and {@code done} after.
 *
 * <p>It talks to the real store through a loopback relay of its own that passes {@value #BYTES_PER_SECOND} bytes a
 * second each way: on a quiet machine a 40 MiB seed moves through SeaweedFS in well under a second, so without it the
 * kill could land after the transfer ended (the fault the test provokes is the kill, not the slowness).
 */
public final class TransferChild {
    static final int BYTES_PER_SECOND = 4 << 20;

    private TransferChild() {
    }

    public static void main(String[] args) throws Exception {
        Path ws = Path.of(args[1]);
        SeedCaches seeds = SeedCaches.of(ws);
        StoreConfig real = StoreConfig.read(ws).orElseThrow();
        URI endpoint = real.endpoint().orElseThrow();
        ServerSocket relay = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(() -> relay(relay, endpoint), "relay");
        accept.setDaemon(true);
        accept.start();
        StoreConfig slow = new StoreConfig(real.bucket(), real.prefix(),
                Optional.of(URI.create("http://127.0.0.1:" + relay.getLocalPort())), real.region());
        try (ObjectStore s = ObjectStore.builder(slow).build()) {
            System.out.println("moving");
            System.out.flush();
            Transfer t = args[0].equals("push") ? s.pushSeed(seeds, args[2]) : s.pullSeed(seeds, args[2], Cancellation.create());
            System.out.println("done " + t.outcome().wire());
        }
    }

    private static void relay(ServerSocket relay, URI endpoint) {
        while (true) {
            try {
                Socket client = relay.accept();
                Socket upstream = new Socket(endpoint.getHost(), endpoint.getPort());
                pump(client.getInputStream(), upstream.getOutputStream(), upstream);
                pump(upstream.getInputStream(), client.getOutputStream(), client);
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Copies {@code in} to {@code out} at most {@link #BYTES_PER_SECOND}, on a daemon thread; closes {@code peer} at the end. */
    private static void pump(InputStream in, OutputStream out, Socket peer) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 << 10];
            long start = System.nanoTime();
            long moved = 0;
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    out.write(buf, 0, n);
                    out.flush();
                    moved += n;
                    long dueNanos = moved * 1_000_000_000L / BYTES_PER_SECOND;
                    long ahead = dueNanos - (System.nanoTime() - start);
                    if (ahead > 0) {
                        Thread.sleep(ahead / 1_000_000, (int) (ahead % 1_000_000));
                    }
                }
            } catch (IOException | InterruptedException e) {
                // the other side closed, or the child is going away
            } finally {
                try {
                    peer.shutdownOutput();
                } catch (IOException e) {
                    // already closed
                }
            }
        }, "relay-pump");
        t.setDaemon(true);
        t.start();
    }
}
