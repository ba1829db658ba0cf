package dev.kiln.core.archive;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import org.jspecify.annotations.Nullable;

/**
 * Gzip at level 6, compressed in fixed-size chunks on all cores while the tar is still being written (the
 * pigz scheme), with bytes that do not depend on the number of threads: chunk boundaries are fixed offsets,
 * each chunk is primed with the 32 KiB that precede it (so the ratio stays gzip's) and ends with a sync
 * flush, the last one with the final block. The tar lives in chunk-sized arrays, never in one large buffer
 * that grows by copying. The header carries nothing that varies: no timestamp, no name, XFL 0, OS 3 (Unix,
 * like {@code gzip -n}); {@link java.util.zip.GZIPOutputStream}'s OS byte changed between JDK releases.
 *
 * <p>Not thread-safe: one writer; the chunks it fills are handed to the common pool and never touched again.
 */
final class ParallelGzip extends OutputStream {
    /** Level 6: zlib's default and GNU gzip's, so size and speed compare like for like. */
    static final int LEVEL = 6;
    static final int CHUNK = 128 * 1024;
    private static final int WINDOW = 32 * 1024;
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};

    /**
     * Chunks handed to the pool and not yet collected, at most {@link #IN_FLIGHT}: the writer waits for the oldest
     * instead of queueing the whole input uncompressed (a 1.5 GiB file peaked at 6 GB of heap).
     */
    private static final int IN_FLIGHT = Math.max(4, 4 * Runtime.getRuntime().availableProcessors());

    private final java.util.ArrayDeque<ForkJoinTask<byte[]>> inFlight = new java.util.ArrayDeque<>();
    /** Compressed chunks, in order; the tasks themselves are dropped (they would keep their input alive). */
    private final List<byte[]> parts = new ArrayList<>();
    private final CRC32 crc = new CRC32();
    private byte[] current = new byte[CHUNK];
    private byte @Nullable [] previous;
    private int pos;
    private long total;

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        while (len > 0) {
            int n = Math.min(len, CHUNK - pos);
            System.arraycopy(b, off, current, pos, n);
            pos += n;
            off += n;
            len -= n;
            if (pos == CHUNK) {
                submitFull();
            }
        }
    }

    private void submitFull() {
        byte[] chunk = current;
        byte[] dict = previous;
        crc.update(chunk, 0, CHUNK);
        total += CHUNK;
        if (inFlight.size() >= IN_FLIGHT) {
            parts.add(inFlight.poll().join());
        }
        inFlight.add(ForkJoinPool.commonPool().submit(() -> deflate(chunk, CHUNK, dict, false)));
        previous = chunk;
        current = new byte[CHUNK];
        pos = 0;
    }

    /** Compresses what is left (this thread) and joins the rest: the complete gzip member. */
    byte[] finish() {
        crc.update(current, 0, pos);
        total += pos;
        byte[] last = deflate(current, pos, previous, true);
        List<ForkJoinTask<byte[]>> pending = new ArrayList<>(inFlight);
        inFlight.clear();
        byte[][] tail = new byte[pending.size()][];
        // Newest first: a worker takes the oldest chunks, and an external join runs a task itself while it is
        // still on top of the submission queue, so this thread compresses from the other end.
        for (int i = tail.length - 1; i >= 0; i--) {
            tail[i] = pending.get(i).join();
        }
        parts.addAll(List.of(tail));
        List<byte[]> done = parts;
        long longSize = HEADER.length + last.length + 8L;
        for (byte[] p : done) {
            longSize += p.length;
        }
        if (longSize > Integer.MAX_VALUE - 8) {
            throw new ArchiveException("the archive would be " + longSize + " bytes compressed, more than one archive"
                    + " can hold in memory (2 GiB); exclude the largest files or archive fewer members");
        }
        int size = (int) longSize;
        byte[] out = new byte[size];
        System.arraycopy(HEADER, 0, out, 0, HEADER.length);
        int at = HEADER.length;
        for (byte[] p : done) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        System.arraycopy(last, 0, out, at, last.length);
        at += last.length;
        putIntLe(out, at, (int) crc.getValue());
        putIntLe(out, at + 4, (int) total);
        return out;
    }

    private static byte[] deflate(byte[] data, int len, byte @Nullable [] dict, boolean last) {
        Deflater d = new Deflater(LEVEL, true);
        try {
            if (dict != null) {
                d.setDictionary(dict, dict.length - WINDOW, WINDOW);
            }
            d.setInput(data, 0, len);
            ByteArrayOutputStream out = new ByteArrayOutputStream(len / 3 + 64);
            byte[] buf = new byte[64 * 1024];
            if (last) {
                d.finish();
                while (!d.finished()) {
                    out.write(buf, 0, d.deflate(buf));
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
