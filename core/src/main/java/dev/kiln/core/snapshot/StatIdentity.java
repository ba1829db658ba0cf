package dev.kiln.core.snapshot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What a file looks like on disk without reading it: size, mtime and ctime in nanoseconds, and the file key
 * (device + inode on Linux), read in one attribute call.
 *
 * <p>An unchanged identity means unchanged content for every writer we care about: a {@code chmod}, a rename
 * over the file, or a rewrite that pins size and mtime all move ctime. Where the {@code unix} view is missing,
 * ctime is taken as the creation time (and {@link #hasCtime()} is false), which is weaker but never stale
 * for size or mtime changes.
 *
 * @param size bytes
 * @param mtimeNanos last modification, ns since the epoch
 * @param ctimeNanos last status change, ns since the epoch (creation time where unavailable)
 * @param fileKey device/inode identity, or {@code null} where the file system has none
 * @param hasCtime whether ctime came from the {@code unix} view
 */
public record StatIdentity(long size, long mtimeNanos, long ctimeNanos, @Nullable Object fileKey, boolean hasCtime) {

    private static final boolean UNIX_VIEW = probeUnixView();

    /** An attribute the unix view always has (asked for by name); its absence is a broken file system view. */
    private static Object attribute(Map<String, Object> a, String name) {
        return java.util.Objects.requireNonNull(a.get(name), () -> "the unix file attribute view gave no " + name);
    }

    /** Reads the identity of {@code file} (not following a final symlink unless {@code follow}). */
    public static StatIdentity of(Path file, boolean follow) throws IOException {
        LinkOption[] opts = follow ? new LinkOption[0] : new LinkOption[] {LinkOption.NOFOLLOW_LINKS};
        if (UNIX_VIEW) {
            Map<String, Object> a = Files.readAttributes(file, "unix:size,lastModifiedTime,ctime,fileKey", opts);
            return new StatIdentity(
                    (Long) attribute(a, "size"),
                    nanos((FileTime) attribute(a, "lastModifiedTime")),
                    nanos((FileTime) attribute(a, "ctime")),
                    a.get("fileKey"),
                    true);
        }
        BasicFileAttributes b = Files.readAttributes(file, BasicFileAttributes.class, opts);
        return of(b);
    }

    /**
     * Reads the identity of {@code file} (following symlinks) in the same attribute call that says whether it
     * is a regular file; {@code null} when it is not (a directory, a device…). The snapshot's walk uses this so
     * each contract file costs exactly one {@code stat}.
     */
    public static @Nullable StatIdentity ofRegularFile(Path file) throws IOException {
        if (UNIX_VIEW) {
            Map<String, Object> a = Files.readAttributes(file, "unix:size,lastModifiedTime,ctime,fileKey,isRegularFile");
            if (!Boolean.TRUE.equals(a.get("isRegularFile"))) {
                return null;
            }
            return new StatIdentity(
                    (Long) attribute(a, "size"),
                    nanos((FileTime) attribute(a, "lastModifiedTime")),
                    nanos((FileTime) attribute(a, "ctime")),
                    a.get("fileKey"),
                    true);
        }
        BasicFileAttributes b = Files.readAttributes(file, BasicFileAttributes.class);
        return b.isRegularFile() ? of(b) : null;
    }

    /** Reads the identity of {@code file}, following symlinks. */
    public static StatIdentity of(Path file) throws IOException {
        return of(file, true);
    }

    /** An identity from basic attributes only (no ctime); used where the unix view is missing. */
    public static StatIdentity of(BasicFileAttributes b) {
        return new StatIdentity(b.size(), nanos(b.lastModifiedTime()), nanos(b.creationTime()), b.fileKey(), false);
    }

    /** Whether this platform gives ctime through the {@code unix} attribute view. */
    public static boolean unixViewAvailable() {
        return UNIX_VIEW;
    }

    private static long nanos(FileTime t) {
        return t == null ? 0L : t.to(TimeUnit.NANOSECONDS);
    }

    private static boolean probeUnixView() {
        try {
            return java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("unix");
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StatIdentity s
                && size == s.size && mtimeNanos == s.mtimeNanos && ctimeNanos == s.ctimeNanos
                && hasCtime == s.hasCtime && Objects.equals(fileKey, s.fileKey);
    }

    @Override
    public int hashCode() {
        return Objects.hash(size, mtimeNanos, ctimeNanos, fileKey);
    }
}
