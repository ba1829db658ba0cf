package dev.kiln.core.serve;

import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * One daemon per workspace: an OS file lock on {@code observer/serve.lock}, held while the daemon runs and released
 * by the OS if the process dies. The file says which process holds it and, once its API listens, where (so the
 * refusal can name it and a console can follow it instead of competing with it).
 */
public final class ServeLock implements AutoCloseable {
    /** The lock file's name inside {@code observer/}. */
    static final String FILE_NAME = "serve.lock";

    /**
     * Locks this JVM holds, by file. POSIX locks belong to the process, and closing <em>any</em> channel of a locked
     * file drops them all; so a file locked here is never opened again to probe or retry.
     */
    private static final java.util.concurrent.ConcurrentHashMap<Path, ServeLock> HELD = new java.util.concurrent.ConcurrentHashMap<>();

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;

    private ServeLock(Path file, FileChannel channel, FileLock lock) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code layout}'s workspace.
     *
     * @throws WorkspaceException when another daemon holds it (naming its pid) or the file cannot be created
     */
    static ServeLock acquire(WorkspaceLayout layout) {
        Path file = layout.observerDir().resolve(FILE_NAME);
        ServeLock mine = heldHere(file);
        if (mine != null) { // reading the file here would drop this process's own lock: see HELD
            throw new WorkspaceException("another " + mine.self().describe() + " is already serving " + layout.root()
                    + " (lock " + file + "); stop it first, or connect to it");
        }
        FileChannel ch = null;
        try {
            Files.createDirectories(file.getParent());
            ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                l = null; // held by this very JVM
            }
            if (l == null) {
                String holder = holder(file);
                ch.close();
                throw new WorkspaceException("another kiln serve" + holder + " is already serving " + layout.root()
                        + " (lock " + file + "); stop it first, or connect to it");
            }
            ServeLock lock = new ServeLock(file, ch, l);
            lock.record(null, null);
            HELD.put(key(file), lock);
            return lock;
        } catch (IOException e) {
            try {
                if (ch != null) {
                    ch.close();
                }
            } catch (IOException ignored) {
                // the original failure is what matters
            }
            throw new WorkspaceException("cannot take the serve lock " + file + ": " + e.getMessage(), e);
        }
    }

    private static Path key(Path file) {
        return file.toAbsolutePath().normalize();
    }

    private static ServeLock heldHere(Path file) {
        return HELD.get(key(file));
    }

    /**
     * Records where this daemon's API listens, for {@link #holder}, and with TLS its certificate's fingerprint: a
     * local client trusts exactly that certificate (the file is as trustworthy as the token file beside it).
     */
    void announce(URI url, @org.jspecify.annotations.Nullable String tlsSha256) throws IOException {
        record(url, tlsSha256);
    }

    private volatile URI announced;
    private volatile @org.jspecify.annotations.Nullable String announcedPin;

    private Holder self() {
        return new Holder(ProcessHandle.current().pid(), announced, announcedPin);
    }

    private void record(URI url, @org.jspecify.annotations.Nullable String tlsSha256) throws IOException {
        announced = url;
        announcedPin = tlsSha256;
        String text = "pid " + ProcessHandle.current().pid() + "\n" + (url == null ? "" : "url " + url + "\n")
                + (tlsSha256 == null ? "" : "tls_sha256 " + tlsSha256 + "\n");
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)), 0);
        channel.force(false);
    }

    /**
     * The daemon serving {@code layout}'s workspace right now, if any: its pid and (once its API listens) its URL.
     * Empty when no process holds the lock, whatever the file says (a killed daemon leaves the file behind).
     */
    public static Optional<Holder> holder(WorkspaceLayout layout) {
        Path file = layout.observerDir().resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        ServeLock mine = heldHere(file);
        if (mine != null) {
            return Optional.of(mine.self());
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            FileLock probe = ch.tryLock(0, Long.MAX_VALUE, true);
            if (probe != null) {
                probe.release();
                return Optional.empty(); // nobody holds it
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // unreadable: nothing to follow
        }
        try {
            long pid = -1;
            URI url = null;
            String pin = null;
            for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
                if (line.startsWith("tls_sha256 ")) {
                    pin = line.substring("tls_sha256 ".length()).trim();
                }
                if (line.startsWith("pid ")) {
                    pid = Long.parseLong(line.substring(4).trim());
                } else if (line.startsWith("url ")) {
                    url = URI.create(line.substring(4).trim());
                }
            }
            return Optional.of(new Holder(pid, url, pin));
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // unreadable: nothing to follow
        }
    }

    /**
     * A running daemon, as its lock file names it.
     *
     * @param pid its process id, or -1 if the file does not say
     * @param url its API's base URL, or null before its API listens
     * @param tlsSha256 the SHA-256 fingerprint of its TLS certificate, or null when its API is plain HTTP
     */
    public record Holder(long pid, URI url, @org.jspecify.annotations.Nullable String tlsSha256) {
        public Holder(long pid, URI url) {
            this(pid, url, null);
        }

        /** "kiln serve (pid 123)". */
        public String name() {
            return "kiln serve" + (pid > 0 ? " (pid " + pid + ")" : "");
        }

        /** "kiln serve (pid 123) at http://…", for messages. */
        public String describe() {
            return name() + (url == null ? "" : " at " + url);
        }
    }

    private static String holder(Path file) {
        try {
            String s = Files.readString(file, StandardCharsets.US_ASCII).trim();
            return s.startsWith("pid ") ? " (" + s + ")" : "";
        } catch (IOException e) {
            return "";
        }
    }

    Path file() {
        return file;
    }

    /** Releases the lock; the file stays (harmless: a lock is the OS lock, not the file's existence). */
    @Override
    public void close() {
        HELD.remove(key(file), this);
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            // the OS drops the lock with the process anyway
        }
    }
}
