package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.Await;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.KernelTest;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The kernel's count of unread bytes on a real loopback connection, as the SSE hub reads it. */
@DaemonTest @KernelTest
class TcpBacklogTest {

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void unread_peerThatDoesNotRead_countsWhatWaits_andNothingOnceItReads(String loopback) throws Exception {
        InetAddress address = InetAddress.getByName(loopback);
        ServerSocket listener;
        try {
            listener = new ServerSocket(0, 1, address);
        } catch (java.io.IOException e) {
            Assumptions.abort(loopback + " is not configured here: " + e.getMessage());
            return;
        }
        try (listener; Socket client = new Socket(address, listener.getLocalPort()); Socket served = listener.accept()) {
            Assumptions.assumeTrue(TcpBacklog.read().unread((InetSocketAddress) served.getLocalSocketAddress(),
                    (InetSocketAddress) served.getRemoteSocketAddress()) != TcpBacklog.UNKNOWN, "no /proc/self/net/tcp here");
            OutputStream out = served.getOutputStream();
            out.write(new byte[5000]);
            out.flush();
            InetSocketAddress local = (InetSocketAddress) served.getLocalSocketAddress();
            InetSocketAddress remote = (InetSocketAddress) served.getRemoteSocketAddress();
            Await.await("5000 bytes unread by the peer", () -> TcpBacklog.read().unread(local, remote) == 5000);

            InputStream in = client.getInputStream();
            assertThat(in.readNBytes(5000)).hasSize(5000);
            Await.await("nothing unread once it read", () -> TcpBacklog.read().unread(local, remote) == 0);
        }
    }

    @Test
    void unread_connectionNotInTheTable_isUnknown() {
        InetSocketAddress nobody = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
        assertThat(TcpBacklog.read().unread(nobody, nobody)).isEqualTo(TcpBacklog.UNKNOWN);
        assertThat(TcpBacklog.read().unread(null, nobody)).isEqualTo(TcpBacklog.UNKNOWN);
    }
}
