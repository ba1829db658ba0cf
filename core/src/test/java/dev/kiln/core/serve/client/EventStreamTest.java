package dev.kiln.core.serve.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.testkit.Await;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The one event-stream reader, against scripted connections (no network): it resumes after the highest id it saw,
 * never behind it because of history; history frames come flagged and first; its backoff doubles up to the cap and
 * starts again after a connection; a stream silent past the stall bound (on a fake ticker) is closed and reopened;
 * a source that says the daemon is gone stops it. The real daemon's side: {@code RemoteEngineContractTest}.
 */
class EventStreamTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** One scripted connection per open; what each open was asked. */
    private static final class Script implements EventStream.Source {
        final BlockingQueue<Object> answers = new LinkedBlockingQueue<>();
        final List<String> asked = new CopyOnWriteArrayList<>();

        @Override
        public EventStream.Opened open(@Nullable String lastEventId, boolean backfill) throws IOException,
                InterruptedException {
            asked.add(lastEventId + (backfill ? " +backfill" : ""));
            Object a = answers.take();
            if (a instanceof IOException e) {
                throw e;
            }
            return (EventStream.Opened) a;
        }
    }

    private static final class Recorder implements EventStream.Listener {
        final List<String> frames = new CopyOnWriteArrayList<>();
        final List<Duration> waits = new CopyOnWriteArrayList<>();
        final List<String> ended = new CopyOnWriteArrayList<>();
        volatile int caughtUp;
        volatile int connects;

        @Override
        public void frame(EventStream.Frame f) {
            frames.add((f.history() ? "past " : "") + f.id() + " " + f.event() + " " + f.text());
        }

        @Override
        public void connected(boolean first) {
            connects++;
        }

        @Override
        public void caughtUp() {
            caughtUp++;
        }

        @Override
        public void broke(String why, Duration retryIn) {
            waits.add(retryIn);
        }

        @Override
        public void ended(String why) {
            ended.add(why);
        }
    }

    /** A connection's body as a socket's: a read blocks until bytes come or it is closed (then it ends). */
    private static final class Socketlike extends InputStream {
        private final BlockingQueue<Integer> bytes = new LinkedBlockingQueue<>();

        void send(String text) {
            for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
                bytes.add(b & 0xFF);
            }
        }

        @Override
        public int read() throws IOException {
            try {
                return bytes.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int first = read();
            if (first < 0) {
                bytes.add(-1);
                return -1;
            }
            b[off] = (byte) first;
            int n = 1;
            for (Integer next = bytes.peek(); n < len && next != null && next >= 0; next = bytes.peek()) {
                b[off + n++] = (byte) (int) bytes.remove();
            }
            return n;
        }

        @Override
        public int available() {
            return Math.max(0, bytes.size() - 1);
        }

        @Override
        public void close() {
            bytes.add(-1);
        }
    }

    private static EventStream.Opened frames(int history, String... frames) {
        StringBuilder b = new StringBuilder("retry: 1000\n\n");
        for (String f : frames) {
            String[] p = f.split(" ", 3);
            b.append("id: ").append(p[0]).append("\nevent: ").append(p[1]).append("\ndata: ").append(p[2]).append("\n\n");
        }
        return new EventStream.Opened(new ByteArrayInputStream(b.toString().getBytes(StandardCharsets.UTF_8)), history);
    }

    @Test
    void backfill_historyFirstThenLive_resumesAfterTheHighestIdNotBehindIt() throws Exception {
        Script s = new Script();
        s.answers.add(frames(2, "5 warm {\"a\":1}", "7 tick {\"b\":2}", "11 delta {\"revision\":3}"));
        Recorder r = new Recorder();
        try (EventStream e = EventStream.of(s).backoff(Duration.ofMillis(1), Duration.ofMillis(1)).resumeFrom("10")
                .backfill().start(r)) {
            Await.await("the reader", WAIT, () -> s.asked.size() == 2); // the first stream ended: it reconnects
            assertThat(r.frames).containsExactly("past 5 warm {\"a\":1}", "past 7 tick {\"b\":2}",
                    "11 delta {\"revision\":3}");
            assertThat(r.caughtUp).isEqualTo(1);
            // the ring once, then a plain resume after 11: the history's smaller ids never move the point back
            assertThat(s.asked).containsExactly("10 +backfill", "11");
            s.answers.add(frames(0, "12 tick {}"));
            s.answers.add(new EventStream.Ended("script over"));
            Await.await("the reader", WAIT, () -> r.frames.size() == 4);
            assertThat(r.frames.get(3)).isEqualTo("12 tick {}");
            assertThat(r.caughtUp).as("caught up once, not per connection").isEqualTo(1);
            assertThat(e.lastEventId()).isEqualTo("12");
        }
    }

    @Test
    void backoff_doublesToTheCap_thenStartsAgainAfterAConnection() throws Exception {
        Script s = new Script();
        for (int i = 0; i < 4; i++) {
            s.answers.add(new IOException("refused " + i));
        }
        s.answers.add(frames(0, "1 tick {}")); // opens, then ends: the wait starts again at the first
        s.answers.add(new IOException("refused again"));
        s.answers.add(new EventStream.Ended("script over"));
        Recorder r = new Recorder();
        try (EventStream e = EventStream.of(s).backoff(Duration.ofMillis(2), Duration.ofMillis(8)).backfill().start(r)) {
            Await.await("the reader", WAIT, () -> !e.running());
            assertThat(r.waits).extracting(Duration::toMillis).containsExactly(2L, 4L, 8L, 8L, 2L, 4L);
            assertThat(r.caughtUp).as("a failed first attempt releases whoever waits for the backfill").isEqualTo(1);
            assertThat(s.asked.get(4)).as("the ring is asked for until a connection opened").isEqualTo("null +backfill");
            assertThat(s.asked.get(5)).isEqualTo("1");
        }
        assertThat(EventStream.next(Duration.ofMillis(300), Duration.ofSeconds(5))).isEqualTo(Duration.ofMillis(600));
        assertThat(EventStream.next(Duration.ofSeconds(4), Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(5));
        assertThatThrownBy(() -> EventStream.of(s).backoff(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive first wait");
    }

    @Test
    void stall_silentPastTheBoundOnTheTicker_isClosedAndReopened() throws Exception {
        AtomicLong now = new AtomicLong();
        Script s = new Script();
        Socketlike daemon = new Socketlike();
        s.answers.add(new EventStream.Opened(daemon, 0));
        Recorder r = new Recorder();
        try (EventStream e = EventStream.of(s).backoff(Duration.ofMillis(1), Duration.ofMillis(1))
                .stall(Duration.ofSeconds(10), now::get).start(r)) {
            // silent from the open on (a byte sent here would race the ticker: read after the 9 s step, it would
            // move the last byte to 9 s and the 11 s sweep would find only 2 s of silence)
            Await.await("the reader", WAIT, e::connected);
            now.addAndGet(Duration.ofSeconds(9).toNanos());
            e.sweep();
            assertThat(s.asked).hasSize(1);
            assertThat(e.connected()).as("9 s of silence on the ticker is not yet a stall").isTrue();
            now.addAndGet(Duration.ofSeconds(2).toNanos());
            e.sweep(); // 11 s without a byte: closed
            Await.await("the reader", WAIT, () -> s.asked.size() == 2);
            assertThat(r.waits).hasSize(1);
            s.answers.add(frames(0, "3 tick {}"));
            s.answers.add(new EventStream.Ended("script over"));
            Await.await("the reader", WAIT, () -> r.frames.contains("3 tick {}"));
            assertThat(r.connects).isEqualTo(2);
        }
    }

    @Test
    void ended_theSourceSaysNobodyServes_stopsWithoutRetrying() throws Exception {
        Script s = new Script();
        s.answers.add(new EventStream.Ended("kiln serve stopped; nobody owns /ws now"));
        Recorder r = new Recorder();
        EventStream e = EventStream.of(s).backfill().start(r);
        Await.await("the reader", WAIT, () -> !e.running());
        assertThat(r.ended).containsExactly("kiln serve stopped; nobody owns /ws now");
        assertThat(r.waits).isEmpty();
        assertThat(s.asked).hasSize(1);
        e.close();
    }

    @Test
    void historyCount_readsTheHeader_nonsenseIsNone() {
        assertThat(EventStream.historyCount("12")).isEqualTo(12);
        assertThat(EventStream.historyCount(null)).isZero();
        assertThat(EventStream.historyCount("-3")).isZero();
        assertThat(EventStream.historyCount("many")).isZero();
        assertThat(EventStream.newer("12", "9")).isTrue();
        assertThat(EventStream.newer("9", "12")).isFalse();
    }
}
