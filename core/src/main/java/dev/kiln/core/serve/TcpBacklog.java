package dev.kiln.core.serve;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How many bytes written to a TCP connection its peer has not read yet, as the kernel counts them: one reading of
 * {@code /proc/self/net/tcp} and {@code tcp6} (this process's network namespace).
 *
 * <p>Why: an SSE client that never reads is invisible to its writer until the socket buffers fill, and on Linux
 * those grow to tens of MB ({@code tcp_rmem}), so 14-byte keep-alives never block and such a client held its slot
 * for good. The kernel knows better: our socket's {@code tx_queue} holds what the peer has not acknowledged and,
 * for a peer on this host (loopback, where the unauthenticated clients are), the peer's own socket shows in the
 * same table with {@code rx_queue}: what arrived and its process has not read.
 *
 * <p>Where the table cannot be read (another OS, a hardened {@code /proc}) nothing is known ({@link #UNKNOWN}) and
 * only a blocked write shows a client that does not read.
 *
 * <p>An immutable snapshot; safe to share.
 */
final class TcpBacklog {
    /** The connection is not in the table (or there is no table). */
    static final long UNKNOWN = -1;

    private static final List<Path> TABLES = List.of(Path.of("/proc/self/net/tcp"), Path.of("/proc/self/net/tcp6"));
    private static final TcpBacklog NONE = new TcpBacklog(Map.of());

    /** {@code local>remote} → {tx_queue, rx_queue} of that socket. */
    private final Map<String, long[]> queues;

    private TcpBacklog(Map<String, long[]> queues) {
        this.queues = queues;
    }

    /** The kernel's table now; empty when it cannot be read. */
    static TcpBacklog read() {
        Map<String, long[]> q = new HashMap<>();
        for (Path table : TABLES) {
            List<String> lines;
            try {
                lines = Files.readAllLines(table);
            } catch (IOException | RuntimeException e) {
                continue; // no such table here: nothing known from it
            }
            for (int i = 1; i < lines.size(); i++) {
                parse(lines.get(i), q);
            }
        }
        return q.isEmpty() ? NONE : new TcpBacklog(q);
    }

    /**
     * The bytes sent on the connection from {@code local} to {@code remote} that the peer has not read: what our
     * socket still holds unacknowledged plus, when the peer's socket is on this host, what waits in its receive
     * queue. {@link #UNKNOWN} when our socket is not in the table.
     */
    long unread(@Nullable InetSocketAddress local, @Nullable InetSocketAddress remote) {
        if (local == null || remote == null) {
            return UNKNOWN;
        }
        long[] ours = queues.get(key(local) + ">" + key(remote));
        if (ours == null) {
            return UNKNOWN;
        }
        long[] peer = queues.get(key(remote) + ">" + key(local));
        return ours[0] + (peer == null ? 0 : peer[1]);
    }

    /** One line: {@code sl local rem st tx_queue:rx_queue …}, addresses as hex words in host byte order. */
    private static void parse(String line, Map<String, long[]> into) {
        String[] f = line.trim().split("\\s+");
        if (f.length < 5) {
            return;
        }
        try {
            String local = address(f[1]);
            String remote = address(f[2]);
            int colon = f[4].indexOf(':');
            if (local == null || remote == null || colon < 0) {
                return;
            }
            long tx = Long.parseLong(f[4].substring(0, colon), 16);
            long rx = Long.parseLong(f[4].substring(colon + 1), 16);
            into.put(local + ">" + remote, new long[] {tx, rx});
        } catch (NumberFormatException | UnknownHostException e) {
            // a line of another shape: skip it
        }
    }

    private static @Nullable String address(String hexAddressAndPort) throws UnknownHostException {
        int colon = hexAddressAndPort.indexOf(':');
        if (colon < 0) {
            return null;
        }
        String hex = hexAddressAndPort.substring(0, colon);
        int port = Integer.parseInt(hexAddressAndPort.substring(colon + 1), 16);
        if (hex.length() != 8 && hex.length() != 32) {
            return null;
        }
        // Each 32-bit word is printed as the host reads it: put it back in memory order to get network order.
        ByteBuffer b = ByteBuffer.allocate(hex.length() / 2).order(ByteOrder.nativeOrder());
        for (int i = 0; i < hex.length(); i += 8) {
            b.putInt((int) Long.parseLong(hex.substring(i, i + 8), 16));
        }
        // getByAddress turns an IPv4-mapped IPv6 address into the IPv4 one, as Java's sockets report it
        return text(InetAddress.getByAddress(b.array())) + ":" + port;
    }

    private static String key(InetSocketAddress a) {
        return (a.getAddress() == null ? a.getHostString() : text(a.getAddress())) + ":" + a.getPort();
    }

    private static String text(InetAddress a) {
        String s = a.getHostAddress();
        int zone = s.indexOf('%');
        return zone < 0 ? s : s.substring(0, zone);
    }
}
