package dev.kiln.core.archive;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
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
        Pipeline p = new Pipeline();
        return p.finish(data, length);
    }

    /**
     * Compresses chunks while the tar is still being written: {@link #offer} hands every complete chunk to the
     * common pool as soon as it (and the window before it) exists; {@link #finish} does the rest and joins in
     * order. The producer only ever appends, so a chunk's bytes never change after they are offered, even if
     * the buffer holding them is later replaced by a larger copy.
     */
    static final class Pipeline {
        private final List<ForkJoinTask<byte[]>> parts = new ArrayList<>();

        /** Submits every complete chunk of {@code data[0, length)} not yet submitted (never the last one). */
        void offer(byte[] data, int length) {
            while ((parts.size() + 1L) * CHUNK < length) {
                int off = parts.size() * CHUNK;
                parts.add(ForkJoinPool.commonPool().submit(() -> deflateChunk(data, off, CHUNK, false)));
            }
        }

        byte[] finish(byte[] data, int length) {
            int chunks = Math.max(1, (length + CHUNK - 1) / CHUNK);
            List<ForkJoinTask<byte[]>> all = new ArrayList<>(parts);
            for (int i = parts.size(); i < chunks - 1; i++) {
                int off = i * CHUNK;
                all.add(ForkJoinPool.commonPool().submit(() -> deflateChunk(data, off, CHUNK, false)));
            }
            int lastOff = (chunks - 1) * CHUNK;
            byte[] last = deflateChunk(data, lastOff, length - lastOff, true);
            byte[][] out = new byte[chunks][];
            // Newest first: a worker takes the oldest chunks, and an external join runs the task itself when it
            // is still on top of the submission queue, so this thread compresses from the other end.
            for (int i = chunks - 2; i >= 0; i--) {
                out[i] = all.get(i).join();
            }
            out[chunks - 1] = last;
            return assemble(out, data, length);
        }
    }

    private static byte[] assemble(byte[][] parts, byte[] data, int length) {
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
