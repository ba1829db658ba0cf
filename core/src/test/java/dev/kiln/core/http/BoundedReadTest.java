package dev.kiln.core.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The pure parts of {@link BoundedRead}: event-stream frames and their bound, and excerpts fit for a terminal. */
class BoundedReadTest {
    private static BoundedRead.Frames frames(String stream, long max, boolean keep, Runnable onLine) {
        return new BoundedRead.Frames(new ByteArrayInputStream(stream.getBytes(StandardCharsets.UTF_8)), "GET /events",
                max, keep, onLine);
    }

    @Test
    void frames_idEventMultiLineDataCommentsAndCrLf_readAsTheDaemonWroteThem() throws IOException {
        AtomicInteger lines = new AtomicInteger();
        BoundedRead.Frames f = frames("retry: 1000\n\n: keep-alive\n\nid: 7\nevent: delta\ndata: {\"a\":\ndata:1}\n\n"
                + "id: 8\r\nevent: tick\r\ndata: {}\r\n\r\ndata: cut off", 1024, true, lines::incrementAndGet);
        BoundedRead.Frames.Frame one = f.next();
        assertThat(one.id()).isEqualTo("7");
        assertThat(one.event()).isEqualTo("delta");
        assertThat(new String(one.data(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":\n1}");
        BoundedRead.Frames.Frame two = f.next();
        assertThat(two.id()).isEqualTo("8");
        assertThat(two.event()).isEqualTo("tick");
        assertThat(new String(two.data(), StandardCharsets.UTF_8)).isEqualTo("{}");
        assertThat(f.next()).as("a frame cut off by the end is dropped").isNull();
        assertThat(lines.get()).as("every line read is a pulse").isEqualTo(13);
    }

    @Test
    void frames_aLineWithoutEnd_exceedsTheFrameBound_keptOrNot() {
        String endless = "event: snapshot\ndata: " + "x".repeat(5000);
        for (boolean keep : new boolean[] {true, false}) {
            assertThatThrownBy(() -> frames(endless, 4096, keep, () -> { }).next())
                    .isInstanceOfSatisfying(BoundedRead.Exceeded.class, x -> assertThat(x.bound()).isEqualTo(BoundedRead.Exceeded.Bound.FRAME))
                    .hasMessageContaining("event frame over 4 KiB on GET /events");
        }
    }

    @Test
    void excerpt_binaryOrEscapes_neverReachATerminalRaw() {
        byte[] binary = new byte[300];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) (i * 13);
        }
        assertThat(BoundedRead.excerpt(binary)).isEqualTo("(300 bytes, not text)");
        assertThat(BoundedRead.excerpt("bad \u001B[2J request\nhere")).isEqualTo("bad \\u001B[2J request here");
        assertThat(BoundedRead.excerpt("y".repeat(500))).hasSize(201).endsWith("…");
    }
}
