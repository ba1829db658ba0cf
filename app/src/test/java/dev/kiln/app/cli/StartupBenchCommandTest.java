package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kiln bench startup} before the images exist: it must say how to build them, not fail obscurely. */
class StartupBenchCommandTest {

    @Test
    void withoutImages_saysHowToBuildThem(@TempDir Path checkout) throws Exception {
        Files.createDirectories(checkout.resolve("packaging"));
        Files.writeString(checkout.resolve("packaging/build.sh"), "#!/bin/sh\n");
        Path launcher = Files.writeString(checkout.resolve("kiln"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));

        CliRun run = CliRun.kiln("bench", "startup", "--json", "--checkout", checkout.toString());

        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("no packaged images in " + checkout.resolve("packaging/target"))
                .contains("mvn -B -Ppackage -DskipTests package");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void outsideACheckout_saysSo(@TempDir Path notACheckout) {
        CliRun run = CliRun.kiln("bench", "startup", "--checkout", notACheckout.toString());

        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("runs from a source checkout").contains("--checkout DIR");
    }

    @Test
    void zeroRuns_isRefused() {
        CliRun run = CliRun.kiln("bench", "startup", "--runs", "0");

        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("--runs must be at least 1");
    }
}
