package dev.kiln.core.recording;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.jspecify.annotations.Nullable;

/**
 * A recording opened for reading: its header, its keyframe groups (the seek index, built at open from the block
 * headers without inflating anything) and, when the file is cut or corrupt, where its whole part ends.
 *
 * <p>A damaged file opens up to the damage: every block before it reads back, and {@link #damage()} names the byte
 * offset where the whole part ends, the time of its last frame and what was found there. Only a file that is no
 * recording at all (another magic, another version, a broken header) is refused, with what to do.
 *
 * <p>Concurrency: immutable after {@link #open}; {@link #frames} reads the file and may run on any thread.
 */
public final class Recording {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One recorded frame.
     *
     * @param micros when it arrived, microseconds since the epoch
     * @param event its SSE event name ({@code snapshot}, {@code delta}, {@code tick}, {@code warm_output}, …)
     * @param data its JSON data, as the API sent it
     * @param context a repeat at a keyframe that restores the state (the whole document, the last watch and tick),
     *     not something that happened then
     */
    public record Frame(long micros, String event, String data, boolean context) {
        /** When it arrived. */
        public Instant at() {
            return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
        }
    }

    /**
     * A keyframe group: blocks that start with the whole state and inflate as one stream.
     *
     * @param offset the byte offset of its first block
     * @param bytes its bytes in the file
     */
    public record Group(int index, long offset, long bytes, long firstMicros, long lastMicros, int frames) {
    }

    /**
     * Where a damaged recording's whole part ends.
     *
     * @param offset the byte offset where the whole part ends (the damage begins)
     * @param fileBytes the file's size
     * @param lastTime the time of the last whole frame, when there is one
     * @param reason what was found at the offset
     */
    public record Damage(long offset, long fileBytes, @Nullable Instant lastTime, String reason) {
        /** For a person: where the recording ends and why. */
        public String describe() {
            return "the recording is whole up to byte " + offset + " of " + fileBytes
                    + (lastTime == null ? " (no whole frame)" : " (its last frame at " + lastTime + ")") + ": " + reason;
        }
    }

    /** One block as the index holds it. */
    private record Block(long offset, int flags, int frames, long first, long last, int rawLength, int compressedLength) {
    }

    private final Path file;
    private final JsonNode header;
    private final List<Block> blocks;
    private final List<Group> groups;
    private final int[] groupFirstBlock;
    private final long validBytes;
    private final @Nullable Damage damage;

    private Recording(Path file, JsonNode header, List<Block> blocks, long validBytes, @Nullable Damage damage) {
        this.file = file;
        this.header = header;
        this.blocks = List.copyOf(blocks);
        this.validBytes = validBytes;
        this.damage = damage;
        List<Group> gs = new ArrayList<>();
        List<Integer> firsts = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            Block b = blocks.get(i);
            if ((b.flags() & Format.KEY) != 0) {
                firsts.add(i);
            }
        }
        for (int g = 0; g < firsts.size(); g++) {
            int from = firsts.get(g);
            int to = g + 1 < firsts.size() ? firsts.get(g + 1) : blocks.size();
            long end = to < blocks.size() ? blocks.get(to).offset() : validBytes;
            int frames = 0;
            for (int i = from; i < to; i++) {
                frames += blocks.get(i).frames();
            }
            gs.add(new Group(g, blocks.get(from).offset(), end - blocks.get(from).offset(), blocks.get(from).first(),
                    blocks.get(to - 1).last(), frames));
        }
        this.groups = List.copyOf(gs);
        this.groupFirstBlock = firsts.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Opens a recording: reads its header and every block's header and checksum (nothing is inflated).
     *
     * @throws IOException when the file cannot be read or is no Kiln recording (naming the file and what it is)
     */
    public static Recording open(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer head = ByteBuffer.allocate(Format.MAGIC.length + 6);
            if (read(ch, head, 0) < head.capacity()) {
                throw new IOException(file + " is no Kiln recording: it has " + size + " bytes, fewer than a header");
            }
            head.flip();
            byte[] magic = new byte[Format.MAGIC.length];
            head.get(magic);
            if (!Arrays.equals(magic, Format.MAGIC)) {
                throw new IOException(file + " is no Kiln recording (it does not start with \"KILNREC\"): open a file that"
                        + " kiln record or the console's Record button wrote");
            }
            int version = Short.toUnsignedInt(head.getShort());
            if (version != Format.VERSION) {
                throw new IOException(file + " is a Kiln recording of format version " + version + "; this kiln reads version "
                        + Format.VERSION + ": open it with a kiln of the release that wrote it");
            }
            int headerLength = head.getInt();
            if (headerLength < 0 || headerLength > Format.MAX_HEADER || Format.MAGIC.length + 6L + headerLength + 4 > size) {
                throw new IOException(file + " is a Kiln recording whose header is cut off or corrupt (it claims "
                        + Integer.toUnsignedString(headerLength) + " bytes); nothing in it can be read");
            }
            ByteBuffer h = ByteBuffer.allocate(headerLength + 4);
            read(ch, h, Format.MAGIC.length + 6);
            h.flip();
            byte[] json = new byte[headerLength];
            h.get(json);
            CRC32 crc = new CRC32();
            crc.update(json);
            if ((int) crc.getValue() != h.getInt()) {
                throw new IOException(file + " is a Kiln recording whose header is corrupt (its checksum does not hold);"
                        + " nothing in it can be read");
            }
            JsonNode header = JSON.readTree(json);
            long pos = Format.MAGIC.length + 6L + headerLength + 4;
            List<Block> blocks = new ArrayList<>();
            Damage damage = null;
            ByteBuffer bh = ByteBuffer.allocate(Format.BLOCK_HEADER);
            long lastTime = Long.MIN_VALUE;
            while (pos < size) {
                bh.clear();
                String problem = null;
                int n = read(ch, bh, pos);
                @Nullable Block b = null;
                if (n < Format.BLOCK_HEADER) {
                    problem = "the file ends inside a block's header (" + n + " of " + Format.BLOCK_HEADER + " bytes)";
                } else {
                    bh.flip();
                    int m = bh.getInt();
                    int flags = bh.get() & 0xff;
                    int frames = bh.getInt();
                    long first = bh.getLong();
                    long last = bh.getLong();
                    int rawLength = bh.getInt();
                    int compressed = bh.getInt();
                    int sum = bh.getInt();
                    if (m != Format.BLOCK_MAGIC) {
                        problem = "no block starts there (the bytes are not a block's mark)";
                    } else if (rawLength < 0 || rawLength > Format.MAX_BLOCK || compressed < 0 || compressed > Format.MAX_BLOCK
                            || frames < 0 || last < first) {
                        problem = "a block's header is corrupt (impossible lengths or times)";
                    } else if (pos + Format.BLOCK_HEADER + compressed > size) {
                        problem = "the file ends inside a block (" + (size - pos - Format.BLOCK_HEADER) + " of " + compressed
                                + " bytes)";
                    } else if (blocks.isEmpty() && (flags & Format.KEY) == 0) {
                        problem = "the first block is no keyframe";
                    } else {
                        ByteBuffer body = ByteBuffer.allocate(compressed);
                        read(ch, body, pos + Format.BLOCK_HEADER);
                        CRC32 c = new CRC32();
                        c.update(bh.array(), 0, Format.BLOCK_HEAD);
                        c.update(body.array());
                        if ((int) c.getValue() != sum) {
                            problem = "a block's checksum does not hold (its bytes were changed)";
                        } else {
                            b = new Block(pos, flags, frames, first, last, rawLength, compressed);
                        }
                    }
                }
                if (problem != null) {
                    damage = new Damage(pos, size, lastTime == Long.MIN_VALUE ? null : new Frame(lastTime, "", "", false).at(),
                            problem);
                    break;
                }
                if (b == null) {
                    break; // unreachable: every path without a problem made the block
                }
                blocks.add(b);
                lastTime = b.last();
                pos += Format.BLOCK_HEADER + b.compressedLength();
            }
            return new Recording(file, header, blocks, damage == null ? size : damage.offset(), damage);
        } catch (NoSuchFileException e) {
            throw new IOException(file + " does not exist", e);
        }
    }

    private static int read(FileChannel ch, ByteBuffer b, long at) throws IOException {
        int total = 0;
        while (b.hasRemaining()) {
            int n = ch.read(b, at + total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }

    /** Every frame of a group, in order (the first is its keyframe's {@code snapshot}). */
    public List<Frame> frames(Group g) throws IOException {
        int from = groupFirstBlock[g.index()];
        int to = g.index() + 1 < groupFirstBlock.length ? groupFirstBlock[g.index() + 1] : blocks.size();
        Inflater inflater = new Inflater(true);
        List<Frame> out = new ArrayList<>(g.frames());
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            for (int i = from; i < to; i++) {
                Block b = blocks.get(i);
                ByteBuffer body = ByteBuffer.allocate(b.compressedLength());
                read(ch, body, b.offset() + Format.BLOCK_HEADER);
                inflater.setInput(body.array());
                byte[] raw = new byte[b.rawLength()];
                int n = 0;
                try {
                    while (n < raw.length) {
                        int k = inflater.inflate(raw, n, raw.length - n);
                        if (k == 0 && (inflater.needsInput() || inflater.finished())) {
                            break;
                        }
                        n += k;
                    }
                    byte[] rest = new byte[64];
                    for (int guard = 0; guard < 16 && !inflater.needsInput() && !inflater.finished(); guard++) {
                        if (inflater.inflate(rest) > 0) { // the sync flush's empty block is all that may remain
                            throw new IOException(file + ": the block at byte " + b.offset() + " holds more than its "
                                    + raw.length + " bytes");
                        }
                    }
                } catch (DataFormatException e) {
                    throw new IOException(file + ": the block at byte " + b.offset() + " does not inflate (" + e.getMessage() + ")", e);
                }
                if (n != raw.length) {
                    throw new IOException(file + ": the block at byte " + b.offset() + " inflated to " + n + " of "
                            + raw.length + " bytes");
                }
                DataInputStream in = new DataInputStream(new ByteArrayInputStream(raw));
                for (Frame f = Format.readFrame(in); f != null; f = Format.readFrame(in)) {
                    out.add(f);
                }
            }
        } finally {
            inflater.end();
        }
        return out;
    }

    /** The index of the last group that starts at or before {@code micros} (the first when none does); -1 when empty. */
    public int groupAt(long micros) {
        int lo = 0;
        int hi = groups.size() - 1;
        int found = groups.isEmpty() ? -1 : 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (groups.get(mid).firstMicros() <= micros) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    public Path file() {
        return file;
    }

    /** The keyframe groups, oldest first: the seek index. */
    public List<Group> groups() {
        return groups;
    }

    /** The number of whole frames. */
    public long frameCount() {
        long n = 0;
        for (Block b : blocks) {
            n += b.frames();
        }
        return n;
    }

    /** The time of the first whole frame; empty when there is none. */
    public Optional<Instant> start() {
        return blocks.isEmpty() ? Optional.empty() : Optional.of(new Frame(blocks.get(0).first(), "", "", false).at());
    }

    /** The time of the last whole frame; empty when there is none. */
    public Optional<Instant> end() {
        return blocks.isEmpty() ? Optional.empty()
                : Optional.of(new Frame(blocks.get(blocks.size() - 1).last(), "", "", false).at());
    }

    /** Where a cut or corrupt file's whole part ends; empty when the whole file is whole. */
    public Optional<Damage> damage() {
        return Optional.ofNullable(damage);
    }

    /** The bytes of the whole part (the file's size when undamaged). */
    public long validBytes() {
        return validBytes;
    }

    /** When recording began (the header's {@code started_at}). */
    public Instant startedAt() {
        return Instant.parse(header.path("started_at").asText("1970-01-01T00:00:00Z"));
    }

    /** {@code local} or {@code remote}. */
    public String sourceKind() {
        return header.path("source_kind").asText("local");
    }

    /** The workspace directory or the daemon's URL that was recorded. */
    public String source() {
        return header.path("source").asText("");
    }

    /** The workspace's root on the host that was recorded. */
    public String workspaceRoot() {
        return header.path("workspace_root").asText("/");
    }

    /** The recorded workspace's default startup timeout. */
    public Duration defaultStartupTimeout() {
        return Duration.ofMillis(header.path("default_startup_timeout_ms").asLong(30_000));
    }

    /** The header as JSON text (for {@code kiln record --info}). */
    public String headerJson() {
        return header.toString();
    }
}
