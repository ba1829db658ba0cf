package dev.kiln.core.archive;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.zip.CRC32C;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * Writes walk nodes as normalized tar entries in memory, then gzips them ({@link ParallelGzip}): owner 0/0 with empty
 * names, one fixed mtime, modes 0644 / 0755, PAX headers for long or non-ASCII names.
 */
final class TarGzWriter implements MemberWalk.Visitor, AutoCloseable {
    static final int FILE_MODE = 0100644;
    static final int EXEC_MODE = 0100755;
    static final int DIR_MODE = 040755;
    static final int LINK_MODE = 0120777;

    private final FileTime mtime;
    private final ParallelGzip gzip = new ParallelGzip();
    private final TarArchiveOutputStream tar;
    private final byte[] buffer = new byte[256 * 1024];
    private final long maximumSourceBytes;
    private long sourceBytes;

    /** The member files grew past the bound while they were read. */
    static final class SourceGrew extends IOException {
        private static final long serialVersionUID = 1L;

        SourceGrew() {
            super("the member files grew past the bound while they were read");
        }
    }

    /** @param maximumSourceBytes the bytes of member files it reads at most ({@code Long.MAX_VALUE}: no bound) */
    TarGzWriter(FileTime mtime, long maximumSourceBytes) throws IOException {
        this.mtime = mtime;
        this.maximumSourceBytes = maximumSourceBytes;
        this.tar = new TarArchiveOutputStream(gzip, "UTF-8");
        tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
        tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
        tar.setAddPaxHeadersForNonAsciiNames(true);
    }

    @Override
    public long visit(MemberWalk.Node n, boolean wantCrc) throws IOException {
        switch (n.kind()) {
            case DIRECTORY -> {
                TarArchiveEntry e = entry(n.name() + "/", TarConstants.LF_DIR, DIR_MODE);
                tar.putArchiveEntry(e);
                tar.closeArchiveEntry();
            }
            case SYMLINK -> {
                TarArchiveEntry e = entry(n.name(), TarConstants.LF_SYMLINK, LINK_MODE);
                e.setLinkName(n.linkTarget());
                tar.putArchiveEntry(e);
                tar.closeArchiveEntry();
            }
            case FILE -> {
                // Streamed through one buffer: a member can be larger than the heap, or than any Java array.
                // O_NOFOLLOW: the walk saw a regular file; if a symlink was swapped in since, it is refused, not followed
                try (FileChannel in = open(n)) {
                    long size = in.size();
                    sourceBytes += size;
                    if (sourceBytes > maximumSourceBytes) {
                        throw new SourceGrew(); // summed before the build, so a file grew since: the heap is the bound
                    }
                    TarArchiveEntry e = entry(n.name(), TarConstants.LF_NORMAL, n.executable() ? EXEC_MODE : FILE_MODE);
                    e.setSize(size);
                    tar.putArchiveEntry(e);
                    CRC32C crc = new CRC32C();
                    ByteBuffer b = ByteBuffer.wrap(buffer);
                    long done = 0;
                    while (done < size) {
                        b.clear().limit((int) Math.min(buffer.length, size - done));
                        int r = in.read(b);
                        if (r < 0) {
                            throw new ArchiveException(n.path() + " shrank while it was being archived (" + done + " of "
                                    + size + " bytes read); retry");
                        }
                        tar.write(buffer, 0, r);
                        if (wantCrc) {
                            crc.update(buffer, 0, r);
                        }
                        done += r;
                    }
                    // A file that grew meanwhile is archived at the size it had when opened; the manifest's
                    // identity check sees the change and the next build takes the rest.
                    tar.closeArchiveEntry();
                    return wantCrc ? crc.getValue() : 0;
                }
            }
        }
        return 0;
    }

    private static FileChannel open(MemberWalk.Node n) throws IOException {
        try {
            return FileChannel.open(n.path(), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) { // ELOOP comes as a plain IOException
            if (java.nio.file.Files.isSymbolicLink(n.path())) {
                throw new ArchiveException(n.path() + " became a symlink while it was being archived; archives never"
                        + " follow links: retry", e);
            }
            throw e;
        }
    }

    private TarArchiveEntry entry(String name, byte flag, int mode) {
        TarArchiveEntry e = new TarArchiveEntry(name, flag);
        e.setMode(mode);
        e.setModTime(mtime);
        e.setUserId(0);
        e.setGroupId(0);
        e.setUserName("");
        e.setGroupName("");
        return e;
    }

    /** Finishes the tar and returns its gzip. */
    byte[] finish() throws IOException {
        tar.finish();
        tar.close();
        return gzip.finish();
    }

    @Override
    public void close() throws IOException {
        tar.close();
    }
}
