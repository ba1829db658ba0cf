package dev.kiln.core.workspace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * Replaces a file so that a concurrent reader sees either the old bytes or the new ones, never a mix:
 * temp file beside the target, fsync, keep the target's permissions, atomic rename, fsync the directory.
 *
 * <p>The temp file is named {@code .<name>.<random>.tmp}, which the watcher ignores, and is removed when
 * anything fails, so a failed write leaves the old file as it was.
 */
public final class AtomicWrite {
    private AtomicWrite() {
    }

    /** Atomically replaces (or creates) {@code target} with {@code bytes}, keeping an existing file's mode. */
    public static void write(Path target, byte[] bytes) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        if (dir == null) {
            throw new IOException(target + " is a file-system root, not a file; cannot write it");
        }
        try {
            Files.createDirectories(dir);
        } catch (java.nio.file.FileAlreadyExistsException e) {
            throw new IOException(dir + " exists and is not a directory; cannot write " + target.getFileName() + " into it", e);
        }
        Path tmp = tempBeside(target, ".tmp", bytes);
        try {
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot replace " + target + " atomically on this file system", e);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        syncDirectory(dir);
    }

    /**
     * Writes {@code bytes} to a new, synced temp file beside {@code target} ({@code .<name>.<random><suffix>}, which
     * the watcher ignores) with the permissions of an existing target: the one temp writer of Kiln's replacements
     * ({@link #write}'s rename, the heal's link swap). The caller moves or links it into place and deletes it in any
     * case; a temp file a failed write leaves is removed here.
     */
    public static Path tempBeside(Path target, String suffix, byte[] bytes) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        if (dir == null) {
            throw new IOException(target + " is a file-system root, not a file; cannot write it");
        }
        Set<PosixFilePermission> mode = existingMode(target);
        Path tmp = dir.resolve("." + target.getFileName() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()) + suffix);
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer buf = ByteBuffer.wrap(bytes);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            if (mode != null) {
                Files.setPosixFilePermissions(tmp, mode);
            }
            return tmp;
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }

    /** The permissions of {@code target} for its replacement to keep; null when it does not exist or has none. */
    public static @Nullable Set<PosixFilePermission> existingMode(Path target) throws IOException {
        PosixFileAttributeView view = Files.getFileAttributeView(target, PosixFileAttributeView.class);
        if (view == null) {
            return null;
        }
        try {
            return view.readAttributes().permissions();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** Makes a rename (or link) in {@code dir} durable; best-effort, since not every platform can open a directory. */
    public static void syncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | RuntimeException e) {
            // The rename itself is atomic; only its durability across a crash is weaker here.
        }
    }
}
