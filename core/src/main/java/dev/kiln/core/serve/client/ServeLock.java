package dev.kiln.core.serve.client;

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
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One writer per workspace: an exclusive OS file lock on {@code observer/serve.lock}, held while its owner (a
 * {@code kiln serve} or a console that took the workspace over) runs, and released by the OS if the process dies.
 * The file says who holds it ({@code kind}, {@code pid}, once its API listens {@code url}, with TLS
 * {@code tls_sha256}), so a refusal can name it and a console can follow it. Only the lock decides who owns the
 * workspace; the content is written only by the process holding the lock, after it took it.
 *
 * <p>Concurrency: POSIX locks belong to the process, and closing <em>any</em> descriptor of the locked file in it
 * (or unlocking any range of it) drops them. So every open of a lock file in this JVM — taking it, probing who
 * holds it, reading it — happens under one JVM-wide monitor, and a file this JVM holds (recorded under that monitor
 * before the monitor is let go, by the file's real path) is never opened again: its holder is answered from memory.
 * Without that, a reader on another thread closing its descriptor while a take-over locked the file dropped the
 * new owner's lock, and a {@code kiln serve} started then became a second writer.
 */
public final class ServeLock implements AutoCloseable {
    /** The lock file's name inside {@code observer/}. */
    static final String FILE_NAME = "serve.lock";

    /** Guards {@link #HELD} and every open of a lock file in this JVM (see the class comment). */
    private static final Object FILES = new Object();
    /** Locks this JVM holds, by the lock file's real path. */
    private static final Map<Path, ServeLock> HELD = new HashMap<>(); // @GuardedBy("FILES")

    /** Which kind of process holds a workspace's lock: recorded in the lock file, named in refusals. */
    public enum Kind {
        /** A {@code kiln serve} daemon. */
        SERVE("serve", "kiln serve"),
        /** A Kiln console that owns the workspace with its own daemon (it took it over, or nobody served it). */
        CONSOLE("console", "a Kiln console");

        private final String word;
        private final String label;

        Kind(String word, String label) {
            this.word = word;
            this.label = label;
        }

        /** "kiln serve", "a Kiln console". */
        public String label() {
            return label;
        }

        /** The word in the lock file's {@code kind} line. */
        public String word() {
            return word;
        }

        static Kind of(String word) {
            for (Kind k : values()) {
                if (k.word.equals(word.trim().toLowerCase(Locale.ROOT))) {
                    return k;
                }
            }
            return SERVE; // a lock file of a Kiln before kinds were recorded: only kiln serve took it then
        }
    }

    private final Path file;
    private final Path key;
    private final Kind kind;
    private final FileChannel channel;
    private final FileLock lock;
    private volatile @Nullable URI announced;
    private volatile @Nullable String announcedPin;

    private ServeLock(Path file, Path key, Kind kind, FileChannel channel, FileLock lock) {
        this.file = file;
        this.key = key;
        this.kind = kind;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code layout}'s workspace for a holder of {@code kind}: the exclusive OS lock first, then
     * (holding it) the file's content.
     *
     * @throws WorkspaceException when another process (or this one) holds it, naming who and what to do, or when the
     *     file cannot be created
     */
    public static ServeLock acquire(WorkspaceLayout layout, Kind kind) {
        long deadline = System.nanoTime() + PROBE_PATIENCE.toNanos();
        while (true) {
            Attempt a = attempt(layout, kind);
            if (a.lock != null) {
                return a.lock;
            }
            // A reader probing who holds the lock (a follower, kiln status, kiln project) holds a shared lock for a
            // moment: that is no owner, and the file may still name a process that has let the lock go. An owner
            // holds an exclusive lock, and keeps it.
            if (a.exclusive || System.nanoTime() - deadline > 0) {
                throw refusal(layout, a.other);
            }
            try {
                Thread.sleep(PROBE_PAUSE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw refusal(layout, a.other);
            }
        }
    }

    /** How long a start waits out a lock held by no named owner (a reader's probe) before it refuses. */
    private static final java.time.Duration PROBE_PATIENCE = java.time.Duration.ofSeconds(2);
    private static final long PROBE_PAUSE_MS = 20;

    /** One try: the lock, or who holds it and whether the kernel shows that hold as exclusive (an owner's). */
    private record Attempt(@Nullable ServeLock lock, Holder other, boolean exclusive) {
    }

    /**
     * Whether {@code /proc/locks} shows an exclusive POSIX lock on the inode {@code ino}; false when it shows only
     * shared ones or cannot be read (then only patience tells an owner from a reader's probe).
     */
    private static boolean exclusivelyLocked(long ino) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/locks"), StandardCharsets.US_ASCII)) {
                // "2: POSIX  ADVISORY  WRITE 28184 fe:00:10002318 0 EOF"; a waiter has "->" after the number
                String[] t = line.trim().split("\\s+");
                if (t.length > 5 && t[1].equals("POSIX") && t[3].equals("WRITE") && t[5].endsWith(":" + ino)) {
                    return true;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or hidden: fall back to patience
        }
        return false;
    }

    private static Attempt attempt(WorkspaceLayout layout, Kind kind) {
        Path file = layout.observerDir().resolve(FILE_NAME);
        synchronized (FILES) {
            FileChannel ch = null;
            try {
                Files.createDirectories(file.getParent());
                Path key = key(file);
                ServeLock mine = HELD.get(key);
                if (mine != null) { // opening the file here would drop this process's own lock
                    throw refusal(layout, mine.self());
                }
                // CREATE writes no byte; the content is written only below, once the lock is ours
                ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock l;
                try {
                    l = ch.tryLock();
                } catch (OverlappingFileLockException e) {
                    l = null; // cannot happen while every lock of this JVM is taken here; refuse if it does
                }
                if (l == null) {
                    Holder other = read(ch);
                    Object ino = Files.getAttribute(file, "unix:ino");
                    ch.close(); // this process holds no lock on the file: closing drops nothing
                    return new Attempt(null, other, ino instanceof Long i && exclusivelyLocked(i));
                }
                ServeLock lock = new ServeLock(file, key, kind, ch, l);
                HELD.put(key, lock); // before anyone else in this JVM may look at the file again
                ch = null; // the lock's now: closed by lock.close()
                try {
                    lock.record(null, null);
                } catch (IOException e) {
                    lock.close();
                    throw e;
                }
                return new Attempt(lock, lock.self(), true);
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
    }

    /** The refusal: one line saying who owns the workspace, where, and what to do. */
    private static WorkspaceException refusal(WorkspaceLayout layout, Holder h) {
        String who = h.kind() == Kind.CONSOLE
                ? "close that console (it stops projecting), or follow it: kiln attach " + (h.url() == null ? "URL" : h.url())
                : "stop it first" + (h.pid() > 0 ? " (kill " + h.pid() + ", or systemctl stop its service)" : "")
                        + ", or use it: kiln status " + (h.url() == null ? layout.root().toString() : h.url().toString());
        return new WorkspaceException(layout.root() + " is already projected by " + h.name()
                + (h.url() == null ? " (its API is not listening yet)" : ", API " + h.url())
                + "; one writer per workspace: " + who);
    }

    /** The lock file's identity: its real path (two spellings of one workspace are one lock). */
    private static Path key(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null) {
            throw new IOException("a lock file lives in a directory, not at the root: " + file);
        }
        return dir.toRealPath().resolve(file.getFileName());
    }

    /**
     * Records where this holder's API listens, for {@link #holder}, and with TLS its certificate's fingerprint: a
     * local client trusts exactly that certificate (the file is as trustworthy as the token file beside it).
     */
    public void announce(URI url, @Nullable String tlsSha256) throws IOException {
        synchronized (FILES) {
            record(url, tlsSha256);
        }
    }

    private Holder self() {
        return new Holder(ProcessHandle.current().pid(), announced, announcedPin, kind);
    }

    /** Writes the content; only ever called holding the lock, through this lock's own channel. */
    private void record(@Nullable URI url, @Nullable String tlsSha256) throws IOException {
        announced = url;
        announcedPin = tlsSha256;
        String text = "pid " + ProcessHandle.current().pid() + "\nkind " + kind.word() + "\n"
                + (url == null ? "" : "url " + url + "\n") + (tlsSha256 == null ? "" : "tls_sha256 " + tlsSha256 + "\n");
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)), 0);
        channel.force(false);
    }

    /**
     * Who owns {@code layout}'s workspace right now, if anyone: its kind, pid and (once its API listens) its URL.
     * Empty when no process holds the lock, whatever the file says (a killed daemon leaves the file behind).
     */
    public static Optional<Holder> holder(WorkspaceLayout layout) {
        Path file = layout.observerDir().resolve(FILE_NAME);
        synchronized (FILES) {
            Path key;
            try {
                key = key(file);
            } catch (IOException e) {
                return Optional.empty(); // no observer/ directory: nobody ever held it
            }
            ServeLock mine = HELD.get(key);
            if (mine != null) {
                return Optional.of(mine.self());
            }
            if (!Files.isRegularFile(file)) {
                return Optional.empty();
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                FileLock probe = ch.tryLock(0, Long.MAX_VALUE, true);
                if (probe != null) {
                    probe.release();
                    return Optional.empty(); // nobody holds it
                }
                return Optional.of(read(ch));
            } catch (IOException | RuntimeException e) {
                return Optional.empty(); // unreadable: nothing to follow
            }
        }
    }

    /**
     * What {@code layout}'s lock file records, whether or not anybody holds the lock now (a killed daemon leaves its
     * file: the doctor's evidence). This process's own lock is answered from memory: opening the file here would drop
     * the lock (closing any descriptor of a file drops the process's POSIX locks on it). Empty without a readable file.
     */
    static Optional<Holder> recorded(WorkspaceLayout layout) {
        Path file = layout.observerDir().resolve(FILE_NAME);
        synchronized (FILES) {
            try {
                ServeLock mine = HELD.get(key(file));
                if (mine != null) {
                    return Optional.of(mine.self());
                }
            } catch (IOException e) {
                return Optional.empty(); // no observer/ directory: no lock file
            }
            if (!Files.isRegularFile(file)) {
                return Optional.empty();
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                return Optional.of(read(ch));
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }
    }

    /** The holder a lock file names (another process holds it); pid -1 and no URL where it does not say. */
    private static Holder read(FileChannel ch) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4096); // the content is a few short lines; more is not a lock file of ours
        while (b.hasRemaining() && ch.read(b, b.position()) > 0) {
            // read on until full or at the end
        }
        return parse(new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII));
    }

    /** Parses the content; whatever does not parse is left out (never echoed). */
    static Holder parse(String content) {
        long pid = -1;
        URI url = null;
        String pin = null;
        Kind kind = Kind.SERVE;
        for (String line : content.split("\n")) {
            try {
                if (line.startsWith("pid ")) {
                    pid = Long.parseLong(line.substring(4).trim());
                } else if (line.startsWith("url ")) {
                    url = URI.create(line.substring(4).trim());
                } else if (line.startsWith("tls_sha256 ")) {
                    pin = line.substring("tls_sha256 ".length()).trim();
                } else if (line.startsWith("kind ")) {
                    kind = Kind.of(line.substring(5));
                }
            } catch (IllegalArgumentException e) {
                // a line of another writer: ignored
            }
        }
        return new Holder(pid, url, pin, kind);
    }

    /**
     * The owner of a workspace, as its lock file names it.
     *
     * @param pid its process id, or -1 if the file does not say
     * @param url its API's base URL, or null before its API listens
     * @param tlsSha256 the SHA-256 fingerprint of its TLS certificate, or null when its API is plain HTTP
     * @param kind a {@code kiln serve} or a console
     */
    public record Holder(long pid, @Nullable URI url, @Nullable String tlsSha256, Kind kind) {
        public Holder(long pid, URI url) {
            this(pid, url, null, Kind.SERVE);
        }

        /** "kiln serve (pid 123)", "a Kiln console (pid 123)". */
        public String name() {
            return kind.label() + (pid > 0 ? " (pid " + pid + ")" : "");
        }

        /** "kiln serve (pid 123) at http://…", for messages. */
        public String describe() {
            return name() + (url == null ? "" : " at " + url);
        }
    }

    Path file() {
        return file;
    }

    /** Releases the lock; the file stays (harmless: a lock is the OS lock, not the file's existence). */
    @Override
    public void close() {
        synchronized (FILES) {
            if (HELD.get(key) == this) {
                HELD.remove(key);
            }
            try {
                lock.release();
                channel.close();
            } catch (IOException e) {
                // the OS drops the lock with the process anyway
            }
        }
    }
}
