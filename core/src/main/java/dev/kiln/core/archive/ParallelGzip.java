package dev.kiln.core.archive;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.stream.IntStream;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Gzip at level 6, compressed in fixed-size chunks on all cores (the pigz scheme), with bytes that do not
 * depend on the number of threads: chunk boundaries are fixed offsets, each chunk is primed with the 32 KiB
 * that precede it (so the ratio stays gzip's) and ends with a sync flush, the last one with the final block.
 * The header carries nothing that varies: no timestamp, no name, XFL 0, OS 3 (Unix, like {@code gzip -n});
 * {@link java.util.zip.GZIPOutputStream}'s OS byte changed between JDK releases, so it is not used.
 */
final class ParallelGzip {
    /** Level 6: zlib's default and GNU gzip's, so size and speed compare like for like. */
    static final int LEVEL = 6;
    static final int CHUNK = 128 * 1024;
    private static final int WINDOW = 32 * 1024;
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};

    private ParallelGzip() {
    }

    /** The gzip of {@code data[0, length)}. */
    static byte[] compress(byte[] data, int length) {
        int chunks = Math.max(1, (length + CHUNK - 1) / CHUNK);
        IntStream indices = IntStream.range(0, chunks);
        byte[][] parts = (chunks > 1 ? indices.parallel() : indices)
                .mapToObj(i -> deflateChunk(data, i * CHUNK, Math.min(CHUNK, length - i * CHUNK), i == chunks - 1))
                .toArray(byte[][]::new);
        CRC32 crc = new CRC32();
        crc.update(data, 0, length);
        int total = HEADER.length + 8;
        for (byte[] p : parts) {
            total += p.length;
        }
        byte[] out = Arrays.copyOf(HEADER, total);
        int at = HEADER.length;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        putIntLe(out, at, (int) crc.getValue());
        putIntLe(out, at + 4, length);
        return out;
    }

    private static byte[] deflateChunk(byte[] data, int off, int len, boolean last) {
        Deflater d = new Deflater(LEVEL, true);
        try {
            if (off > 0) {
                int dict = Math.min(WINDOW, off);
                d.setDictionary(data, off - dict, dict);
            }
            d.setInput(data, off, len);
            ByteArrayOutputStream out = new ByteArrayOutputStream(len / 3 + 64);
            byte[] buf = new byte[64 * 1024];
            if (last) {
                d.finish();
                while (!d.finished()) {
                    int n = d.deflate(buf);
                    out.write(buf, 0, n);
                }
            } else {
                int n;
                do {
                    n = d.deflate(buf, 0, buf.length, Deflater.SYNC_FLUSH);
                    out.write(buf, 0, n);
                } while (n == buf.length || !d.needsInput());
            }
            return out.toByteArray();
        } finally {
            d.end();
        }
    }

    private static void putIntLe(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }
}
