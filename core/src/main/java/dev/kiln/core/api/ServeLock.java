package dev.kiln.core.api;

import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One daemon per workspace: an OS file lock on {@code observer/serve.lock}, held while the daemon runs and released
 * by the OS if the process dies. The file says which process holds it, so the refusal can name it.
 */
public final class ServeLock implements AutoCloseable {
    /** The lock file's name inside {@code observer/}. */
    public static final String FILE_NAME = "serve.lock";

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
    public static ServeLock acquire(WorkspaceLayout layout) {
        Path file = layout.observerDir().resolve(FILE_NAME);
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
            ch.truncate(0);
            ch.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            ch.force(false);
            return new ServeLock(file, ch, l);
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

    private static String holder(Path file) {
        try {
            String s = Files.readString(file, StandardCharsets.US_ASCII).trim();
            return s.startsWith("pid ") ? " (" + s + ")" : "";
        } catch (IOException e) {
            return "";
        }
    }

    public Path file() {
        return file;
    }

    /** Releases the lock; the file stays (harmless: a lock is the OS lock, not the file's existence). */
    @Override
    public void close() {
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            // the OS drops the lock with the process anyway
        }
    }
}
