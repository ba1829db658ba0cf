package dev.kiln.core.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.testkit.AloneTest;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@ProcessTest @KernelTest @AloneTest
class SourceArchiveTest {
    private static final List<String> MEMBERS = List.of("pyproject.toml", "README.md", "LICENSE", "pkg");

    @TempDir
    Path tmp;

    @Test
    void build_sameTreeTwice_byteIdentical() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");

        SourceArchive a = SourceArchive.build(root, MEMBERS);
        SourceArchive b = SourceArchive.build(root, MEMBERS);

        assertThat(b.toByteArray()).isEqualTo(a.toByteArray());
        assertThat(b.sha256()).isEqualTo(a.sha256()).hasSize(64);
    }

    @Test
    void build_afterTouchingEveryMtime_byteIdentical() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        SourceArchive before = SourceArchive.build(root, MEMBERS);

        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Files.setLastModifiedTime(p, FileTime.from(Instant.parse("2031-05-06T07:08:09.123456789Z")));
            }
        }

        assertThat(SourceArchive.build(root, MEMBERS).sha256()).isEqualTo(before.sha256());
    }

    @Test
    void build_sameTreeInAnotherCopyAndOrder_byteIdentical() throws IOException {
        Path a = Trees.checkout(tmp.resolve("one"), "checkout");
        Path b = Trees.checkout(tmp.resolve("two"), "checkout");

        assertThat(SourceArchive.build(b, List.of("pkg", "LICENSE", "README.md", "pyproject.toml")).sha256())
                .isEqualTo(SourceArchive.build(a, MEMBERS).sha256());
    }

    @Test
    void build_inAnotherJvm_sameBytes() throws Exception {
        Path root = Trees.checkout(tmp, "checkout");
        Path out = tmp.resolve("other-jvm.tar.gz");
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());

        Trees.run(tmp, java, "-cp", System.getProperty("java.class.path"), BuildInAnotherJvm.class.getName(),
                root.toString(), out.toString(), String.join(",", MEMBERS));

        assertThat(Files.readAllBytes(out)).isEqualTo(SourceArchive.build(root, MEMBERS).toByteArray());
    }

    @Test
    void build_listedByGnuTar_exactlyTheMembersWithNormalizedOwnersAndModes() throws Exception {
        Path root = Trees.checkout(tmp, "checkout");
        Path file = tmp.resolve("a.tar.gz");
        SourceArchive.build(root, MEMBERS).writeTo(file);

        List<String> listing = Trees.lines(Trees.run(tmp, "tar", "--numeric-owner", "--utc", "-tzvf", file.toString()));

        assertThat(listing).extracting(l -> l.replaceAll("\\s+", " "))
                .containsExactly(
                        "drwxr-xr-x 0/0 0 1980-01-01 00:00 checkout/",
                        "-rw-r--r-- 0/0 4 1980-01-01 00:00 checkout/LICENSE",
                        "-rw-r--r-- 0/0 6 1980-01-01 00:00 checkout/README.md",
                        "drwxr-xr-x 0/0 0 1980-01-01 00:00 checkout/pkg/",
                        "-rw-r--r-- 0/0 12 1980-01-01 00:00 checkout/pkg/__init__.py",
                        "drwxr-xr-x 0/0 0 1980-01-01 00:00 checkout/pkg/bin/",
                        "-rwxr-xr-x 0/0 18 1980-01-01 00:00 checkout/pkg/bin/tool.sh",
                        "drwxr-xr-x 0/0 0 1980-01-01 00:00 checkout/pkg/core/",
                        "-rw-r--r-- 0/0 3 1980-01-01 00:00 checkout/pkg/core/data.json",
                        "-rw-r--r-- 0/0 25 1980-01-01 00:00 checkout/pkg/core/engine.py",
                        "-rw-r--r-- 0/0 23 1980-01-01 00:00 checkout/pyproject.toml");
    }

    @Test
    void build_everyHeaderIncludingPax_hasZeroOwnersEmptyNamesFixedMtime() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        String longName = "a_really_long_module_name_that_needs_a_pax_header_".repeat(3) + ".py";
        Trees.write(root.resolve("pkg/" + longName), "x = 1\n");
        Trees.write(root.resolve("pkg/ünïcödé.py"), "y = 2\n");

        SourceArchive a = SourceArchive.build(root, MEMBERS);

        List<Header> headers = headers(a.toByteArray());
        assertThat(headers).extracting(Header::type).contains('x');
        assertThat(headers).allSatisfy(h -> {
            assertThat(h.uid()).as("uid of %s", h.name()).isZero();
            assertThat(h.gid()).as("gid of %s", h.name()).isZero();
            assertThat(h.uname()).as("owner name of %s", h.name()).isEmpty();
            assertThat(h.gname()).as("group name of %s", h.name()).isEmpty();
            assertThat(h.mtime()).as("mtime of %s", h.name()).isEqualTo(SourceArchive.ENTRY_MTIME.getEpochSecond());
        });
        String listing = String.join("\n", Trees.lines(readTarNames(a)));
        assertThat(listing).contains("checkout/pkg/" + longName, "checkout/pkg/ünïcödé.py");
    }

    @Test
    void build_gzipHeader_hasNoTimestampNameOrVaryingOs() throws IOException {
        byte[] b = SourceArchive.build(Trees.checkout(tmp, "checkout"), MEMBERS).toByteArray();

        assertThat(new byte[] {b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9]})
                .as("magic, deflate, no flags (no name), mtime 0, xfl 0, os 3")
                .containsExactly(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3);
    }

    @Test
    void build_largerThanOneChunk_isValidGzipThatGnuTarReads() throws Exception {
        Path root = tmp.resolve("synthetic");
        Trees.synthetic(root, 60, 3);

        SourceArchive a = SourceArchive.build(root);
        Path file = tmp.resolve("s.tar.gz");
        a.writeTo(file);

        assertThat(a.size()).isGreaterThan(ParallelGzip.CHUNK / 4);
        Trees.run(tmp, "gzip", "-t", file.toString());
        assertThat(Trees.lines(Trees.run(tmp, "tar", "-tzf", file.toString()))).hasSize(a.entries());
    }

    @Test
    void build_defaultExcludes_applyAtAnyDepth() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        Trees.write(root.resolve("pkg/core/deep/.pytest_cache/v"), "junk");
        Trees.write(root.resolve("pkg/core/deep/.mypy_cache/m"), "junk");
        Trees.write(root.resolve("pkg/core/deep/.ruff_cache/r"), "junk");
        Trees.write(root.resolve("pkg/core/deep/keep.py"), "k = 1\n");

        String names = readTarNames(SourceArchive.build(root));

        assertThat(names).contains("checkout/pkg/core/deep/keep.py", "checkout/notes.txt")
                .doesNotContain("__pycache__", ".pyc", ".git", "node_modules", ".venv", ".pytest_cache", ".mypy_cache",
                        ".ruff_cache");
    }

    @Test
    void build_customExcludes_globsByComponentAndByPath() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");

        String names = readTarNames(SourceArchive.build(root, List.of("pkg"), List.of("*.json", "pkg/bin")));

        assertThat(names).contains("checkout/pkg/core/engine.py", "checkout/pkg/__pycache__/")
                .doesNotContain("data.json", "pkg/bin");
    }

    @Test
    void build_symlinkInsideRoot_storedAsSymlinkNotFollowed() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        Files.createSymbolicLink(root.resolve("pkg/alias.py"), Path.of("core/engine.py"));
        Files.createSymbolicLink(root.resolve("pkg/shared"), Path.of("core"));

        SourceArchive a = SourceArchive.build(root, MEMBERS);

        List<Header> headers = headers(a.toByteArray());
        assertThat(headers).filteredOn(h -> h.name().equals("checkout/pkg/alias.py"))
                .singleElement().satisfies(h -> {
                    assertThat(h.type()).isEqualTo('2');
                    assertThat(h.linkName()).isEqualTo("core/engine.py");
                });
        assertThat(headers).extracting(Header::name).noneMatch(n -> n.startsWith("checkout/pkg/shared/"));
    }

    @Test
    void build_symlinkOutsideRoot_refusedNamingIt() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        Files.createSymbolicLink(root.resolve("pkg/secrets"), Path.of("../../outside"));

        assertThatThrownBy(() -> SourceArchive.build(root, MEMBERS))
                .isInstanceOf(ArchiveException.class)
                .hasMessageContaining("pkg/secrets").hasMessageContaining("points outside the root");
    }

    @Test
    void build_absoluteSymlink_refused() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");
        Files.createSymbolicLink(root.resolve("pkg/passwd"), Path.of("/etc/passwd"));

        assertThatThrownBy(() -> SourceArchive.build(root, MEMBERS))
                .isInstanceOf(ArchiveException.class)
                .hasMessageContaining("pkg/passwd").hasMessageContaining("absolute path /etc/passwd");
    }

    @Test
    void build_socketAndFifo_skippedAndReported() throws Exception {
        Path root = Trees.checkout(tmp, "checkout");
        Trees.run(tmp, "mkfifo", root.resolve("pkg/pipe").toString());
        try (ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.bind(UnixDomainSocketAddress.of(root.resolve("pkg/agent.sock")));

            SourceArchive a = SourceArchive.build(root, MEMBERS);

            assertThat(a.skipped()).containsExactly("pkg/agent.sock (socket, skipped)", "pkg/pipe (fifo, skipped)");
            assertThat(readTarNames(a)).doesNotContain("agent.sock", "pipe");
        }
    }

    @Test
    void build_missingMember_errorNamesIt() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");

        assertThatThrownBy(() -> SourceArchive.build(root, List.of("pkg", "setup.py")))
                .isInstanceOf(ArchiveException.class)
                .hasMessageContaining("Member 'setup.py' does not exist in " + root.toRealPath());
    }

    @Test
    void build_missingRootOrNestedMember_clearError() throws IOException {
        Path root = Trees.checkout(tmp, "checkout");

        assertThatThrownBy(() -> SourceArchive.build(tmp.resolve("nope"), List.of()))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("does not exist");
        assertThatThrownBy(() -> SourceArchive.build(root, List.of("pkg/core")))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("not a top-level name");
        assertThatThrownBy(() -> SourceArchive.build(root, List.of(".git")))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("matches an exclude");
    }

    @Test
    void writeTo_existingFifo_writtenInPlaceNotReplaced() throws Exception {
        SourceArchive a = SourceArchive.build(Trees.checkout(tmp, "checkout"), MEMBERS);
        Path fifo = tmp.resolve("pipe");
        Trees.run(tmp, "mkfifo", fifo.toString());
        java.util.concurrent.CompletableFuture<byte[]> read = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return Files.readAllBytes(fifo);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });

        a.writeTo(fifo);

        assertThat(read.get(30, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(a.toByteArray());
        assertThat(fifo).satisfies(p -> assertThat(Files.isRegularFile(p)).as("still a fifo").isFalse());
        assertThatThrownBy(() -> a.writeTo(tmp)).isInstanceOf(IOException.class).hasMessageContaining("is a directory");
    }

    /**
     * A member over 2 GiB (sparse, so it costs no disk) is streamed: the build runs in the test JVM's 1 GiB heap,
     * where reading it whole, or queueing its uncompressed chunks, ran out of memory.
     */
    @Test
    void build_fileOver2GiB_isStreamedWithinAOneGigabyteHeap() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("big"));
        long size = 2L * 1024 * 1024 * 1024 + 100L * 1024 * 1024;
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(root.resolve("huge.bin").toFile(), "rw")) {
            f.setLength(size);
        }
        Files.writeString(root.resolve("small.txt"), "after the big one");
        assertThat(Runtime.getRuntime().maxMemory()).as("surefire's -Xmx1g").isLessThan(size / 2);

        SourceArchive a = SourceArchive.build(root);

        long content = 0;
        String small = null;
        try (var tar = new org.apache.commons.compress.archivers.tar.TarArchiveInputStream(
                new GZIPInputStream(new ByteArrayInputStream(a.toByteArray())))) {
            org.apache.commons.compress.archivers.tar.TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                if (e.getName().equals("big/huge.bin")) {
                    assertThat(e.getSize()).isEqualTo(size);
                    byte[] buf = new byte[1 << 20];
                    int n;
                    while ((n = tar.read(buf)) > 0) {
                        content += n;
                    }
                } else if (e.getName().equals("big/small.txt")) {
                    small = new String(tar.readAllBytes(), StandardCharsets.UTF_8);
                }
            }
        }
        assertThat(content).isEqualTo(size);
        assertThat(small).isEqualTo("after the big one");
        assertThat(a.firstChange()).as("the manifest check streams the big file too").isNull();
    }

    @Test
    void build_fileNameNotValidUtf8_failsNamingThePathNotAsDisappeared() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("latin1/pkg"));
        // The raw Latin-1 byte 0xE9, made by the shell: Java cannot spell such a name itself.
        Trees.run(root, "bash", "-c", "printf x > $'caf\\xe9.txt'");
        try (var s = Files.list(root)) {
            assertThat(s.count()).as("the shell made the file").isEqualTo(1);
        }

        assertThatThrownBy(() -> SourceArchive.build(tmp.resolve("latin1")))
                .isInstanceOf(ArchiveException.class)
                .hasMessageContaining("is not valid UTF-8").hasMessageContaining(root.toString() + "/caf")
                .hasMessageNotContaining("disappeared");
    }

    // --- extract

    @Test
    void extract_gnuTarAndExtract_identicalTrees() throws Exception {
        Path root = Trees.checkout(tmp, "checkout");
        Files.createSymbolicLink(root.resolve("pkg/alias.py"), Path.of("core/engine.py"));
        Path file = tmp.resolve("a.tar.gz");
        SourceArchive a = SourceArchive.build(root, MEMBERS);
        a.writeTo(file);
        Path byGnu = Files.createDirectories(tmp.resolve("gnu"));
        Path byKiln = tmp.resolve("kiln");

        Trees.run(byGnu, "tar", "-xzf", file.toString());
        int n = SourceArchive.extract(file, byKiln);

        assertThat(n).isEqualTo(a.entries());
        assertThat(Trees.describe(byKiln)).isEqualTo(Trees.describe(byGnu)).containsKey("checkout/pkg/bin/tool.sh");
        assertThat(Trees.describe(byKiln).get("checkout/pkg/bin/tool.sh")).startsWith("file rwxr-xr-x 315532800000");
    }

    @Test
    void extract_dotDotTraversal_refusedNothingWritten() throws IOException {
        Path bad = Crafted.archive(tmp, c -> {
            c.file("ok/first.txt", "fine");
            c.file("ok/../../escaped.txt", "pwned");
        });
        Path into = tmp.resolve("into");

        assertThatThrownBy(() -> SourceArchive.extract(bad, into))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("'ok/../../escaped.txt' climbs out with '..'");
        assertThat(tmp.resolve("escaped.txt")).doesNotExist();
        assertThat(into).doesNotExist();
    }

    @Test
    void extract_absolutePath_refusedNothingWritten() throws IOException {
        Path target = tmp.resolve("abs-target.txt");
        Path bad = Crafted.archive(tmp, c -> c.file(target.toString(), "pwned"));

        assertThatThrownBy(() -> SourceArchive.extract(bad, tmp.resolve("into")))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("is an absolute path");
        assertThat(target).doesNotExist();
    }

    @Test
    void extract_symlinkEscapingThenWriteThroughIt_refusedNothingWritten() throws IOException {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Path bad = Crafted.archive(tmp, c -> {
            c.symlink("pkg/door", "../../outside");
            c.file("pkg/door/owned.txt", "pwned");
        });

        assertThatThrownBy(() -> SourceArchive.extract(bad, tmp.resolve("into")))
                .isInstanceOf(ArchiveException.class)
                .hasMessageContaining("'pkg/door' is a symlink to ../../outside, which points outside the target directory");
        assertThat(outside).isEmptyDirectory();
    }

    @Test
    void extract_symlinkInsideThenWriteThroughIt_refused() throws IOException {
        Path bad = Crafted.archive(tmp, c -> {
            c.symlink("pkg/door", "sub");
            c.file("pkg/door/owned.txt", "through a link");
        });

        assertThatThrownBy(() -> SourceArchive.extract(bad, tmp.resolve("into")))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("goes through the symlink pkg/door");
    }

    @Test
    void extract_absoluteSymlinkOrEscapingHardlink_refused() throws IOException {
        Path abs = Crafted.archive(tmp, c -> c.symlink("etc", "/etc"));
        Path hard = Crafted.archive(tmp, c -> c.hardlink("pkg/shadow", "../../etc/shadow"));

        assertThatThrownBy(() -> SourceArchive.extract(abs, tmp.resolve("a")))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("symlink to the absolute path /etc");
        assertThatThrownBy(() -> SourceArchive.extract(hard, tmp.resolve("b")))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("climbs out with '..'");
    }

    @Test
    void extract_preexistingSymlinkInTarget_notFollowedOutside() throws IOException {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Path into = Files.createDirectories(tmp.resolve("into"));
        Files.createSymbolicLink(into.resolve("pkg"), outside);
        Path archive = Crafted.archive(tmp, c -> c.file("pkg/owned.txt", "pwned"));

        assertThatThrownBy(() -> SourceArchive.extract(archive, into))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("outside");
        assertThat(outside).isEmptyDirectory();
    }

    /** {@code b -> .} is inside, and {@code b/../outdir} is lexically inside too; through b it is outside. */
    @Test
    void extract_chainedSymlinksLeavingTheTarget_refusedNothingWritten() throws IOException {
        Path outdir = Files.createDirectories(tmp.resolve("outdir"));
        Path bad = Crafted.archive(tmp, c -> {
            c.symlink("b", ".");
            c.symlink("a", "b/../outdir");
        });
        Path into = tmp.resolve("into");

        assertThatThrownBy(() -> SourceArchive.extract(bad, into))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("'a' is a symlink to b/../outdir")
                .hasMessageContaining("outside the target directory");
        assertThat(into.resolve("a")).doesNotExist();
        assertThat(outdir).isEmptyDirectory();
    }

    /** A later link can change what an earlier one means: {@code x -> d/..} is inside until d becomes a link. */
    @Test
    void extract_laterSymlinkRedirectingAnEarlierOne_refused() throws IOException {
        Path bad = Crafted.archive(tmp, c -> {
            c.symlink("x", "d/../../outdir");
            c.symlink("d", "e/f");
        });

        assertThatThrownBy(() -> SourceArchive.extract(bad, tmp.resolve("into")))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("outside the target directory");
        assertThat(tmp.resolve("into")).doesNotExist();
    }

    @Test
    void extract_fifoOrDeviceEntry_refusedNotAnEmptyFile() throws IOException {
        Path fifo = Crafted.archive(tmp, c -> c.special("pipe", org.apache.commons.compress.archivers.tar.TarConstants.LF_FIFO));
        Path chr = Crafted.archive(tmp, c -> c.special("tty", org.apache.commons.compress.archivers.tar.TarConstants.LF_CHR));
        Path blk = Crafted.archive(tmp, c -> c.special("sda", org.apache.commons.compress.archivers.tar.TarConstants.LF_BLK));

        assertThatThrownBy(() -> SourceArchive.extract(fifo, tmp.resolve("a")))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("'pipe' is a FIFO");
        assertThatThrownBy(() -> SourceArchive.extract(chr, tmp.resolve("b")))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("'tty' is a character device");
        assertThatThrownBy(() -> SourceArchive.extract(blk, tmp.resolve("c")))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("'sda' is a block device");
        assertThat(tmp.resolve("a/pipe")).doesNotExist();
        assertThat(tmp.resolve("b/tty")).doesNotExist();
    }

    @Test
    void extract_nameWithAColon_isExtractedNotCalledAbsolute() throws IOException {
        Path ok = Crafted.archive(tmp, c -> {
            c.file("a:b", "colon");
            c.file("x/c:d.txt", "nested");
        });
        Path into = tmp.resolve("into");

        assertThat(SourceArchive.extract(ok, into)).isEqualTo(2);

        assertThat(Files.readString(into.resolve("a:b"))).isEqualTo("colon");
        assertThat(Files.readString(into.resolve("x/c:d.txt"))).isEqualTo("nested");
    }

    /**
     * The archive is read once: a source that serves a good archive to the first open and a hostile one (a link
     * out, with the same entry count) to any later open is what swapping the file between two reads by path did.
     */
    @Test
    void extract_archiveSwappedAfterTheCheck_isReadOnceSoTheSwapNeverLands() throws Exception {
        byte[] good = Files.readAllBytes(Crafted.archive(tmp, c -> c.file("ok.txt", "fine")));
        byte[] evil = Files.readAllBytes(Crafted.archive(tmp, c -> c.symlink("ok.txt", "../secret.txt")));
        Files.writeString(tmp.resolve("secret.txt"), "secret");
        java.util.concurrent.atomic.AtomicInteger opens = new java.util.concurrent.atomic.AtomicInteger();
        Path into = tmp.resolve("into");

        try {
            SafeExtract.extract("swapped", () -> new ByteArrayInputStream(opens.getAndIncrement() == 0 ? good : evil), into);
        } catch (ArchiveException e) {
            // before the fix the swap could land with or without an error; what is on disk decides
        }

        assertThat(Files.isSymbolicLink(into.resolve("ok.txt"))).as("a link planted by a second read").isFalse();
        assertThat(Files.readString(into.resolve("ok.txt"))).isEqualTo("fine");
        assertThat(opens).hasValue(1);
    }

    /** A FIFO as the archive (a pipe cannot be read twice, nor seeked) is extracted from its one read. */
    @Test
    void extract_archiveIsAFifo_extractsFromTheOneRead() throws Exception {
        byte[] good = Files.readAllBytes(Crafted.archive(tmp, c -> c.file("ok.txt", "fine")));
        Path fifo = tmp.resolve("piped.tar.gz");
        Trees.run(tmp, "mkfifo", fifo.toString());
        Thread writer = new Thread(() -> {
            try {
                Files.write(fifo, good);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, "fifo-writer");
        writer.setDaemon(true);
        writer.start();

        assertThat(SourceArchive.extract(fifo, tmp.resolve("into"))).isEqualTo(1);

        assertThat(Files.readString(tmp.resolve("into/ok.txt"))).isEqualTo("fine");
        writer.join(30_000);
    }

    /** Entries written before a failure are removed again; a file that was there before is put back. */
    @Test
    void extract_failsHalfway_rollsBackWhatItWroteAndRestoresWhatItReplaced() throws IOException {
        Path into = Files.createDirectories(tmp.resolve("into"));
        Files.writeString(into.resolve("keep.txt"), "mine");
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.createSymbolicLink(into.resolve("trap"), outside);
        Path archive = Crafted.archive(tmp, c -> {
            c.file("keep.txt", "theirs");
            c.dir("new");
            c.file("new/deep/file.txt", "x");
            c.file("trap/owned.txt", "pwned");
        });

        assertThatThrownBy(() -> SourceArchive.extract(archive, into))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("outside");

        assertThat(outside).isEmptyDirectory();
        assertThat(Files.readString(into.resolve("keep.txt"))).isEqualTo("mine");
        try (var s = Files.list(into)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("keep.txt", "trap");
        }
    }

    @Test
    void extract_notAnArchive_clearError() throws IOException {
        Path junk = tmp.resolve("junk.tar.gz");
        Files.writeString(junk, "this is not gzip");

        assertThatThrownBy(() -> SourceArchive.extract(junk, tmp.resolve("into")))
                .isInstanceOf(ArchiveException.class).hasMessageContaining("not a gzip'd tar");
    }

    // --- helpers

    record Header(String name, char type, long uid, long gid, String uname, String gname, long mtime, String linkName) {
    }

    /** Every raw 512-byte header of the tar inside {@code gz}, PAX extended headers included. */
    static List<Header> headers(byte[] gz) throws IOException {
        byte[] tar;
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            tar = in.readAllBytes();
        }
        List<Header> out = new ArrayList<>();
        int at = 0;
        while (at + 512 <= tar.length && tar[at] != 0) {
            long size = octal(tar, at + 124, 12);
            out.add(new Header(str(tar, at, 100), (char) tar[at + 156], octal(tar, at + 108, 8), octal(tar, at + 116, 8),
                    str(tar, at + 265, 32), str(tar, at + 297, 32), octal(tar, at + 136, 12), str(tar, at + 157, 100)));
            at += 512 + (int) ((size + 511) / 512) * 512;
        }
        return out;
    }

    private static String str(byte[] b, int off, int len) {
        int end = off;
        while (end < off + len && b[end] != 0) {
            end++;
        }
        return new String(b, off, end - off, StandardCharsets.UTF_8);
    }

    private static long octal(byte[] b, int off, int len) {
        String s = str(b, off, len).trim();
        return s.isEmpty() ? 0 : Long.parseLong(s, 8);
    }

    private static String readTarNames(SourceArchive a) throws IOException {
        StringBuilder b = new StringBuilder();
        try (var tar = new org.apache.commons.compress.archivers.tar.TarArchiveInputStream(
                new GZIPInputStream(new ByteArrayInputStream(a.toByteArray())), "UTF-8")) {
            for (var e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
                b.append(e.getName()).append('\n');
            }
        }
        return b.toString();
    }
}
