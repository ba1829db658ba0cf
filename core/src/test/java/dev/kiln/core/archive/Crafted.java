package dev.kiln.core.archive;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/** Hostile archives, written entry by entry (what an attacker's tar would contain). */
final class Crafted {
    interface Body {
        void write(Crafted c) throws IOException;
    }

    private static int counter;
    private final TarArchiveOutputStream tar;

    private Crafted(TarArchiveOutputStream tar) {
        this.tar = tar;
    }

    static synchronized Path archive(Path dir, Body body) throws IOException {
        Path file = dir.resolve("crafted-" + (++counter) + ".tar.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file));
             TarArchiveOutputStream tar = new TarArchiveOutputStream(out, "UTF-8")) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            body.write(new Crafted(tar));
        }
        return file;
    }

    void file(String name, String content) throws IOException {
        // preserveAbsolutePath = true, or commons-compress would strip the leading '/' an attacker put there
        TarArchiveEntry e = new TarArchiveEntry(name, true);
        byte[] b = content.getBytes(StandardCharsets.UTF_8);
        e.setSize(b.length);
        tar.putArchiveEntry(e);
        tar.write(b);
        tar.closeArchiveEntry();
    }

    void symlink(String name, String target) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_SYMLINK, true);
        e.setLinkName(target);
        tar.putArchiveEntry(e);
        tar.closeArchiveEntry();
    }

    /** A FIFO or device entry ({@link TarConstants#LF_FIFO}, {@code LF_CHR}, {@code LF_BLK}). */
    void special(String name, byte type) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name, type, true);
        tar.putArchiveEntry(e);
        tar.closeArchiveEntry();
    }

    void dir(String name) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name.endsWith("/") ? name : name + "/", true);
        tar.putArchiveEntry(e);
        tar.closeArchiveEntry();
    }

    void hardlink(String name, String target) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_LINK, true);
        e.setLinkName(target);
        tar.putArchiveEntry(e);
        tar.closeArchiveEntry();
    }
}
