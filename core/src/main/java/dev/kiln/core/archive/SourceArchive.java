package dev.kiln.core.archive;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A deterministic {@code tar.gz} of selected top-level members of a source root: the same tree gives the same
 * bytes in any process, so an archive is addressed by its SHA-256.
 *
 * <p>Entries are {@code <root-name>/…} (the name of the root's real directory, so every spelling of a root
 * gives the same bytes), depth first with children sorted by name, owned by 0/0 with empty
 * owner names, stamped with {@link #ENTRY_MTIME}, modes normalized (0644 files, 0755 directories and
 * executables), PAX headers for long or non-ASCII names; the gzip header has no timestamp and no name.
 * Excluded names (glob, any path component) are left out; symlinks are stored as symlinks and never followed,
 * and one that points outside the root (or to an absolute path) is refused; sockets, fifos and devices are
 * skipped and listed in {@link #skipped()}.
 *
 * <p>Instances are immutable and safe to share between threads; {@link #bytes()} is a read-only view, not a copy.
 */
public final class SourceArchive {

    /** Left out at any depth unless the caller gives its own list. */
    public static final List<String> DEFAULT_EXCLUDES = List.of(
            "__pycache__", ".venv", ".git", ".pytest_cache", ".mypy_cache", ".ruff_cache", "node_modules", "*.pyc");

    /** The mtime of every entry: fixed, so touching a file never changes the archive. */
    public static final Instant ENTRY_MTIME = Instant.parse("1980-01-01T00:00:00Z");

    private final ArchiveKey key;
    private final byte[] bytes;
    private final String sha256;
    private final int entries;
    private final int files;
    private final List<String> skipped;
    private final long buildNanos;
    private final Manifest manifest;
    private final Excludes excludes;

    private SourceArchive(ArchiveKey key, byte[] bytes, int entries, int files, List<String> skipped, long buildNanos,
            Manifest manifest, Excludes excludes) {
        this.key = key;
        this.bytes = bytes;
        this.sha256 = sha256(bytes);
        this.entries = entries;
        this.files = files;
        this.skipped = skipped;
        this.buildNanos = buildNanos;
        this.manifest = manifest;
        this.excludes = excludes;
    }

    /** All of {@code root}, with the {@link #DEFAULT_EXCLUDES}. */
    public static SourceArchive build(Path root) {
        return build(root, List.of(), DEFAULT_EXCLUDES);
    }

    /** The named top-level members of {@code root} (all of it when empty), with the {@link #DEFAULT_EXCLUDES}. */
    public static SourceArchive build(Path root, List<String> members) {
        return build(root, members, DEFAULT_EXCLUDES);
    }

    /**
     * Builds the archive of the named top-level {@code members} of {@code root} (all of the root when empty),
     * leaving out every path with a component matching one of {@code excludes}.
     *
     * @throws ArchiveException when the root or a member does not exist, a member is excluded, a symlink
     *     escapes the root, or a file cannot be read; the message names the path
     */
    public static SourceArchive build(Path root, List<String> members, List<String> excludes) {
        return build(ArchiveKey.of(root, members, excludes));
    }

    static SourceArchive build(ArchiveKey key) {
        return build(key, Long.MAX_VALUE);
    }

    /**
     * Builds the archive of {@code key}, refusing it when its member files add up to more than
     * {@code maximumSourceBytes}: their sizes are summed by a stat walk before any is read, and reading stops if a
     * file grew past the bound meanwhile.
     *
     * @throws ArchiveTooLargeException above the bound
     */
    static SourceArchive build(ArchiveKey key, long maximumSourceBytes) {
        Excludes ex = new Excludes(key.excludes());
        for (String m : key.members()) {
            if (ex.excludes(m, m)) {
                throw new ArchiveException("Member '" + m + "' of " + key.root() + " matches an exclude pattern "
                        + key.excludes() + "; drop the member or the exclude");
            }
        }
        long start = System.nanoTime();
        if (maximumSourceBytes < Long.MAX_VALUE) {
            long counted;
            try {
                counted = MemberWalk.sourceBytes(key.root(), key.members(), ex, maximumSourceBytes);
            } catch (IOException e) {
                throw new ArchiveException("Could not archive " + key.root() + ": " + e, e);
            }
            if (counted > maximumSourceBytes) {
                throw tooLarge(key, "its member files add up to more than " + maximumSourceBytes + " bytes", maximumSourceBytes);
            }
        }
        try (TarGzWriter writer = new TarGzWriter(FileTime.from(ENTRY_MTIME), maximumSourceBytes)) {
            MemberWalk.Result walked = MemberWalk.walk(key.root(), key.members(), ex, writer);
            byte[] out = writer.finish();
            return new SourceArchive(key, out, walked.entries(), walked.files(), walked.skipped(), System.nanoTime() - start,
                    walked.manifest(), ex);
        } catch (TarGzWriter.SourceGrew e) {
            throw tooLarge(key, "its member files grew past " + maximumSourceBytes + " bytes while it was built", maximumSourceBytes);
        } catch (AccessDeniedException e) {
            throw new ArchiveException("Cannot read " + e.getFile() + " (permission denied) while archiving " + key.root()
                    + "; fix its permissions or exclude it", e);
        } catch (IOException e) {
            throw new ArchiveException("Could not archive " + key.root() + ": " + e, e);
        }
    }

    private static ArchiveTooLargeException tooLarge(ArchiveKey key, String why, long limit) {
        return new ArchiveTooLargeException("Refused to archive " + key.root() + (key.members().isEmpty() ? ""
                : " " + key.members()) + ": " + why + " (archive_max_bytes in kiln.json; an archive is built in memory)."
                + " Archive fewer members, exclude large files, or raise the bound", limit);
    }

    /**
     * Extracts a {@code tar.gz} into {@code into} (created if missing), refusing, before anything is written,
     * absolute entry names, {@code ..} traversal, entries that go through a symlink, and symlinks or hard
     * links that would escape {@code into}.
     *
     * @return the number of entries extracted
     * @throws ArchiveException naming the offending entry; nothing is written outside {@code into}, and what was
     *     written inside it is removed again (files it replaced are put back)
     */
    public static int extract(Path archive, Path into) {
        return SafeExtract.extract(archive.toString(), () -> Files.newInputStream(archive), into);
    }

    /** Extracts this archive into {@code into}, with the checks of {@link #extract(Path, Path)}. */
    public int extractTo(Path into) {
        return SafeExtract.extract("archive of " + key.root(), () -> new java.io.ByteArrayInputStream(bytes), into);
    }

    /** The real path of the root the archive was built from. */
    public Path root() {
        return key.root();
    }

    /** The members archived (sorted); empty means all of the root. */
    public List<String> members() {
        return key.members();
    }

    /** The exclude globs applied (sorted). */
    public List<String> excludes() {
        return key.excludes();
    }

    /** The archive, as a read-only view (no copy). */
    public ByteBuffer bytes() {
        return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
    }

    /** A copy of the archive's bytes. */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    /** Size of the archive in bytes. */
    public long size() {
        return bytes.length;
    }

    /** Lower-case hex SHA-256 of the archive: its content address. */
    public String sha256() {
        return sha256;
    }

    /** Tar entries written (directories, files, symlinks; the root directory included). */
    public int entries() {
        return entries;
    }

    /** Files and symlinks archived (entries that are not directories). */
    public int files() {
        return files;
    }

    /** Special files left out ({@code "path (socket, skipped)"}). */
    public List<String> skipped() {
        return skipped;
    }

    /** How long the build took. */
    public Duration buildTime() {
        return Duration.ofNanos(buildNanos);
    }

    /** Writes the archive to {@code out}. */
    public void writeTo(OutputStream out) throws IOException {
        out.write(bytes);
    }

    /**
     * Writes the archive to {@code file}: a regular file atomically (a temporary sibling renamed over it); an
     * existing device or pipe ({@code /dev/stdout}) is written in place, never replaced.
     *
     * @throws IOException when {@code file} is a directory or cannot be written
     */
    public void writeTo(Path file) throws IOException {
        Path abs = file.toAbsolutePath();
        if (Files.isDirectory(abs)) {
            throw new IOException(abs + " is a directory; give a file name for the archive");
        }
        if (Files.exists(abs) && !Files.isRegularFile(abs)) {
            Files.write(abs, bytes, java.nio.file.StandardOpenOption.WRITE);
            return;
        }
        Path parent = abs.getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Path tmp = Files.createTempFile(parent, "." + abs.getFileName(), ".tmp");
        try {
            Files.write(tmp, bytes);
            Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    ArchiveKey key() {
        return key;
    }

    long buildNanos() {
        return buildNanos;
    }

    /** Null when the member set is unchanged since the build, else what changed first. */
    @Nullable String firstChange() {
        return manifest.firstChange(excludes);
    }

    @Override
    public String toString() {
        return "SourceArchive[" + key.root() + " " + (key.members().isEmpty() ? "(all)" : key.members()) + ", "
                + bytes.length + " bytes, " + entries + " entries, sha256 " + sha256 + "]";
    }

    private static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
