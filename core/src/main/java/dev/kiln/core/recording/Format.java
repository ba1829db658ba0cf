package dev.kiln.core.recording;

import org.jspecify.annotations.Nullable;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The bytes of a recording ({@code docs/RECORDING.md} is the specification; keep the two together):
 *
 * <pre>
 * file   = magic "KILNREC\n" (8 bytes), version u16, header length u32, header (UTF-8 JSON), header CRC32 u32, block*
 * block  = "KBLK" u32, flags u8 (bit 0: KEY, a keyframe group starts), frames u32, first µs i64, last µs i64,
 *          raw length u32, compressed length u32, CRC32 u32 (of the 33 header bytes before it and the compressed bytes),
 *          compressed bytes
 * frame  = time µs i64 (since the epoch), flags u8 (bit 0: CONTEXT, a repeat that restores the state at a keyframe),
 *          event length u16, event (UTF-8), data length u32, data (UTF-8 JSON)
 * </pre>
 *
 * <p>All integers big-endian. The blocks of one keyframe group are one raw DEFLATE stream (no zlib or gzip
 * wrapper) cut with a sync flush at each block's end: a block is whole when its CRC holds, and a reader inflates a
 * group's blocks in order. A group starts with a KEY block whose first frame is a {@code snapshot} (the whole state
 * document), so everything before a group can be dropped and a seek starts at a group.
 *
 * <p>Concurrency: stateless.
 */
final class Format {
    static final byte[] MAGIC = "KILNREC\n".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION = 1;
    static final int BLOCK_MAGIC = 0x4B424C4B; // "KBLK"
    static final int BLOCK_HEAD = 4 + 1 + 4 + 8 + 8 + 4 + 4; // up to the CRC
    static final int BLOCK_HEADER = BLOCK_HEAD + 4;
    static final int KEY = 1;
    static final int CONTEXT = 1;
    /** A header longer than this is no recording's: refuse instead of allocating it. */
    static final int MAX_HEADER = 1 << 20;
    /** The most a block may hold, raw or compressed: a bound against a corrupt length. */
    static final int MAX_BLOCK = 256 << 20;

    private Format() {
    }

    static byte[] fileHeader(byte[] headerJson) {
        ByteBuffer b = ByteBuffer.allocate(MAGIC.length + 2 + 4 + headerJson.length + 4);
        b.put(MAGIC).putShort((short) VERSION).putInt(headerJson.length).put(headerJson);
        CRC32 crc = new CRC32();
        crc.update(headerJson);
        b.putInt((int) crc.getValue());
        return b.array();
    }

    /** A block's header (with its CRC over the header and {@code compressed}) followed by {@code compressed}. */
    static byte[] block(int flags, int frames, long firstMicros, long lastMicros, int rawLength, byte[] compressed) {
        ByteBuffer b = ByteBuffer.allocate(BLOCK_HEADER + compressed.length);
        b.putInt(BLOCK_MAGIC).put((byte) flags).putInt(frames).putLong(firstMicros).putLong(lastMicros).putInt(rawLength)
                .putInt(compressed.length);
        CRC32 crc = new CRC32();
        crc.update(b.array(), 0, BLOCK_HEAD);
        crc.update(compressed);
        b.putInt((int) crc.getValue()).put(compressed);
        return b.array();
    }

    static void frame(DataOutputStream out, long micros, int flags, String event, byte[] data) throws IOException {
        byte[] name = event.getBytes(StandardCharsets.UTF_8);
        out.writeLong(micros);
        out.writeByte(flags);
        out.writeShort(name.length);
        out.write(name);
        out.writeInt(data.length);
        out.write(data);
    }

    /** The next frame of a group's inflated bytes, or null at the end of what has been inflated. */
    static Recording.@Nullable Frame readFrame(DataInputStream in) throws IOException {
        long micros;
        try {
            micros = in.readLong();
        } catch (EOFException e) {
            return null;
        }
        int flags = in.readUnsignedByte();
        byte[] name = new byte[in.readUnsignedShort()];
        in.readFully(name);
        int length = in.readInt();
        if (length < 0 || length > MAX_BLOCK) {
            throw new IOException("a frame claims " + Integer.toUnsignedString(length) + " bytes of data");
        }
        byte[] data = new byte[length];
        in.readFully(data);
        return new Recording.Frame(micros, new String(name, StandardCharsets.UTF_8), new String(data, StandardCharsets.UTF_8),
                (flags & CONTEXT) != 0);
    }

    /** A growable buffer whose bytes can be read without a copy. */
    static final class Buffer extends ByteArrayOutputStream {
        Buffer(int size) {
            super(size);
        }

        byte[] array() {
            return buf;
        }
    }
}
