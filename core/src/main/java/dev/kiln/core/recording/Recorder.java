package dev.kiln.core.recording;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.zip.Deflater;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a recording: every frame handed to {@link #frame} with the time it arrived, in compressed blocks, with a
 * full keyframe (the whole state document) every {@link Builder#keyframeEvery}. See {@code docs/RECORDING.md}.
 *
 * <p>Bounded: a recording to one file keeps at most {@link Builder#maxBytes}; past it, at a keyframe, the oldest
 * groups are dropped (the file is rewritten without them and swapped in atomically). A rolling recording into a
 * directory ({@link Builder#rolling}) starts a new file at a keyframe once the current one holds its share, and
 * deletes the oldest files while the directory holds more than the bound.
 *
 * <p>A block is written whole with one write when it is due ({@link Builder#blockEvery}, 256 KiB of frames, a
 * keyframe, {@link #flush}, {@link #close}); a process that dies leaves a file whose whole blocks all read back.
 *
 * <p>Concurrency: thread-safe; {@link #frame} and {@link #flush} are serialized on the recorder. Time comes from the
 * injected clock only.
 */
public final class Recorder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Recorder.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int BLOCK_RAW = 256 << 10;
    private static final DateTimeFormatter FILE_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    /** The suffix of a recording's file. */
    public static final String SUFFIX = ".kilnrec";

    private final Clock clock;
    private final Duration keyframeEvery;
    private final Duration blockEvery;
    private final long maxBytes;
    private final @Nullable Path directory;
    private final ObjectNode header;
    private final StateTracker tracker = new StateTracker();

    private Path file; // guarded by this
    private FileChannel out; // guarded by this
    private long fileBytes; // guarded by this
    private long written; // guarded by this: bytes written over every file, for the console's counter
    private final Instant startedAt;
    private @Nullable Deflater deflater; // guarded by this: one raw stream per keyframe group, null before the first
    private final Format.Buffer raw = new Format.Buffer(64 << 10); // guarded by this
    private final DataOutputStream rawOut = new DataOutputStream(raw);
    private int frames; // guarded by this: in the open block
    private long firstMicros; // guarded by this
    private long lastMicros; // guarded by this
    private long blockStartMicros = Long.MIN_VALUE; // guarded by this
    private long groupStartMicros = Long.MIN_VALUE; // guarded by this
    private boolean key; // guarded by this: the open block starts a group
    private @Nullable String lastWatch; // guarded by this
    private @Nullable String lastTick; // guarded by this
    private long framesTotal; // guarded by this
    private boolean closed; // guarded by this

    private Recorder(Builder b) throws IOException {
        this.clock = b.clock;
        this.keyframeEvery = b.keyframeEvery;
        this.blockEvery = b.blockEvery;
        this.maxBytes = b.maxBytes;
        this.directory = b.directory;
        this.startedAt = clock.instant();
        this.header = JSON.createObjectNode();
        header.put("format", "kiln-recording");
        header.put("version", Format.VERSION);
        header.put("started_at", startedAt.toString());
        header.put("source_kind", b.sourceKind);
        header.put("source", b.source);
        header.put("workspace_root", b.workspaceRoot);
        header.put("default_startup_timeout_ms", b.defaultStartupTimeout.toMillis());
        header.put("keyframe_every_ms", keyframeEvery.toMillis());
        if (directory != null) {
            Files.createDirectories(directory);
            this.file = directory.resolve("kiln-" + FILE_TIME.format(startedAt) + SUFFIX);
        } else {
            this.file = Objects.requireNonNull(b.file, "file");
        }
        open(file);
    }

    private void open(Path f) throws IOException {
        Path parent = f.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        out = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        byte[] h = Format.fileHeader(JSON.writeValueAsBytes(header));
        writeFully(h);
        fileBytes = h.length;
    }

    /** Where to record, and how. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Records one frame (its event name and JSON data, as {@code GET /api/v1/events} sends it) at the clock's now.
     * A {@code snapshot} starts a keyframe group; so does the first frame after {@link Builder#keyframeEvery}.
     *
     * @throws IOException when the file cannot be written (the recorder is then closed: what is on disk stays)
     */
    public synchronized void frame(String event, String data) throws IOException {
        if (closed) {
            return;
        }
        long now = micros(clock.instant());
        try {
            boolean snapshot = event.equals("snapshot");
            if (snapshot) {
                tracker.apply(event, data);
                startGroup(now);
            } else if (groupStartMicros == Long.MIN_VALUE) {
                if (!tracker.hasState()) {
                    return; // nothing before the first state: a replay could not show it
                }
            } else if (now - groupStartMicros >= keyframeEvery.toNanos() / 1_000 && tracker.hasState()) {
                startGroup(now);
                put(now, Format.CONTEXT, "snapshot", tracker.document()); // the state restored: not a new event
                if (lastWatch != null) {
                    put(now, Format.CONTEXT, "watch", lastWatch);
                }
                if (lastTick != null) {
                    put(now, Format.CONTEXT, "tick", lastTick);
                }
            }
            put(now, 0, event, data);
            framesTotal++;
            if (event.equals("delta")) {
                tracker.apply(event, data); // after the keyframe: a keyframe is the state before this frame
            }
            if (event.equals("watch")) {
                lastWatch = data;
            } else if (event.equals("tick")) {
                lastTick = data;
            }
            if (raw.size() >= BLOCK_RAW || now - blockStartMicros >= blockEvery.toNanos() / 1_000) {
                writeBlock();
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly();
            throw e instanceof IOException io ? io : new IOException("recording to " + file + " failed: " + e, e);
        }
    }

    private void put(long micros, int flags, String event, String data) throws IOException {
        if (frames == 0) {
            firstMicros = micros;
            blockStartMicros = micros;
        }
        Format.frame(rawOut, micros, flags, event, data.getBytes(StandardCharsets.UTF_8));
        frames++;
        lastMicros = micros;
    }

    /** Ends the open block and group; the next frames are a new group (after rotating or compacting if due). */
    private void startGroup(long now) throws IOException {
        writeBlock();
        if (deflater != null) {
            deflater.end();
        }
        bound();
        deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
        key = true;
        groupStartMicros = now;
    }

    private void writeBlock() throws IOException {
        if (frames == 0) {
            return;
        }
        Deflater d = deflater;
        if (d == null) {
            throw new IllegalStateException("a block written before its group started");
        }
        d.setInput(raw.array(), 0, raw.size());
        Format.Buffer c = new Format.Buffer(Math.max(1024, raw.size() / 4));
        byte[] chunk = new byte[64 << 10];
        int n;
        do { // a sync flush ends the block on a byte boundary: it inflates whole, the stream goes on after it
            n = d.deflate(chunk, 0, chunk.length, Deflater.SYNC_FLUSH);
            c.write(chunk, 0, n);
        } while (n == chunk.length);
        byte[] compressed = c.toByteArray();
        byte[] block = Format.block(key ? Format.KEY : 0, frames, firstMicros, lastMicros, raw.size(), compressed);
        writeFully(block);
        fileBytes += block.length;
        key = false;
        frames = 0;
        raw.reset();
    }

    private void writeFully(byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            out.write(b);
        }
        written += bytes.length;
    }

    /** At a group's start: keeps the file (or the directory) within its bound. */
    private void bound() throws IOException {
        if (maxBytes <= 0 || frames > 0) {
            return;
        }
        if (directory != null) {
            if (fileBytes >= Math.max(1 << 20, maxBytes / 8)) { // a new file; the oldest go while the total is over
                out.force(true);
                out.close();
                Path next = directory.resolve("kiln-" + FILE_TIME.format(clock.instant()) + SUFFIX);
                if (next.equals(file)) {
                    next = directory.resolve("kiln-" + FILE_TIME.format(clock.instant()) + "-" + framesTotal + SUFFIX);
                }
                file = next;
                open(file);
                prune(directory, maxBytes, file);
            }
        } else if (fileBytes > maxBytes) {
            compact();
        }
    }

    /** Deletes the oldest recordings of {@code dir} (not {@code keep}) while they hold more than {@code maxBytes}. */
    static void prune(Path dir, long maxBytes, Path keep) throws IOException {
        List<Path> files = new ArrayList<>();
        try (var s = Files.list(dir)) {
            s.filter(p -> p.getFileName().toString().endsWith(SUFFIX)).forEach(files::add);
        }
        files.sort(Comparator.comparing(p -> p.getFileName().toString()));
        long total = 0;
        for (Path p : files) {
            total += Files.size(p);
        }
        for (Path p : files) {
            if (total <= maxBytes || p.equals(keep)) {
                break;
            }
            total -= Files.size(p);
            Files.deleteIfExists(p);
            LOG.info("Deleted the oldest recording {} to keep {} within {} bytes", p.getFileName(), dir, maxBytes);
        }
    }

    /** Rewrites the file without its oldest groups, to about 70 % of the bound; swapped in by rename. */
    private void compact() throws IOException {
        out.force(true);
        out.close();
        Recording r = Recording.open(file);
        List<Recording.Group> groups = r.groups();
        if (groups.size() < 2) {
            out = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            return; // one group holds it all: nothing older to drop
        }
        long keepBytes = maxBytes * 7 / 10;
        int from = groups.size() - 1;
        long sum = 0;
        for (int i = groups.size() - 1; i >= 1; i--) {
            long size = groups.get(i).bytes();
            if (sum + size > keepBytes && i < groups.size() - 1) {
                break;
            }
            sum += size;
            from = i;
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".compact");
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ);
                FileChannel o = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE)) {
            ByteBuffer h = ByteBuffer.wrap(Format.fileHeader(JSON.writeValueAsBytes(header)));
            while (h.hasRemaining()) {
                o.write(h);
            }
            long start = groups.get(from).offset();
            long end = r.validBytes();
            long pos = start;
            while (pos < end) {
                pos += in.transferTo(pos, end - pos, o);
            }
            o.force(true);
        }
        // renamed into place like AtomicWrite does: a reader opens the old file or the new one, whole
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        out = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        fileBytes = Files.size(file);
        LOG.info("Dropped the oldest {} keyframe group(s) of {} to keep it within {} bytes", from, file, maxBytes);
    }

    /** Writes the open block now (a console's Record button, a daemon's flush every few seconds). */
    public synchronized void flush() throws IOException {
        if (!closed) {
            writeBlock();
        }
    }

    /** Bytes written so far, over every file of a rolling recording. From memory. */
    public synchronized long bytes() {
        return written;
    }

    /** Frames recorded so far (a keyframe's repeats of the state not counted). From memory. */
    public synchronized long frames() {
        return framesTotal;
    }

    /** How long this recorder has been recording, by its clock. */
    public Duration duration() {
        return Duration.between(startedAt, clock.instant());
    }

    /** The file being written now (a rolling recording's current one). */
    public synchronized Path file() {
        return file;
    }

    /** Writes the open block, syncs and closes the file. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        try {
            writeBlock();
            out.force(true);
        } finally {
            closeQuietly();
        }
    }

    private void closeQuietly() {
        closed = true;
        if (deflater != null) {
            deflater.end();
        }
        try {
            out.close();
        } catch (IOException e) {
            LOG.debug("closing {}: {}", file, e.toString());
        }
    }

    static long micros(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1_000);
    }

    /** A recorder's options, checked when set. */
    public static final class Builder {
        private @Nullable Path file;
        private @Nullable Path directory;
        private Clock clock = Clock.systemUTC();
        private Duration keyframeEvery = Duration.ofMinutes(10);
        private Duration blockEvery = Duration.ofSeconds(5);
        private long maxBytes;
        private String sourceKind = "local";
        private String source = "";
        private String workspaceRoot = "/";
        private Duration defaultStartupTimeout = Duration.ofSeconds(30);

        private Builder() {
        }

        /** Records into one file (replaced if it exists). */
        public Builder file(Path f) {
            this.file = Objects.requireNonNull(f, "file");
            this.directory = null;
            return this;
        }

        /** Records into files of {@code dir}, rotated, all of them together kept within {@code maxTotalBytes}. */
        public Builder rolling(Path dir, long maxTotalBytes) {
            if (maxTotalBytes < (8 << 20)) {
                throw new IllegalArgumentException("a rolling recording needs at least 8 MiB, not " + maxTotalBytes + " bytes");
            }
            this.directory = Objects.requireNonNull(dir, "dir");
            this.file = null;
            this.maxBytes = maxTotalBytes;
            return this;
        }

        /** The most one file keeps (0: unbounded); the oldest keyframe groups go first. */
        public Builder maxBytes(long bytes) {
            if (bytes != 0 && bytes < (1 << 20)) {
                throw new IllegalArgumentException("a recording's bound is at least 1 MiB (or 0: none), not " + bytes + " bytes");
            }
            this.maxBytes = bytes;
            return this;
        }

        public Builder clock(Clock c) {
            this.clock = Objects.requireNonNull(c, "clock");
            return this;
        }

        /** How often a full keyframe is written: the seek granularity, and what can be dropped (default 10 min). */
        public Builder keyframeEvery(Duration d) {
            if (d.compareTo(Duration.ofSeconds(10)) < 0) {
                throw new IllegalArgumentException("keyframes at most every 10 s (each holds the whole state), not " + d);
            }
            this.keyframeEvery = d;
            return this;
        }

        /** How long frames wait in memory before their block is written (default 5 s): what a crash can lose. */
        public Builder blockEvery(Duration d) {
            if (d.isNegative() || d.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException("a block is written within 0 s to 1 min, not " + d);
            }
            this.blockEvery = d;
            return this;
        }

        /**
         * What is recorded, for the header: {@code local} with the workspace directory, or {@code remote} with the
         * daemon's URL; {@code root} is the workspace's root on its host.
         */
        public Builder source(String kind, String location, String root, Duration defaultStartupTimeout) {
            if (!kind.equals("local") && !kind.equals("remote")) {
                throw new IllegalArgumentException("a recording's source is local or remote, not " + kind);
            }
            this.sourceKind = kind;
            this.source = Objects.requireNonNull(location, "location");
            this.workspaceRoot = Objects.requireNonNull(root, "root");
            this.defaultStartupTimeout = Objects.requireNonNull(defaultStartupTimeout, "defaultStartupTimeout");
            return this;
        }

        public Recorder build() throws IOException {
            if (file == null && directory == null) {
                throw new IllegalStateException("a recorder needs a file or a rolling directory");
            }
            return new Recorder(this);
        }
    }
}
