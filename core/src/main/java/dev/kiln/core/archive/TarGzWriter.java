package dev.kiln.core.archive;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
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

    TarGzWriter(FileTime mtime) throws IOException {
        this.mtime = mtime;
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
                byte[] content = Files.readAllBytes(n.path());
                TarArchiveEntry e = entry(n.name(), TarConstants.LF_NORMAL, n.executable() ? EXEC_MODE : FILE_MODE);
                e.setSize(content.length);
                tar.putArchiveEntry(e);
                tar.write(content);
                tar.closeArchiveEntry();
                return wantCrc ? Manifest.crc(content) : 0;
            }
        }
        return 0;
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
