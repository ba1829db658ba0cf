package dev.kiln.core.contract;

import dev.kiln.core.workspace.AtomicWrite;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Reads and writes the contract files of one {@code tasks/} directory.
 *
 * <p>{@link #load} reads one file and nothing else: it never walks the tree to normalize an id (a walk per
 * load is what made ticks slow). {@link #write} always writes the canonical id of the leaf directory it
 * writes into, atomically, keeping the file's mode. Files larger than the limit are refused without being
 * read into memory.
 */
public final class ContractStore {
    /** Default per-file size limit: 1 MiB. */
    public static final long DEFAULT_MAX_BYTES = 1L << 20;

    private final Path tasksDir;
    private final long maxBytes;

    public ContractStore(Path tasksDir) {
        this(tasksDir, DEFAULT_MAX_BYTES);
    }

    public ContractStore(Path tasksDir, long maxBytes) {
        if (maxBytes < 2) {
            throw new IllegalArgumentException("the contract size limit must be at least 2 bytes, got " + maxBytes);
        }
        this.tasksDir = tasksDir.toAbsolutePath().normalize();
        this.maxBytes = maxBytes;
    }

    public Path tasksDir() {
        return tasksDir;
    }

    public long maxBytes() {
        return maxBytes;
    }

    /** Reads the contract in {@code file} as declared (the id is not normalized). */
    public Contract load(Path file) throws ContractReadException {
        return ContractCodec.read(readBounded(file, maxBytes));
    }

    /**
     * Writes {@code contract} into {@code leafDir}/contract.json with the leaf's canonical id.
     *
     * @return the contract as written
     */
    public Contract write(Path leafDir, Contract contract) throws IOException {
        Contract normalized = contract.withLeafId(LeafIds.canonical(tasksDir, leafDir));
        AtomicWrite.write(leafDir.resolve(LeafIds.CONTRACT_FILE), ContractCodec.write(normalized));
        return normalized;
    }

    /**
     * Reads a whole file of at most {@code maxBytes}; a larger file (or one that grows past the limit while
     * being read) is refused after reading at most {@code maxBytes + 1} bytes.
     *
     * <p>Only a regular file is read, and never through a symlink: a {@code contract.json} that is a symlink,
     * a FIFO, a socket or a device fails as {@link ContractReadException.Kind#REFUSED}, without being opened
     * (policy in {@link ContractReadException.Kind#REFUSED}). The check is {@code lstat}, then the open refuses a
     * symlink itself ({@code O_NOFOLLOW}); a FIFO renamed in between cannot keep the caller: the open runs on the
     * calling thread and {@link OpenWatchdog} releases it if it blocks, and positional reads fail at once on a pipe,
     * which is refused naming this file. So this never hangs, whatever is swapped in, and leaves no thread blocked.
     */
    public static byte[] readBounded(Path file, long maxBytes) throws ContractReadException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new ContractReadException(ContractReadException.Kind.IO_ERROR, "cannot read: " + describe(e), e);
        }
        refuseUnlessRegular(a);
        if (a.size() > maxBytes) {
            throw tooLarge(a.size(), maxBytes);
        }
        FileChannel opened;
        try {
            opened = OpenWatchdog.shared().open(file);
        } catch (IOException e) {
            throw afterFailure(file, e);
        }
        try (FileChannel ch = opened) {
            long size = ch.size();
            if (size > maxBytes) {
                throw tooLarge(size, maxBytes);
            }
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(maxBytes + 1, Math.max(size + 1, 64)));
            long pos = 0;
            for (;;) {
                if (!buf.hasRemaining()) {
                    if (buf.capacity() > maxBytes) {
                        throw tooLarge(buf.capacity(), maxBytes);
                    }
                    // The file grew since its size was read; keep reading, but never past the limit.
                    ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(maxBytes + 1, (long) buf.capacity() * 2));
                    buf.flip();
                    bigger.put(buf);
                    buf = bigger;
                }
                // Positional: pread fails with ESPIPE on a pipe instead of waiting for a writer.
                int n = ch.read(buf, pos);
                if (n < 0) {
                    break;
                }
                pos += n;
            }
            byte[] out = new byte[buf.position()];
            buf.flip();
            buf.get(out);
            return out;
        } catch (IOException e) {
            throw afterFailure(file, e);
        }
    }

    private static void refuseUnlessRegular(BasicFileAttributes a) throws ContractReadException {
        if (a.isSymbolicLink()) {
            throw new ContractReadException(ContractReadException.Kind.REFUSED, "a symbolic link; Kiln never follows a"
                    + " symlinked contract file (it could lead to a secret). Put the contract itself here");
        }
        if (!a.isRegularFile()) {
            throw new ContractReadException(ContractReadException.Kind.REFUSED, "not a regular file ("
                    + (a.isDirectory() ? "a directory" : "a FIFO, socket or device") + "); special files are never read");
        }
    }

    /** An open or read failed: if the path is no longer a regular file (swapped meanwhile), say so; else an I/O error. */
    private static ContractReadException afterFailure(Path file, IOException e) {
        try {
            refuseUnlessRegular(Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
        } catch (ContractReadException refused) {
            return refused;
        } catch (IOException gone) {
            // fall through: report the original failure
        }
        String m = String.valueOf(e.getMessage());
        if (m.contains("Illegal seek") || m.contains("symbolic link")) {
            // swapped back to a regular file since: what was opened was a pipe (pread: ESPIPE) or a symlink (ELOOP)
            return new ContractReadException(ContractReadException.Kind.REFUSED, "not a regular file when opened (a "
                    + (m.contains("seek") ? "FIFO or socket" : "symbolic link") + " was swapped in); special files are never read");
        }
        return new ContractReadException(ContractReadException.Kind.IO_ERROR, "cannot read: " + describe(e), e);
    }

    private static ContractReadException tooLarge(long size, long max) {
        return new ContractReadException(ContractReadException.Kind.TOO_LARGE,
                "larger than the contract size limit (" + (size > max ? size + " bytes" : "more than " + max + " bytes")
                        + " > " + max + " bytes); a contract should be small, so this file was not read");
    }

    static String describe(IOException e) {
        String type = e.getClass().getSimpleName();
        return e.getMessage() == null ? type : type + ": " + e.getMessage();
    }
}
