package dev.kiln.core.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.kiln.core.serve.client.ServeClient;
import dev.kiln.core.serve.wire.ApiToken;
import dev.kiln.core.serve.wire.SecretFile;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Token and password files are read by {@link SecretFile} only, through the daemon's and the clients' own paths
 * ({@link ApiToken#read}, {@link TlsIdentity#load}, {@link ServeClient}): real FIFOs made with {@code mkfifo},
 * {@code /dev/zero}, directories, files with a stray second line, files of mode 644. Each test is bounded
 * ({@link Timeout}) only so that a read that blocks fails instead of hanging the build.
 */
@ProcessTest @KernelTest
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SecretFileTest {
    private static final String TOKEN = "c0ffee".repeat(10) + "abcd";

    @TempDir
    Path dir;

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(SecretFile.class);

    @BeforeEach
    void captureWarnings() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void stopCapturing() {
        logger.detachAppender(log);
    }

    @Test
    void token_oneLine_withOrWithoutItsLineEnd_isTheToken_evenThroughASymlink() throws Exception {
        assertThat(ApiToken.read(privately(dir.resolve("lf"), TOKEN + "\n")).value()).isEqualTo(TOKEN);
        assertThat(ApiToken.read(privately(dir.resolve("crlf"), TOKEN + "\r\n")).value()).isEqualTo(TOKEN);
        assertThat(ApiToken.read(privately(dir.resolve("bare"), TOKEN)).value()).isEqualTo(TOKEN);
        Path link = Files.createSymbolicLink(dir.resolve("link"), dir.resolve("lf"));
        assertThat(ApiToken.read(link).value()).isEqualTo(TOKEN);
        assertThat(warnings()).as("a mode-600 file is used without a word").isEmpty();
    }

    @Test
    void token_withAStrayLineOrLikeShadow_refusedAsNotOneToken_neverQuoted() throws Exception {
        Path stray = privately(dir.resolve("stray.token"), TOKEN + "\nleft-over-from-an-edit\n");
        assertRefused(() -> ApiToken.read(stray), stray, "holds 2 lines", TOKEN, "left-over");
        Path shadow = privately(dir.resolve("shadow"), "root:$6$salt$hashhashhash:19000:0:99999:7:::\n"
                + "daemon:*:19000:0:99999:7:::\n" + "op:$6$pepper$secrethash:19000:0:99999:7:::\n");
        assertRefused(() -> ApiToken.read(shadow), shadow, "holds 3 lines", "$6$", "secrethash");
        Path spaced = privately(dir.resolve("spaced"), "Bearer " + TOKEN + "\n");
        assertRefused(() -> ApiToken.read(spaced), spaced, "not a token", TOKEN, "Bearer");
        Path empty = privately(dir.resolve("empty"), "");
        assertRefused(() -> ApiToken.read(empty), empty, "is empty");
    }

    @Test
    void token_strayLine_throughTheClient_neverReachesAHeaderOrAMessage() throws Exception {
        Path stray = privately(dir.resolve("stray.token"), TOKEN + "\nsecond-line\n");
        // nothing listens on port 1: the token is read, and refused, before anything is sent
        ServeClient c = ServeClient.remote(URI.create("http://127.0.0.1:1/"), stray, null);
        assertRefused(c::health, stray, "holds 2 lines", TOKEN, "second-line", "invalid header");
    }

    @Test
    void fifo_refusedWithoutBlocking_asTokenAndAsPassword() throws Exception {
        Path fifo = mkfifo(dir.resolve("eval-3.token"));
        assertRefused(() -> ApiToken.read(fifo), fifo, "is a FIFO, not a regular file");
        Path ks = ApiSecurityTest.Keystores.selfSigned(dir.resolve("k.p12"), "s3cret-pass", "localhost");
        assertThatThrownBy(() -> TlsIdentity.load(ks, fifo)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TLS password file " + fifo).hasMessageContaining("is a FIFO")
                .hasMessageContaining("one line");
    }

    @Test
    void keystoreThatIsAFifo_refusedWithoutBlockingKilnServe() throws Exception {
        Path pw = privately(dir.resolve("pw"), "s3cret-pass\n");
        Path fifo = mkfifo(dir.resolve("kiln.p12"));
        assertThatThrownBy(() -> TlsIdentity.load(fifo, pw)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TLS keystore " + fifo).hasMessageContaining("not a regular file");
    }

    @Test
    void devZeroAndADirectory_refusedWithoutReadingThem() throws Exception {
        Path zero = Path.of("/dev/zero");
        assertRefused(() -> ApiToken.read(zero), zero, "is a device, not a regular file");
        assertRefused(() -> ApiToken.read(dir), dir, "is a directory");
        Path big = privately(dir.resolve("big"), "x".repeat(SecretFile.MAX_BYTES + 1));
        assertRefused(() -> ApiToken.read(big), big, (SecretFile.MAX_BYTES + 1) + " bytes");
        assertRefused(() -> ApiToken.read(dir.resolve("none")), dir.resolve("none"), "does not exist");
    }

    @Test
    void fifoSwappedInAfterTheStat_theOpenIsBounded_andTheStuckOpenerLetGo() throws Exception {
        Path fifo = mkfifo(dir.resolve("swapped"));
        // what a FIFO renamed over the file between stat and open would do to the open itself
        assertThatThrownBy(() -> SecretFile.open(fifo, 200)).isInstanceOf(IOException.class)
                .hasMessageContaining("did not open within 200 ms");
        // a writer comes: the abandoned open returns and closes what it opened (the writer sees no reader left)
        try (OutputStream w = Files.newOutputStream(fifo, StandardOpenOption.WRITE)) {
            w.write(1);
        } catch (IOException brokenPipe) {
            // the opener closed its end first: what it should do
        }
        // a device swapped in that opens at once is read no further than the bound
        try (var ch = SecretFile.open(Path.of("/dev/zero"), 2_000)) {
            assertThatThrownBy(() -> SecretFile.readBounded(ch)).isInstanceOf(SecretFile.TooLarge.class);
        }
        // a FIFO that did open (a writer holds it) is not read either: a positional read fails on a pipe at once
        Path open = mkfifo(dir.resolve("held"));
        try (var holder = java.nio.channels.FileChannel.open(open, StandardOpenOption.READ, StandardOpenOption.WRITE);
                var ch = SecretFile.open(open, 2_000)) {
            assertThat(holder.isOpen()).isTrue();
            assertThatThrownBy(() -> SecretFile.readBounded(ch)).isInstanceOf(IOException.class)
                    .hasMessageContaining("Illegal seek");
        }
    }

    @Test
    void passwordFileReadableByOthers_warnsOnceNamingItAndChmod_privateOneSilent() throws Exception {
        Path ks = ApiSecurityTest.Keystores.selfSigned(dir.resolve("k.p12"), "s3cret-pass", "localhost");
        Path shared = Files.writeString(dir.resolve("tls-password"), "s3cret-pass\n");
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rw-r--r--"));
        TlsIdentity.load(ks, shared);
        TlsIdentity.load(ks, shared);
        assertThat(warnings()).as("one warning per file and mode").hasSize(1);
        assertThat(warnings().get(0)).contains("TLS password file " + shared).contains("mode 644")
                .contains("chmod 600 " + shared).doesNotContain("s3cret-pass");

        log.list.clear();
        Path own = privately(dir.resolve("own-password"), "s3cret-pass\n");
        TlsIdentity.load(ks, own);
        assertThat(warnings()).isEmpty();
    }

    @Test
    void tokenCopyReadableByOthers_usedWithAWarning_aRefusedOneOnlyRefused() throws Exception {
        Path shared = Files.writeString(dir.resolve("eval-3.token"), TOKEN + "\n");
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rw-r-----"));
        assertThat(ApiToken.read(shared).value()).isEqualTo(TOKEN);
        assertThat(warnings()).singleElement().asString().contains("API token file " + shared).contains("mode 640")
                .contains("chmod 600").doesNotContain(TOKEN);

        log.list.clear();
        Path stray = Files.writeString(dir.resolve("stray.token"), TOKEN + "\nmore\n");
        Files.setPosixFilePermissions(stray, PosixFilePermissions.fromString("rw-r--r--"));
        assertRefused(() -> ApiToken.read(stray), stray, "holds 2 lines", TOKEN);
        assertThat(warnings()).isEmpty();
    }

    @Test
    void passwordFile_strayLine_refused_oneLineWithSpaces_isThePassword() throws Exception {
        Path ks = ApiSecurityTest.Keystores.selfSigned(dir.resolve("k.p12"), "pass with spaces", "localhost");
        assertThat(TlsIdentity.load(ks, privately(dir.resolve("pw"), "pass with spaces\n")).fingerprint()).isNotBlank();
        Path stray = privately(dir.resolve("pw2"), "pass with spaces\nold-pass\n");
        assertThatThrownBy(() -> TlsIdentity.load(ks, stray)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(stray.toString()).hasMessageContaining("holds 2 lines")
                .hasMessageNotContaining("pass with spaces").hasMessageNotContaining("old-pass");
    }

    private List<String> warnings() {
        return log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    private interface Call {
        void run() throws Exception;
    }

    private static void assertRefused(Call call, Path file, String why, String... neverShown) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(call::run);
        assertThat(t).isInstanceOf(IOException.class).hasMessageContaining(file.toString()).hasMessageContaining(why)
                .hasMessageContaining("must hold one line");
        for (String secret : neverShown) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                assertThat(String.valueOf(c.getMessage())).doesNotContain(secret);
            }
        }
    }

    private static Path privately(Path file, String content) throws IOException {
        Files.writeString(file, content, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    static Path mkfifo(Path p) throws Exception {
        Process mk = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
        assertThat(mk.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(mk.exitValue()).isZero();
        return p;
    }
}
