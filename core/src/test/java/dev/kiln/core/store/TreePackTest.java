package dev.kiln.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.seed.SeedFixtures;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TreePackTest {
    @TempDir
    Path tmp;

    @Test
    void packUnpack_roundTrip_sameTree_andPackingIsDeterministic() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src/a/b"));
        Files.writeString(src.resolve("f.txt"), "hello");
        Files.createSymbolicLink(tmp.resolve("src/a/link"), Path.of("b/f.txt"));
        Path exe = tmp.resolve("src/run");
        Files.writeString(exe, "#!/bin/sh\n");
        exe.toFile().setExecutable(true);
        TreePack.Packed p1 = TreePack.pack(tmp.resolve("src"), tmp.resolve("1.tar.gz"));
        TreePack.Packed p2 = TreePack.pack(tmp.resolve("src"), tmp.resolve("2.tar.gz"));
        assertThat(p1.sha256()).isEqualTo(p2.sha256());
        assertThat(p1.files()).isEqualTo(2);
        Path out = Files.createDirectories(tmp.resolve("out"));
        try (InputStream in = Files.newInputStream(tmp.resolve("1.tar.gz"))) {
            TreePack.Unpacked u = TreePack.unpack(in, out, "obj", p1.sha256());
            assertThat(u.bytes()).isEqualTo(p1.bytes());
        }
        assertThat(SeedFixtures.digest(out)).isEqualTo(SeedFixtures.digest(tmp.resolve("src")));
        assertThat(Files.isExecutable(out.resolve("run"))).isTrue();
    }

    @Test
    void unpack_entryLeavingTheDirectory_refusedAndNamed() throws Exception {
        byte[] tar = tar("../escape.txt", TarConstants.LF_NORMAL, null);
        assertRefused(tar, "../escape.txt", "leaves the target directory");
    }

    @Test
    void unpack_linkLeavingTheSeed_refused() throws Exception {
        assertRefused(tar("a/link", TarConstants.LF_SYMLINK, "../../etc/passwd"), "a/link", "leaves the seed");
        assertRefused(tar("a/abs", TarConstants.LF_SYMLINK, "/etc/passwd"), "a/abs", "leaves the seed");
    }

    @Test
    void unpack_specialEntries_refused() throws Exception {
        assertRefused(tar("fifo", TarConstants.LF_FIFO, null), "fifo", "FIFO");
        assertRefused(tar("dev", TarConstants.LF_CHR, null), "dev", "device");
        assertRefused(tar("hard", TarConstants.LF_LINK, "other"), "hard", "hard link");
    }

    @Test
    void unpack_bytesThatAreNotTheManifestsObject_refusedAsCorrupted() throws Exception {
        byte[] good = tar("x.txt", TarConstants.LF_NORMAL, null);
        byte[] bad = good.clone();
        bad[bad.length / 2] ^= 0x40;
        Path out = Files.createDirectories(tmp.resolve("o"));
        assertThatThrownBy(() -> TreePack.unpack(new ByteArrayInputStream(bad), out, "seeds/x/obj", sha(good)))
                .isInstanceOf(StoreException.class).hasMessageContaining("seeds/x/obj is corrupted")
                .hasMessageContaining(sha(good));
    }

    /** Writer threads make the files while the object is read: the same tree, byte for byte, as one thread makes. */
    @Test
    void unpack_withWriterThreads_sameTreeAsOneThread() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("many"));
        java.util.Random r = new java.util.Random(7);
        for (int i = 0; i < 600; i++) {
            Path f = src.resolve("pkg" + (i % 13) + "/m" + i + ".py");
            Files.createDirectories(f.getParent());
            byte[] b = new byte[r.nextInt(9000)];
            r.nextBytes(b);
            Files.write(f, b);
        }
        byte[] big = new byte[(TreePack.HANDED_OFF_MAX * 3) / 2 + 17]; // written by the reading thread itself
        r.nextBytes(big);
        Files.write(src.resolve("pkg0/big.so"), big);
        Files.createSymbolicLink(src.resolve("pkg1/link"), Path.of("../pkg0/big.so"));
        Path exe = src.resolve("run");
        Files.writeString(exe, "#!/bin/sh\n");
        exe.toFile().setExecutable(true);
        TreePack.Packed p = TreePack.pack(src, tmp.resolve("many.tar.gz"));
        TreePack.Unpacked[] u = new TreePack.Unpacked[2];
        for (int writers : new int[] {0, 3}) {
            Path out = Files.createDirectories(tmp.resolve("out-" + writers));
            try (InputStream in = Files.newInputStream(tmp.resolve("many.tar.gz"))) {
                u[writers == 0 ? 0 : 1] = TreePack.unpack(in, out, "obj", p.sha256(), writers);
            }
            assertThat(SeedFixtures.digest(out)).as(writers + " writers").isEqualTo(SeedFixtures.digest(src));
            assertThat(Files.isExecutable(out.resolve("run"))).isTrue();
        }
        assertThat(u[1]).isEqualTo(u[0]);
        assertThat(u[1].files()).isEqualTo(602);
    }

    @Test
    void unpack_withWriterThreads_anEntryTwice_refusedAndNamed() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (TarArchiveOutputStream t = new TarArchiveOutputStream(new GzipCompressorOutputStream(b))) {
            for (int i = 0; i < 2; i++) {
                TarArchiveEntry e = new TarArchiveEntry("dup.txt", TarConstants.LF_NORMAL, true);
                e.setSize(4);
                t.putArchiveEntry(e);
                t.write("data".getBytes());
                t.closeArchiveEntry();
            }
        }
        byte[] tar = b.toByteArray();
        for (int writers : new int[] {0, 2}) {
            Path out = Files.createDirectories(tmp.resolve("dup" + writers));
            assertThatThrownBy(() -> TreePack.unpack(new ByteArrayInputStream(tar), out, "obj", sha(tar), writers))
                    .isInstanceOf(StoreException.class).hasMessageContaining("\"dup.txt\" appears twice");
        }
    }

    private void assertRefused(byte[] tar, String entry, String why) throws IOException {
        for (int writers : new int[] {0, 2}) { // the same refusals whoever writes the files
            Path out = Files.createDirectories(tmp.resolve("o" + System.nanoTime()));
            assertThatThrownBy(() -> TreePack.unpack(new ByteArrayInputStream(tar), out, "obj", sha(tar), writers))
                    .isInstanceOf(StoreException.class).hasMessageContaining(entry).hasMessageContaining(why);
            assertThat(Files.exists(tmp.resolve("escape.txt"))).isFalse();
        }
    }

    private static byte[] tar(String name, byte type, String link) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (TarArchiveOutputStream t = new TarArchiveOutputStream(new GzipCompressorOutputStream(b))) {
            TarArchiveEntry e = new TarArchiveEntry(name, type, true);
            byte[] body = "data".getBytes();
            if (link != null) {
                e.setLinkName(link);
            }
            if (type == TarConstants.LF_NORMAL) {
                e.setSize(body.length);
            }
            t.putArchiveEntry(e);
            if (type == TarConstants.LF_NORMAL) {
                t.write(body);
            }
            t.closeArchiveEntry();
        }
        return b.toByteArray();
    }

    private static String sha(byte[] b) {
        return HexFormat.of().formatHex(TreePack.sha256().digest(b));
    }
}
