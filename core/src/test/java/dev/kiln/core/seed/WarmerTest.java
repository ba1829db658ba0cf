package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pieces of a warm that need no uv: reading uv's refusal, the journal. */
class WarmerTest {

    @Test
    void needsBuild_uvsNoBuildRefusal_namesThePackage() {
        List<String> stderr = List.of("Using CPython 3.11.7", "error: Distribution `docopt==0.6.2 @ registry+https://pypi.org/simple`"
                + " can't be installed because it is marked as `--no-build` but has no binary distribution");

        assertThat(Warmer.needsBuild(stderr)).contains("docopt==0.6.2");
        assertThat(Warmer.needsBuild(List.of("error: Failed to download `x`"))).isEmpty();
    }

    @Test
    void journal_appendThenRead_roundTripsAndSkipsATornLine(@TempDir Path dir) throws Exception {
        WarmJournal j = new WarmJournal(dir.resolve("observer/seed-warms.jsonl"));
        WarmResult a = new WarmResult("app", WarmOutcome.FAILED, "ab12", Instant.parse("2026-01-05T09:00:00Z"),
                Duration.ofMillis(1500), 10, 2, "uv sync failed", List.of("error: boom"));
        WarmResult b = new WarmResult("app", WarmOutcome.WARMED, "cd34", Instant.parse("2026-01-05T09:01:00Z"),
                Duration.ofMillis(900), 20, 4, "warmed", List.of());

        j.append(a);
        Files.writeString(j.file(), "{\"target\": \"half", java.nio.file.StandardOpenOption.APPEND);
        Files.writeString(j.file(), "\n", java.nio.file.StandardOpenOption.APPEND);
        j.append(b);

        assertThat(j.read()).containsExactly(a, b);
    }

    @Test
    void outcome_labels_areTheJournalsWords() {
        assertThat(List.of(WarmOutcome.values())).extracting(WarmOutcome::label)
                .containsExactly("warmed", "unchanged", "needs-build", "failed", "cancelled");
        assertThat(WarmOutcome.ofLabel("needs-build")).isEqualTo(WarmOutcome.NEEDS_BUILD);
    }
}
