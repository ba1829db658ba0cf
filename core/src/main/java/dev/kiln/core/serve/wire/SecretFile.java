package dev.kiln.core.serve.wire;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one reader of the secret files the operator points Kiln at: a client's token file (a copy of a daemon's
 * {@code observer/api-token}), the daemon's own token file, and {@code kiln serve --tls-password-file}. Such a file
 * holds exactly one line, the secret; anything else is refused, and no message ever quotes a byte of it (a
 * {@code token_file} of {@code /etc/shadow} must not end up on a terminal or in a log).
 *
 * <p>Only a regular file is read (a symlink to one is fine: the operator chose the path). A FIFO, socket, device or
 * directory is refused on its {@code stat}, without being opened: opening a FIFO blocks until a writer comes, and
 * {@code /dev/zero} never ends. Java 17 cannot open with {@code O_NONBLOCK}, so a FIFO swapped in between the
 * {@code stat} and the open could still block the open: the open alone runs on a small pool of daemon threads and
 * the caller waits at most {@link #OPEN_TIMEOUT_MILLIS} (a regular file opens in microseconds; a thread still stuck is
 * abandoned and closes what it opens if the open ever returns). The read is positional ({@code pread}), which fails
 * at once on a pipe or socket that did open, and stops after {@link #MAX_BYTES} + 1 bytes, whatever was swapped in.
 *
 * <p>A file other users can read is used, with one warning per file and mode per process (logged: on a command's
 * stderr, in the console's log): the daemon writes its own token mode 600, and a copy or a password file should be
 * as private.
 *
 * <p>Concurrency: any thread may read; at most {@link #MAX_STUCK} abandoned opens may be stuck at once, past that a
 * read is refused at once rather than piling up threads.
 */
public final class SecretFile {
    /** Far more than a token (65 bytes) or any password line; a larger file is refused without being read. */
    public static final int MAX_BYTES = 4096;
    static final long OPEN_TIMEOUT_MILLIS = 2_000;
    static final int MAX_STUCK = 8;

    private static final Logger LOG = LoggerFactory.getLogger(SecretFile.class);
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();
    /** Opens given up on whose {@code open(2)} has not returned yet. */
    private static final AtomicInteger STUCK = new AtomicInteger();
    /** A thread per open while it runs (callers bound how many run at once), none once idle for 10 s. */
    private static final ThreadPoolExecutor OPENERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 10, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "kiln-secret-open");
                t.setDaemon(true);
                return t;
            });

    /** What a secret file holds, for messages and for what its line may contain. */
    public enum Kind {
        /** A bearer token: visible ASCII without spaces, as an HTTP header carries it. */
        API_TOKEN("API token file", "the daemon's token (a copy of its observer/api-token)"),
        /** A keystore's password: any text on one line. */
        TLS_PASSWORD("TLS password file", "the keystore's password (--tls-password-file)");

        private final String noun;
        private final String line;

        Kind(String noun, String line) {
            this.noun = noun;
            this.line = line;
        }
    }

    private SecretFile() {
    }

    /**
     * The one line of {@code file}, without its line end ({@code \n} or {@code \r\n}).
     *
     * @throws IOException naming the file, what is wrong with it and what it must hold; never its content. The
     *     message starts with "cannot read the API token file" or "cannot read the TLS password file".
     */
    public static String read(Path file, Kind kind) throws IOException {
        BasicFileAttributes a;
        try {
            a = attributes(file);
        } catch (NoSuchFileException e) {
            throw refused(file, kind, "it does not exist");
        } catch (IOException e) {
            throw refused(file, kind, why(e), e);
        }
        if (!a.isRegularFile()) {
            throw refused(file, kind, "it is " + type(file, a) + ", not a regular file; special files are never read");
        }
        if (a.size() > MAX_BYTES) {
            throw refused(file, kind, "it is " + a.size() + " bytes, more than one line of a secret needs (at most "
                    + MAX_BYTES + ")");
        }
        byte[] bytes;
        try (FileChannel ch = open(file, OPEN_TIMEOUT_MILLIS)) {
            bytes = readBounded(ch);
        } catch (TooLarge e) {
            throw refused(file, kind, "it grew past " + MAX_BYTES + " bytes while being read, more than one line of a"
                    + " secret needs");
        } catch (IOException e) {
            throw refused(file, kind, m(e).contains("Illegal seek")
                    ? "it was swapped for a FIFO or socket while being opened; special files are never read" : why(e), e);
        }
        String line = oneLine(file, kind, bytes);
        warnIfShared(file, kind, a); // only for a file that is used: a refused one gets its refusal
        return line;
    }

    /** The line of {@code bytes}: exactly one, not empty, ended by at most one line end; a token's characters checked. */
    private static String oneLine(Path file, Kind kind, byte[] bytes) throws IOException {
        int end = bytes.length;
        if (end > 0 && bytes[end - 1] == '\n') {
            end--;
            if (end > 0 && bytes[end - 1] == '\r') {
                end--;
            }
        }
        int lines = 1;
        for (int i = 0; i < end; i++) {
            if (bytes[i] == '\n') {
                lines++;
            }
        }
        if (lines > 1) {
            throw refused(file, kind, "it holds " + lines + " lines");
        }
        if (end == 0) {
            throw refused(file, kind, bytes.length == 0 ? "it is empty" : "its line is empty");
        }
        String line;
        try {
            line = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, 0, end)).toString();
        } catch (CharacterCodingException e) {
            throw refused(file, kind, "it is not text (not UTF-8)");
        }
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            boolean ok = kind == Kind.API_TOKEN ? c > ' ' && c < 0x7f : c == '\t' || !Character.isISOControl(c);
            if (!ok) {
                throw refused(file, kind, kind == Kind.API_TOKEN
                        ? "its line is not a token (a token is letters, digits and punctuation, without spaces)"
                        : "its line holds control characters");
            }
        }
        return line;
    }

    /** Opens {@code file} for reading, waiting at most {@code timeoutMillis} for {@code open(2)} to return. */
    public static FileChannel open(Path file, long timeoutMillis) throws IOException {
        if (STUCK.get() >= MAX_STUCK) {
            throw new IOException("not opened: " + MAX_STUCK + " earlier opens of special files are still blocked");
        }
        CompletableFuture<FileChannel> opened = new CompletableFuture<>();
        OPENERS.execute(() -> {
            try {
                FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
                if (!opened.complete(ch)) {
                    ch.close(); // the caller gave up on it
                }
            } catch (Throwable t) {
                opened.completeExceptionally(t);
            } finally {
                if (opened.isCancelled()) {
                    STUCK.decrementAndGet(); // given up on, and now returned
                }
            }
        });
        try {
            return opened.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            if (giveUp(opened)) {
                throw new IOException("it did not open within " + timeoutMillis + " ms (a FIFO swapped in?); given up");
            }
            return opened.join(); // opened just now
        } catch (InterruptedException e) {
            if (!giveUp(opened)) {
                opened.join().close();
            }
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while opening " + file);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
    }

    /** Abandons an open still running, counting it as stuck until it returns; false when it finished meanwhile. */
    private static boolean giveUp(CompletableFuture<FileChannel> opened) {
        STUCK.incrementAndGet(); // before the cancel: the opener's decrement must never come first
        if (opened.cancel(false)) {
            return true;
        }
        STUCK.decrementAndGet();
        return false;
    }

    /**
     * At most {@link #MAX_BYTES} bytes, read with positional reads (they fail at once on a pipe or socket).
     *
     * @throws IOException ({@link TooLarge}) when there are more: a file that grew, or a device swapped in
     */
    public static byte[] readBounded(FileChannel ch) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(MAX_BYTES + 1);
        long pos = 0;
        while (buf.hasRemaining()) {
            int n = ch.read(buf, pos);
            if (n < 0) {
                break;
            }
            pos += n;
        }
        if (!buf.hasRemaining()) {
            throw new TooLarge();
        }
        byte[] out = new byte[buf.position()];
        buf.flip().get(out);
        return out;
    }

    public static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;
    }

    private static BasicFileAttributes attributes(Path file) throws IOException {
        try {
            return Files.readAttributes(file, PosixFileAttributes.class); // follows a symlink: stat, not lstat
        } catch (UnsupportedOperationException e) {
            return Files.readAttributes(file, BasicFileAttributes.class);
        }
    }

    /** Warns once per file and mode when others than its owner may read it. */
    private static void warnIfShared(Path file, Kind kind, BasicFileAttributes a) {
        if (!(a instanceof PosixFileAttributes p)) {
            return;
        }
        Set<PosixFilePermission> mode = p.permissions();
        if (!mode.contains(PosixFilePermission.GROUP_READ) && !mode.contains(PosixFilePermission.OTHERS_READ)) {
            return;
        }
        String perms = PosixFilePermissions.toString(mode);
        if (WARNED.add(file.toAbsolutePath() + " " + perms)) {
            LOG.warn("the {} {} can be read by other users (mode {}, {}); make it private: chmod 600 {}", kind.noun, file,
                    octal(mode), perms, file);
        }
    }

    private static String octal(Set<PosixFilePermission> mode) {
        int bits = 0;
        for (PosixFilePermission p : mode) {
            bits |= 1 << (8 - p.ordinal()); // OWNER_READ is ordinal 0, the highest of the nine bits
        }
        return String.format("%03o", bits);
    }

    private static String type(Path file, BasicFileAttributes a) {
        if (a.isDirectory()) {
            return "a directory";
        }
        try {
            return switch ((Integer) Files.getAttribute(file, "unix:mode") & 0170000) {
                case 0010000 -> "a FIFO";
                case 0140000 -> "a socket";
                case 0020000, 0060000 -> "a device";
                default -> "a special file";
            };
        } catch (IOException | RuntimeException e) {
            return "a special file (a FIFO, socket or device)";
        }
    }

    private static IOException refused(Path file, Kind kind, String problem) {
        return refused(file, kind, problem, null);
    }

    private static IOException refused(Path file, Kind kind, String problem, @Nullable Throwable cause) {
        return new IOException("cannot read the " + kind.noun + " " + file + ": " + problem + "; it must hold one line: "
                + kind.line, cause);
    }

    /** An I/O failure in words that never carry the file's content (the JDK's messages name paths, not bytes). */
    private static String why(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason(); // without the path, which the message names already
        }
        return m(e).isEmpty() ? e.getClass().getSimpleName() : m(e);
    }

    private static String m(Throwable e) {
        return e.getMessage() == null ? "" : e.getMessage();
    }
}
