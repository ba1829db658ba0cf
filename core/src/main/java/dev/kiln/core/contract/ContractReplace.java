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
 * Replaces a contract only if nobody changed it since it was read, as a compare-and-swap: the contract is first
 * renamed aside (a {@code rename} takes atomically whatever is there at that instant), then what was taken is
 * compared with what was read, and only then is a version linked in with {@code link(2)}, which never replaces: heal's
 * version when what was taken is what was read, else the taken file itself, put back. If a writer put a file there
 * in between, theirs stays either way. So the path never holds a version older than the newest write: a writer that
 * replaces the file by rename, as editors and tools do, never loses a write, and a reader never sees one undone
 * for a moment (linking heal's version in before the comparison showed the older version for a few microseconds
 * when a write landed just before the rename: a read-modify-write tool reading then would lose its write; it failed
 * {@code LeafIdHealTest} once in CI). The check that ran before the fsync and the rename lost 49 of 52 (issue #19).
 *
 * <p>Concurrency: the writers of contracts are people and their tools, which share no lock with Kiln, hence the
 * optimistic swap. The price is that the contract is absent between the rename and the link (a stat and a read of
 * one small file); heal runs on request, and a reader that finds it missing finds it again on its next look. A
 * writer that writes in place (no rename) into the file during those microseconds can still lose that write; Java
 * offers no {@code renameat2(RENAME_EXCHANGE)} that would close that too.
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
            try {
                Files.move(target, aside, StandardCopyOption.ATOMIC_MOVE);
            } catch (NoSuchFileException e) {
                return false; // deleted meanwhile: that is the user's doing too
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot replace " + target + " atomically on this file system", e);
            }
            boolean taken;
            try {
                // A rename updates the moved file's ctime, so compare the rest of its identity, and its bytes.
                taken = unchanged(aside, seen, read, maxBytes, false);
                // What was read goes in healed; a newer write taken aside goes back as it was.
                Files.createLink(target, taken ? tmp : aside);
            } catch (FileAlreadyExistsException e) {
                return false; // a writer made a new file there in between: the newest write is theirs
            } catch (IOException | RuntimeException e) {
                putBack(aside, target); // unreadable now, or no hard links here: the contract goes back as it was
                throw new IOException("cannot replace " + target + " (" + e + "); it is as it was", e);
            }
            if (!taken) {
                return false;
            }
        } finally {
            Files.deleteIfExists(tmp);
            Files.deleteIfExists(aside);
        }
        AtomicWrite.syncDirectory(dir); // the swap itself is atomic; this makes it durable
        return true;
    }

    /** Puts the file taken aside back where it was, unless a writer has made a new one there since. */
    private static void putBack(Path aside, Path target) throws IOException {
        try {
            Files.createLink(target, aside);
        } catch (FileAlreadyExistsException e) {
            // theirs is newer
        } catch (IOException | UnsupportedOperationException e) {
            Files.move(aside, target); // no hard links: a rename that refuses to replace (up to its own check)
        }
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
