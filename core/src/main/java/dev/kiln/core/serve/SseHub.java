package dev.kiln.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.core.serve.wire.Wire;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fans the daemon's frames out to SSE clients: a {@code snapshot} event when a client connects, then one
 * {@code delta} event per revision (leaves added, removed, changed), and between them the core events
 * ({@link #publishEvent}: ticks, watch changes, warm lines, probe steps, archive events, heals, finished actions).
 *
 * <p>Every frame has an {@code id:} from one increasing sequence (a snapshot's id is that of the last frame it
 * includes). The sequence starts at the hub's creation time in microseconds, so a restarted daemon's ids are
 * larger than any its predecessor gave and never mistaken for them. The hub keeps the last frames in a bounded ring:
 * a client reconnecting with {@code Last-Event-ID} gets exactly the frames after it (none lost, none twice), or,
 * when that id is older than the ring (or from another sequence), a fresh {@code snapshot}, which the client treats
 * as a reset.
 *
 * <p>Publishing never blocks: each client has a bounded queue, and a client whose queue is full (slow or dead) is
 * dropped; so is one whose write has blocked too long ({@link #dropStalled}). It may reconnect and resume.
 *
 * <p>A client must also read what it was sent ({@link #dropUnread}). A write blocks only once the socket buffers are
 * full, and those grow to tens of MB, so on an idle stream a client that never reads would never block and would hold
 * its slot for good (64 of them locked every reader out). So each client's progress is measured: the bytes the
 * kernel accepted from its writer ({@link Client#wrote}) minus the bytes still unread on the connection
 * ({@link TcpBacklog}) is what it has read. A client that has read nothing more for the limit, while bytes wait for
 * it, is dropped; and when every slot is taken, a newcomer evicts the client that has gone longest without reading,
 * once that is longer than a keep-alive interval ({@link #evictStalest}), so a reader never waits for the limit.
 * Why measured progress rather than pushing padding until the idle ones block: that would cost every real reader
 * the padding and the kernel tens of MB of buffers per idle socket. A client whose connection the kernel's table does
 * not show (no {@code /proc}) is judged by blocked writes alone.
 *
 * <p>Concurrency: {@link #publish}, {@link #publishEvent}, {@link #connect}, {@link #dropStalled},
 * {@link #dropUnread} and {@link #evictStalest} are synchronized, so a connecting client sees either the state before
 * a frame (and then the frame) or after it, never neither, and ids go out in order. A client's {@code writingSince}
 * and {@code written} are written by its writer thread and read by the sweep (volatile); its progress fields are
 * guarded by the hub.
 */
final class SseHub {
    private static final Logger LOG = LoggerFactory.getLogger(SseHub.class);

    /** One connected client: its queue of ready-to-write SSE frames. */
    static final class Client {
        private static final long NOT_WRITING = Long.MIN_VALUE;
        final BlockingQueue<String> queue;
        volatile boolean dropped;
        /** When the write in progress began (ticker time), or {@code NOT_WRITING}. */
        private volatile long writingSince = NOT_WRITING;
        /** Bytes of frames the kernel accepted (written only by the writer thread). */
        private volatile long written;
        /** The connection's two ends, to find it in the kernel's table; null when not known. */
        private final @Nullable InetSocketAddress local;
        private final @Nullable InetSocketAddress remote;
        /** The most it has been seen to have read: written minus unread. */
        private long readSeen = Long.MIN_VALUE; // guarded by the hub
        /** When it last read something, or had nothing unread (ticker time). */
        private long progressAt; // guarded by the hub
        boolean needsSnapshot;
        /** How many of the first queued frames are history (backfill) rather than live. */
        int history;
        /** The id it resumed after, or -1 when it got (or will get) a snapshot. */
        long resumedAfter = -1;
        private @Nullable Thread writer;
        private boolean finished;

        /** The thread that writes this client's frames. */
        synchronized void attach(Thread t) {
            writer = t;
        }

        /** The writer starts a write to the socket, at {@code now}; a write that never ends marks a dead client. */
        void writing(long now) {
            writingSince = now == NOT_WRITING ? now + 1 : now;
        }

        /** The write returned. */
        void written() {
            writingSince = NOT_WRITING;
        }

        /** The kernel accepted {@code bytes} more of this client's frames (after the write and flush returned). */
        void wrote(int bytes) {
            written += bytes; // only the writer thread writes it
        }

        /** The writer is done; from now on {@link #release()} does nothing. */
        synchronized void detach() {
            finished = true;
            writer = null;
        }

        /**
         * Releases a writer that may be blocked on a socket whose peer stopped reading: interrupting it closes the
         * (interruptible) channel, so the write fails instead of blocking forever. Never blocks the caller.
         */
        synchronized void release() {
            if (writer != null && !finished) {
                writer.interrupt();
            }
        }

        Client(int capacity, @Nullable InetSocketAddress local, @Nullable InetSocketAddress remote, long now) {
            this.queue = new ArrayBlockingQueue<>(capacity);
            this.local = local;
            this.remote = remote;
            this.progressAt = now;
        }

        /**
         * Updates the progress from the kernel's count of unread bytes; returns how long it has gone without
         * reading while bytes wait for it (0 when it is reading or has nothing unread, -1 when it cannot be told).
         */
        private long stalledFor(TcpBacklog backlog, long now) {
            long unread = backlog.unread(local, remote);
            if (unread == TcpBacklog.UNKNOWN) {
                return -1;
            }
            // Headers and chunk framing count as unread but not as written: the estimate is low by a constant
            // that only grows with frames written, so it rises only when the client really read.
            long read = written - unread;
            if (unread == 0 || read > readSeen) {
                readSeen = Math.max(read, readSeen);
                progressAt = now;
                return 0;
            }
            return now - progressAt;
        }
    }

    /**
     * A revision's leaves (ids and JSON text in document order), failures and meta as JSON text: compared as
     * strings, embedded raw.
     */
    private record Revision(long revision, List<String> ids, List<String> leaves, String failures, String meta) {
    }

    private final int queueCapacity;
    private final int historySize;
    private final int maxClients;
    private final Set<Client> clients = ConcurrentHashMap.newKeySet();
    private final ArrayDeque<Map.Entry<Long, String>> history = new ArrayDeque<>();
    private final AtomicLong droppedClients = new AtomicLong();
    // the newest revision and its parsed form; null before the first
    private @Nullable Published current;
    private @Nullable Revision currentTree;
    /** The id of the last frame; the next gets one more. */
    private long seq;

    SseHub(int queueCapacity, int historySize, int maxClients) {
        this(queueCapacity, historySize, maxClients, System.currentTimeMillis() * 1_000);
    }

    SseHub(int queueCapacity, int historySize, int maxClients, long firstId) {
        this.queueCapacity = queueCapacity;
        this.historySize = historySize;
        this.maxClients = maxClients;
        this.seq = firstId - 1;
    }

    /** The id of the last frame sent. */
    synchronized long lastId() {
        return seq;
    }

    /** Sends one core event ({@code event: name}, {@code data}: its JSON) to every client, and keeps it for resumes. */
    synchronized void publishEvent(String name, String data) {
        String frame = Wire.frame(name, ++seq, data);
        remember(seq, frame);
        for (Client c : clients) {
            offer(c, frame);
        }
    }

    private void remember(long id, String frame) {
        history.addLast(Map.entry(id, frame));
        while (history.size() > historySize) {
            history.removeFirst();
        }
    }

    /** Drops every client (they reconnect and resume); for tests of resumption and for shutdown. */
    synchronized void dropAll() {
        for (Client c : clients) {
            drop(c);
        }
    }

    /** Publishes a new revision; older or equal revisions are ignored. */
    synchronized void publish(Published p) {
        if (current != null && p.revision() <= current.revision()) {
            return;
        }
        Revision tree;
        try {
            tree = parse(p);
        } catch (IOException e) {
            LOG.error("Revision {} is not valid JSON; not sent to SSE clients: {}", p.revision(), e.getMessage());
            return;
        }
        long id = ++seq;
        String delta = currentTree == null ? null : Wire.frame(Wire.DELTA, id, delta(currentTree, tree));
        String snapshot = null;
        if (delta != null) {
            remember(id, delta);
        } else {
            history.clear(); // the first revision: nobody can resume from before it without the snapshot
        }
        current = p;
        currentTree = tree;
        for (Client c : clients) {
            if (c.needsSnapshot || delta == null) {
                snapshot = snapshot == null ? snapshotFrame(p, id) : snapshot;
                c.needsSnapshot = false;
                offer(c, snapshot);
            } else {
                offer(c, delta);
            }
        }
    }

    /**
     * Connects a client; its queue already holds what it must see first.
     *
     * @param lastEventId the {@code Last-Event-ID} header, or null
     * @return the client, or null when the hub is full
     */
    synchronized @Nullable Client connect(@Nullable String lastEventId) {
        return connect(lastEventId, null, null, 0);
    }

    /**
     * Connects a client whose connection runs from {@code local} (this daemon) to {@code remote}, so that its
     * reading can be measured ({@link #dropUnread}).
     *
     * @return the client, or null when the hub is full
     */
    synchronized @Nullable Client connect(@Nullable String lastEventId, @Nullable InetSocketAddress local,
            @Nullable InetSocketAddress remote, long now) {
        if (clients.size() >= maxClients) {
            return null;
        }
        Client c = new Client(queueCapacity, local, remote, now);
        if (current == null) {
            c.needsSnapshot = true;
        } else if (lastEventId == null || !replay(c, lastEventId)) {
            c.queue.add(snapshotFrame(current, seq));
        } else {
            c.resumedAfter = Long.parseLong(lastEventId.trim()); // replay parsed it
        }
        clients.add(c);
        return c;
    }

    /**
     * Connects a client that asked for the ring ({@code ?backfill=true}): ahead of what {@link #connect} queues, the
     * core events the ring holds from before the client's resume point (all of them when it cannot resume: its
     * snapshot covers them), so a console that attaches shows what happened before it. Deltas are not sent again:
     * the state the client holds (or the snapshot it gets) has them. {@link Client#history} says how many lead.
     *
     * @return the client, or null when the hub is full
     */
    synchronized @Nullable Client connectWithHistory(@Nullable String lastEventId, @Nullable InetSocketAddress local,
            @Nullable InetSocketAddress remote, long now) {
        Client c = connect(lastEventId, local, remote, now);
        if (c == null) {
            return null;
        }
        long upTo = c.resumedAfter < 0 ? seq : c.resumedAfter; // resumed: the history ends where the client's state does
        List<String> past = new ArrayList<>();
        for (Map.Entry<Long, String> e : history) {
            if (e.getKey() <= upTo && !e.getValue().contains("\nevent: " + Wire.DELTA + "\n")) {
                past.add(e.getValue());
            }
        }
        int room = Math.max(0, queueCapacity - c.queue.size() - 16); // room left for live frames: the newest history
        List<String> kept = past.subList(Math.max(0, past.size() - room), past.size());
        List<String> queued = new ArrayList<>(c.queue);
        c.queue.clear();
        c.queue.addAll(kept);
        c.queue.addAll(queued);
        c.history = kept.size();
        return c;
    }

    void disconnect(Client c) {
        clients.remove(c);
    }

    int clientCount() {
        return clients.size();
    }

    long droppedClients() {
        return droppedClients.get();
    }

    /** Queues the frames after {@code lastEventId} if the ring still holds all of them. */
    private boolean replay(Client c, String lastEventId) {
        if (lastEventId == null || lastEventId.isBlank()) {
            return false;
        }
        long last;
        try {
            last = Long.parseLong(lastEventId.trim());
        } catch (NumberFormatException e) {
            return false;
        }
        if (last == seq) {
            return true; // up to date: nothing to send until the next frame
        }
        if (last > seq || history.isEmpty() || history.peekFirst().getKey() > last + 1) {
            return false; // from another daemon's sequence, or older than the ring
        }
        int missed = 0;
        for (Map.Entry<Long, String> e : history) {
            if (e.getKey() > last) {
                missed++;
            }
        }
        if (missed > queueCapacity) {
            return false;
        }
        for (Iterator<Map.Entry<Long, String>> it = history.iterator(); it.hasNext();) {
            Map.Entry<Long, String> e = it.next();
            if (e.getKey() > last) {
                c.queue.add(e.getValue());
            }
        }
        return true;
    }

    /**
     * Drops the clients whose current write has blocked for {@code limitNanos} or more: they stopped reading (or
     * are gone without a reset), their socket buffers are full, and each holds a slot and a thread until dropped.
     */
    synchronized void dropStalled(long now, long limitNanos) {
        for (Client c : clients) {
            long since = c.writingSince;
            if (since != Client.NOT_WRITING && now - since >= limitNanos) {
                drop(c);
                LOG.warn("Dropped an SSE client whose write blocked for {} ms (it does not read); it can reconnect"
                        + " with Last-Event-ID", limitNanos / 1_000_000);
            }
        }
    }

    /**
     * Drops the clients that have read nothing for {@code limitNanos} while bytes waited for them: they hold a slot
     * and a thread without taking the stream (never reading, their writes never block on an idle stream).
     */
    synchronized void dropUnread(TcpBacklog backlog, long now, long limitNanos) {
        int dropped = 0;
        for (Client c : clients) {
            if (c.stalledFor(backlog, now) >= limitNanos) {
                drop(c);
                dropped++;
            }
        }
        if (dropped > 0) { // one line per sweep: a flood of idle clients must not flood the log too
            LOG.warn("Dropped {} SSE client(s) that read nothing of their stream for {} ms; they can reconnect with"
                    + " Last-Event-ID", dropped, limitNanos / 1_000_000);
        }
    }

    /**
     * Makes room for a newcomer when every slot is taken: drops the client that has gone longest without reading,
     * if that is at least {@code minimumNanos}.
     *
     * @return whether a client was evicted
     */
    synchronized boolean evictStalest(TcpBacklog backlog, long now, long minimumNanos) {
        if (clients.size() < maxClients) {
            return true;
        }
        Client stalest = null;
        long longest = -1;
        for (Client c : clients) {
            long stalled = c.stalledFor(backlog, now);
            if (stalled >= minimumNanos && stalled > longest) {
                stalest = c;
                longest = stalled;
            }
        }
        if (stalest == null) {
            return false;
        }
        drop(stalest);
        LOG.warn("Every SSE slot was taken: evicted the client that had read nothing for {} ms; it can reconnect"
                + " with Last-Event-ID", longest / 1_000_000);
        return true;
    }

    private void offer(Client c, String frame) {
        if (c.dropped) {
            return;
        }
        if (!c.queue.offer(frame)) {
            drop(c);
            LOG.warn("Dropped a slow SSE client ({} events queued); it can reconnect with Last-Event-ID", queueCapacity);
        }
    }

    private void drop(Client c) {
        c.dropped = true;
        clients.remove(c);
        droppedClients.incrementAndGet();
        c.release();
    }

    private static Revision parse(Published p) throws IOException {
        if (p.leafIds() != null && p.leafJson() != null && p.failures() != null && p.meta() != null) {
            return new Revision(p.revision(), p.leafIds(), p.leafJson(), p.failures(), p.meta());
        }
        JsonNode doc = Wire.JSON.readTree(p.document());
        List<String> ids = new ArrayList<>();
        List<String> leaves = new ArrayList<>();
        for (JsonNode leaf : doc.path("leaves")) {
            ids.add(leaf.path("leaf_id").asText(leaf.path("file").asText("")));
            leaves.add(Wire.JSON.writeValueAsString(leaf));
        }
        JsonNode meta = doc.path("meta").deepCopy();
        if (meta instanceof ObjectNode m) {
            m.remove("daemon"); // volatile instrumentation is no change
        }
        return new Revision(p.revision(), ids, leaves, Wire.JSON.writeValueAsString(doc.path("failures")),
                Wire.JSON.writeValueAsString(meta));
    }

    /**
     * The delta event's data, assembled from JSON text (no tree of the whole document is built). Leaves keep their
     * order between revisions, so the common head and tail are compared position for position (an unchanged leaf
     * is the same text instance: an identity check); only the stretch between them is matched by id.
     */
    private static String delta(Revision before, Revision after) {
        StringBuilder added = new StringBuilder();
        StringBuilder changed = new StringBuilder();
        StringBuilder removed = new StringBuilder();
        List<String> bIds = before.ids();
        List<String> aIds = after.ids();
        int n = bIds.size();
        int m = aIds.size();
        int head = 0;
        while (head < n && head < m && bIds.get(head).equals(aIds.get(head))) {
            head++;
        }
        int tail = 0;
        while (tail < n - head && tail < m - head && bIds.get(n - 1 - tail).equals(aIds.get(m - 1 - tail))) {
            tail++;
        }
        for (int i = 0; i < head; i++) {
            compare(changed, aIds.get(i), before.leaves().get(i), after.leaves().get(i));
        }
        Map<String, String> middle = new HashMap<>();
        for (int i = head; i < n - tail; i++) {
            middle.put(bIds.get(i), before.leaves().get(i));
        }
        Set<String> kept = new HashSet<>();
        for (int i = head; i < m - tail; i++) {
            String id = aIds.get(i);
            String old = middle.get(id);
            if (old == null) {
                member(added, id, after.leaves().get(i));
            } else {
                kept.add(id);
                compare(changed, id, old, after.leaves().get(i));
            }
        }
        for (int i = 0; i < tail; i++) {
            compare(changed, aIds.get(m - tail + i), before.leaves().get(n - tail + i), after.leaves().get(m - tail + i));
        }
        for (int i = head; i < n - tail; i++) {
            if (!kept.contains(bIds.get(i))) {
                removed.append(removed.length() == 0 ? "" : ",").append(quote(bIds.get(i)));
            }
        }
        StringBuilder d = new StringBuilder(added.length() + changed.length() + removed.length() + 128);
        d.append("{\"revision\":").append(after.revision()).append(",\"previous\":").append(before.revision())
                .append(",\"added\":{").append(added).append("},\"changed\":{").append(changed)
                .append("},\"removed\":[").append(removed).append(']');
        if (!before.failures().equals(after.failures())) {
            d.append(",\"failures\":").append(after.failures());
        }
        if (!before.meta().equals(after.meta())) {
            d.append(",\"meta\":").append(after.meta());
        }
        return d.append('}').toString();
    }

    private static void compare(StringBuilder changed, String id, String old, String now) {
        if (old != now && !old.equals(now)) {
            member(changed, id, now);
        }
    }

    private static void member(StringBuilder b, String id, String json) {
        b.append(b.length() == 0 ? "" : ",").append(quote(id)).append(':').append(json);
    }

    private static String quote(String s) {
        return Wire.quote(s);
    }

    private static String snapshotFrame(Published p, long id) {
        return Wire.frame(Wire.SNAPSHOT, id, new String(p.document(), StandardCharsets.UTF_8));
    }

}
