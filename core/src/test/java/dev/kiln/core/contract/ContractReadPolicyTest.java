package dev.kiln.core.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19, defects 2 and 3, at the level of {@link ContractStore#readBounded} (the read {@code kiln project}, the
 * daemon and heal share): what is refused, and that no failure message carries a byte of the file.
 */
@ProcessTest @KernelTest
class ContractReadPolicyTest {
    private static final String TOKEN = "kilnSecretToken7f3a9c2e4b6d8f0a1c3e5b7d9f2a4c6e";

    @TempDir
    Path root;

    private static void assertNoPieceOfTheToken(String text) {
        for (int i = 0; i + 6 <= TOKEN.length(); i++) {
            assertThat(text).doesNotContain(TOKEN.substring(i, i + 6));
        }
    }

    private Path leaf(String name) throws Exception {
        Path d = root.resolve("tasks/team").resolve(name);
        Files.createDirectories(d);
        return d.resolve("contract.json");
    }

    @Test
    void readBounded_symlinkToAMode600Token_refusedWithoutReadingIt() throws Exception {
        Path token = root.resolve("observer/api-token");
        Files.createDirectories(token.getParent());
        Files.writeString(token, TOKEN);
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
        Path link = leaf("evil");
        Files.createSymbolicLink(link, link.getParent().relativize(token));

        assertThatThrownBy(() -> new ContractStore(root.resolve("tasks")).load(link))
                .isInstanceOfSatisfying(ContractReadException.class, e -> {
                    assertThat(e.kind().name()).isEqualTo("REFUSED");
                    assertNoPieceOfTheToken(e.getMessage());
                    assertThat(e.getCause()).isNull();
                })
                .hasMessageContaining("symbolic link");
    }

    @Test
    void read_tokenLikeBytes_malformedWithLineColumnAndKindButNoByteOfThem() {
        for (String content : new String[] {TOKEN, "{\"title\": " + TOKEN + "}", "{\"" + TOKEN + "\": 1, \"" + TOKEN + "\": 2}",
                "{\"title\": \"" + TOKEN + "\u0001\"}", "{\"title\": \"x\", " + TOKEN}) {
            assertThatThrownBy(() -> ContractCodec.read(content.getBytes(StandardCharsets.UTF_8)))
                    .as(content)
                    .isInstanceOfSatisfying(ContractReadException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ContractReadException.Kind.MALFORMED);
                        assertNoPieceOfTheToken(e.getMessage());
                        assertThat(e.getCause()).as("a cause would carry Jackson's quote into logs").isNull();
                    })
                    .hasMessageMatching("not valid JSON at line 1, column \\d+: .+");
        }
    }

    @Test
    void read_tokenInAFieldOfTheWrongShape_invalidNamingTheFieldNotTheValue() {
        for (String content : new String[] {"{\"deadline\": \"" + TOKEN + "\"}", "{\"enclosure\": [\"" + TOKEN + "\", {\"k\": \""
                + TOKEN + "\"}]}", "{\"title\": [\"" + TOKEN + "\"]}", "{\"engine\": {\"pid\": \"" + TOKEN + "\"}}"}) {
            assertThatThrownBy(() -> ContractCodec.read(content.getBytes(StandardCharsets.UTF_8)))
                    .as(content)
                    .isInstanceOfSatisfying(ContractReadException.class, e -> {
                        assertThat(e.kind()).isEqualTo(ContractReadException.Kind.INVALID);
                        assertNoPieceOfTheToken(e.getMessage());
                    })
                    .hasMessageStartingWith("field '");
        }
    }

    @Test
    void readBounded_fifo_refusedAtOnceNamingWhatItIs() throws Exception {
        Path fifo = leaf("pipe");
        mkfifo(fifo);

        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThatThrownBy(
                () -> ContractStore.readBounded(fifo, ContractStore.DEFAULT_MAX_BYTES))
                .isInstanceOfSatisfying(ContractReadException.class, e -> assertThat(e.kind().name()).isEqualTo("REFUSED"))
                .hasMessageContaining("not a regular file"));
    }

    /**
     * The race the lstat cannot close: the open itself meets the FIFO. The open runs on the calling thread; the
     * watchdog releases it (the FIFO opened read-write), and what was opened is the FIFO, which fails its first read.
     */
    @Test
    void watchdogOpen_fifoStillThere_releasedOnTheCallingThread() throws Exception {
        Path fifo = leaf("pipe");
        mkfifo(fifo);
        OpenWatchdog w = OpenWatchdog.shared();
        Duration before = w.releaseAfter();
        w.releaseAfter(Duration.ofMillis(50));
        try (var ch = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> w.open(fifo))) {
            assertThatThrownBy(() -> ch.read(java.nio.ByteBuffer.allocate(8), 0)).hasMessageContaining("Illegal seek");
        } finally {
            w.releaseAfter(before);
        }
    }

    /**
     * The case a writer cannot release: the FIFO was renamed away (a regular file over it), so no open reaches it any
     * more. The signalled open looks again and opens what the path names now.
     */
    @Test
    void watchdogOpen_fifoRenamedAwayWhileBlocked_opensWhatThePathNamesNow() throws Exception {
        Path file = leaf("swapped");
        mkfifo(file);
        Path regular = file.resolveSibling("regular");
        Files.writeString(regular, "{}");
        OpenWatchdog w = OpenWatchdog.shared();
        Duration before = w.releaseAfter();
        w.releaseAfter(Duration.ofMillis(50));
        java.util.concurrent.CompletableFuture<Long> size = new java.util.concurrent.CompletableFuture<>();
        Thread opener = new Thread(() -> {
            try (var ch = w.open(file)) {
                size.complete(ch.size());
            } catch (Throwable t) {
                size.completeExceptionally(t);
            }
        }, "opener");
        try {
            w.releaseAfter(Duration.ofSeconds(30)); // keep it blocked until the FIFO is gone
            opener.start();
            dev.kiln.testkit.Await.await("the open blocked on the FIFO", () -> FifoSwapKeptUpTest.threadsWaitingOnAFifo() > 0);
            Files.move(regular, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            w.releaseAfter(Duration.ofMillis(50));
            assertThat(size.get(30, TimeUnit.SECONDS)).isEqualTo(2);
        } finally {
            w.releaseAfter(before);
            opener.join(10_000);
        }
    }

    static void mkfifo(Path p) throws Exception {
        Process mk = new ProcessBuilder("mkfifo", p.toString()).redirectErrorStream(true).start();
        assertThat(mk.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(mk.exitValue()).isZero();
    }
}
