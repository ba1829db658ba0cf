package dev.kiln.core.contract;

import dev.kiln.core.workspace.AtomicWrite;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Map;

/**
 * Replaces a contract only if nobody changed it since it was read, as a compare-and-swap: the contract is renamed
 * aside (a {@code rename} takes atomically whatever is there at that instant) and the new version linked in with
 * {@code link(2)}, which never replaces: if a writer put a file there in between, theirs stays. Then the file
 * taken aside is compared with what was read; if it is a newer write, it is put back (unless a writer has
 * replaced heal's version since). So a writer that replaces the file by rename, as editors and tools do, never
 * loses a write; the check that ran before the fsync and the rename lost 49 of 52 (issue #19).
 *
 * <p>Concurrency: the writers of contracts are people and their tools, which share no lock with Kiln, hence the
 * optimistic swap. The price is that the contract is absent between two back-to-back system calls (the rename
 * and the link); heal runs on request, and a reader that finds it missing finds it again on its next look. A writer that writes in place (no
 * rename) into the file during those microseconds can still lose that write; Java offers no
 * {@code renameat2(RENAME_EXCHANGE)} that would close that too.
 */
final class ContractReplace {
    private static final String IDENTITY = "unix:dev,ino,ctime,lastModifiedTime,size";

    private ContractReplace() {
    }

    /** What the file at {@code p} is right now; changes with any rename over it or write into it. */
    static Map<String, Object> identity(Path p) throws IOException {
        return Files.readAttributes(p, IDENTITY, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Replaces {@code target} with {@code bytes} if it still has identity {@code seen} and content {@code read}.
     *
     * @return false (and the file as someone else left it) when the file changed since
     */
    static boolean replaceIfUnchanged(Path target, Map<String, Object> seen, byte[] read, byte[] bytes, long maxBytes)
            throws IOException {
        Path dir = java.util.Objects.requireNonNull(target.toAbsolutePath().getParent(), "a contract file is in a directory");
        Path tmp = AtomicWrite.tempBeside(target, ".tmp", bytes);
        Path aside = dir.resolve(tmp.getFileName().toString().replaceFirst("\\.tmp$", ".heal-old.tmp"));
        try {
            if (!unchanged(target, seen, read, maxBytes, true)) {
                return false; // the common case of a change: nothing moved
            }
            Object ours = identity(tmp).get("ino");
            // Two system calls back to back: the contract is absent only between them.
            try {
                Files.move(target, aside, StandardCopyOption.ATOMIC_MOVE);
            } catch (NoSuchFileException e) {
                return false; // deleted meanwhile: that is the user's doing too
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot replace " + target + " atomically on this file system", e);
            }
            try {
                Files.createLink(target, tmp);
            } catch (FileAlreadyExistsException e) {
                return false; // a writer made a new file there in between: the newest write is theirs
            } catch (IOException | UnsupportedOperationException e) {
                Files.move(aside, target, StandardCopyOption.ATOMIC_MOVE); // no hard links here: put it back
                throw new IOException("cannot replace " + target + " (" + e + "); it is as it was", e);
            }
            // A rename updates the moved file's ctime, so compare the rest of its identity, and its bytes.
            if (!unchanged(aside, seen, read, maxBytes, false)) {
                // What was taken aside is a write newer than the one healed: it goes back, unless a writer has
                // replaced ours since (then theirs is newer still).
                if (java.util.Objects.equals(ours, identity(target).get("ino"))) {
                    Files.move(aside, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                }
                return false;
            }
        } finally {
            Files.deleteIfExists(tmp);
            Files.deleteIfExists(aside);
        }
        AtomicWrite.syncDirectory(dir); // the swap itself is atomic; this makes it durable
        return true;
    }

    private static boolean unchanged(Path p, Map<String, Object> seen, byte[] read, long maxBytes, boolean withCtime)
            throws IOException {
        try {
            Map<String, Object> now = identity(p);
            if (!withCtime) {
                now = new java.util.HashMap<>(now);
                now.put("ctime", seen.get("ctime"));
            }
            // Content too: an inode number can be reused within one timestamp tick.
            return seen.equals(now) && Arrays.equals(read, ContractStore.readBounded(p, maxBytes));
        } catch (ContractReadException | NoSuchFileException e) {
            return false; // gone or unreadable now: someone else is at work on it
        }
    }
}
