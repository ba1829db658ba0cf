package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code kiln --version} is answered by Main before picocli is built (the start scripts pay most often): its line
 * must stay exactly what picocli prints for {@code --version} and {@code -V}, so the command surface is unchanged.
 */
class VersionLineTest {
    @Test
    void versionLines_areWhatPicocliPrints() {
        String fast = String.join(System.lineSeparator(), KilnCommand.versionLines()) + System.lineSeparator();

        CliRun longForm = CliRun.kiln("--version");
        CliRun shortForm = CliRun.kiln("-V");

        assertThat(longForm.exit()).isZero();
        assertThat(longForm.out()).isEqualTo(fast).startsWith("kiln ");
        assertThat(shortForm.out()).isEqualTo(fast);
    }

    @Test
    void anInstalledImage_namesItsPackageVersion() {
        assertThat(KilnCommand.versionLines()[0]).doesNotContain("package"); // a JDK's java.home has no app/kiln.cfg
        System.setProperty("jpackage.app-version", "1.4.2");
        try {
            assertThat(KilnCommand.versionLines()[0]).startsWith("kiln ").contains("(package 1.4.2, Java ");
        } finally {
            System.clearProperty("jpackage.app-version");
        }
    }
}
