package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Where a server's time to its answer went: before its first output (imports) or after it (work before answering). */
class PhaseTest {

    @Test
    void attribute_silentUntilItsAnswer_importBoundAndBytecodeCanHelp() {
        // The SDK's server writes nothing before its answer: everything is interpreter start and imports.
        Phase.Attribution a = Phase.attribute(new Timeline(0.0, 2_000.0, null, 2_000.0, 2_010.0, 2_100.0), Launcher.PYTHON);

        assertThat(a.bound()).isEqualTo(Phase.Bound.IMPORTS);
        assertThat(a.startMs()).isEqualTo(2_000);
        assertThat(a.workMs()).isZero();
        assertThat(a.explain()).isEqualTo("2000 of 2000 ms before its first output (interpreter start and imports):"
                + " precompiled bytecode shortens this (kiln bytecode compile)");
    }

    @Test
    void attribute_importBoundByRuntime_nodeGetsTheCompileCacheAndAnUnknownOneNothing() {
        Timeline t = new Timeline(0.0, 2_000.0, null, 2_000.0, 2_010.0, 2_100.0);

        assertThat(Phase.attribute(t, Launcher.NODE).explain()).contains("NODE_COMPILE_CACHE").doesNotContain("bytecode");
        assertThat(Phase.attribute(t, Launcher.OTHER).explain())
                .isEqualTo("2000 of 2000 ms before its first output (interpreter start and imports)");
    }

    @Test
    void attribute_mostlyInTheLauncher_fetchBoundWithTheSeedAdvice() {
        // npx handed off at 9 s; the server spoke 300 ms later and answered at 9.4 s
        Timeline t = new Timeline(0.0, 9_400.0, 9_300.0, 9_400.0, 9_450.0, 9_500.0, 9_000.0);
        Phase.Attribution a = Phase.attribute(t, Launcher.NPX);

        assertThat(a.bound()).isEqualTo(Phase.Bound.FETCH);
        assertThat(a.fetchMs()).isEqualTo(9_000);
        assertThat(a.startMs()).isEqualTo(300);
        assertThat(a.explain()).startsWith("9000 of 9400 ms in npx before the server ran").contains("kiln warm --servers");
        assertThat(Phase.segments(t)).extracting(Phase.Segment::phase)
                .startsWith(Phase.FETCH, Phase.START, Phase.WORK);
        assertThat(t.isOrdered()).isTrue();
    }

    @Test
    void attribute_seededRunThatDownloadedNothing_pointsAtTheInstalledFormNotAtASeed() {
        Timeline t = new Timeline(0.0, 9_400.0, 9_300.0, 9_400.0, 9_450.0, 9_500.0, 9_000.0);

        String seeded = Phase.attribute(t, Launcher.NPX, FetchPhase.Downloaded.NO).explain();

        assertThat(seeded).startsWith("9000 of 9400 ms in npx before the server ran").contains("nothing was downloaded")
                .contains("installed form").doesNotContain("removes the download");
        assertThat(Phase.attribute(t, Launcher.NPX, FetchPhase.Downloaded.YES).explain()).contains("removes the download");
    }

    @Test
    void attribute_fetchingLauncherWithoutAHandOff_saysUnknownNeverGuesses() {
        Phase.Attribution a = Phase.attribute(new Timeline(0.0, 2_000.0, null, 2_000.0, 2_010.0, 2_100.0), Launcher.UVX);

        assertThat(a.fetchMs()).isNull();
        assertThat(a.bound()).isEqualTo(Phase.Bound.IMPORTS);
        assertThat(a.explain()).contains("time in uvx before the server ran: unknown");
    }

    @Test
    void attribute_logsEarlyThenWorksBeforeAnswering_saysPrecompilingCannotHelp() {
        Phase.Attribution a = Phase.attribute(new Timeline(0.0, 9_000.0, 300.0, 9_000.0, 9_100.0, 9_200.0));

        assertThat(a.bound()).isEqualTo(Phase.Bound.WORK);
        assertThat(a.startMs()).isEqualTo(300);
        assertThat(a.workMs()).isEqualTo(8_700);
        assertThat(a.explain()).startsWith("8700 of 9000 ms after its first output, before answering")
                .endsWith("precompiling cannot help, its time is spent after its imports");
    }

    @Test
    void attribute_neverAnswered_unknownWithWhatIsKnown() {
        assertThat(Phase.attribute(new Timeline(0.0, null, 50.0, null, null, 30_000.0)).explain())
                .isEqualTo("50 ms before its first output; no answer to attribute the rest");
        assertThat(Phase.attribute(new Timeline(0.0, null, null, null, null, null)).bound()).isEqualTo(Phase.Bound.UNKNOWN);
    }

    @Test
    void segments_inOrderAndOnlyThoseThatHappened() {
        Timeline t = new Timeline(1.0, 120.0, 100.0, 400.0, 450.0, 500.0);

        assertThat(Phase.segments(t)).extracting(Phase.Segment::phase)
                .containsExactly(Phase.START, Phase.WORK, Phase.TOOLS, Phase.SHUTDOWN);
        assertThat(Phase.START.in(t).ms()).isEqualTo(99);
        assertThat(Phase.WORK.in(t).ms()).isEqualTo(300);
        assertThat(Phase.segments(new Timeline(1.0, null, null, null, null, null))).isEmpty();
        // A banner after the answer does not end the imports later than the answer.
        assertThat(Phase.START.in(new Timeline(0.0, 50.0, 900.0, 50.0, 60.0, 70.0)).toMs()).isEqualTo(50);
    }
}
