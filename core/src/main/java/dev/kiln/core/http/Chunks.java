package dev.kiln.core.http;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Bytes gathered in 64 KiB chunks, so that reading towards a bound of 128 MiB never holds a doubled buffer (nor
 * one huge region of the heap) before the bound is known to hold; the whole is copied out once, at its true size.
 *
 * <p>Concurrency: confined to one thread.
 */
final class Chunks {
    private static final int CHUNK = 64 * 1024;
    private final List<byte[]> full = new ArrayList<>();
    private byte[] last = new byte[CHUNK];
    private int used;
    private long size;

    long size() {
        return size;
    }

    void write(int b) {
        if (used == last.length) {
            full.add(last);
            last = new byte[CHUNK];
            used = 0;
        }
        last[used++] = (byte) b;
        size++;
    }

    void write(byte[] b, int off, int len) {
        while (len > 0) {
            if (used == last.length) {
                full.add(last);
                last = new byte[CHUNK];
                used = 0;
            }
            int n = Math.min(len, last.length - used);
            System.arraycopy(b, off, last, used, n);
            used += n;
            off += n;
            len -= n;
            size += n;
        }
    }

    /** Reads {@code in} to its end; more than {@code max} bytes throw what {@code over} makes. */
    void readFrom(InputStream in, long max, Supplier<? extends IOException> over) throws IOException {
        byte[] buf = new byte[8192];
        for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
            if (size + n > max) {
                throw over.get();
            }
            write(buf, 0, n);
        }
    }

    byte[] toByteArray() {
        byte[] out = new byte[Math.toIntExact(size)];
        int at = 0;
        for (byte[] c : full) {
            System.arraycopy(c, 0, out, at, c.length);
            at += c.length;
        }
        System.arraycopy(last, 0, out, at, used);
        return out;
    }

    void clear() {
        full.clear();
        if (last.length != CHUNK || size > CHUNK) {
            last = new byte[CHUNK];
        }
        used = 0;
        size = 0;
    }
}
