package dev.kiln.core.startup;

import java.nio.ByteBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The last {@link Conversation#STDERR_LIMIT_BYTES} bytes a server wrote to stderr, as a ring, and how many it wrote in
 * all: a server that writes megabytes costs 64 KiB.
 *
 * <p>Concurrency: appended by the stderr reader thread, read by the handshake thread at the end; every method is
 * synchronized.
 */
final class StderrTail {
    /** Nothing was read (an HTTP server, a spawn that failed). */
    static final StderrTail NONE = new StderrTail(1);

    private final byte[] ring; // guarded by this
    private long total; // guarded by this

    StderrTail() {
        this(Conversation.STDERR_LIMIT_BYTES);
    }

    StderrTail(int capacity) {
        ring = new byte[capacity];
    }

    synchronized void append(byte[] buf, int off, int len) {
        for (int i = 0; i < len; i++) {
            ring[(int) ((total + i) % ring.length)] = buf[off + i];
        }
        total += len;
    }

    synchronized long total() {
        return total;
    }

    synchronized boolean truncated() {
        return total > ring.length;
    }

    /** What is kept, decoded; when cut, from the first line start inside it (a split character becomes U+FFFD). */
    synchronized String text() {
        int kept = (int) Math.min(total, ring.length);
        byte[] out = new byte[kept];
        long from = total - kept;
        for (int i = 0; i < kept; i++) {
            out[i] = ring[(int) ((from + i) % ring.length)];
        }
        int start = 0;
        if (truncated()) {
            for (int i = 0; i < kept; i++) {
                if (out[i] == '\n') {
                    start = i + 1;
                    break;
                }
            }
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        try {
            return decoder.decode(ByteBuffer.wrap(out, start, kept - start)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return new String(out, start, kept - start, StandardCharsets.UTF_8); // REPLACE never throws; for the compiler
        }
    }
}
