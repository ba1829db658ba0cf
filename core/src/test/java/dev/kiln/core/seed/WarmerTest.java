package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pieces of a warm that need no uv: reading uv's refusal, the journal. */
@ProcessTest @KernelTest
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

    /**
     * A warm killed a moment ago whose parent has not reaped it yet is a zombie, which the JDK calls alive: its
     * throwaway project must still go when the next warm starts at once. The zombie here is real: a shell's
     * child that exits while the shell, exec'd into sleep, never waits for it.
     */
    @Test
    void removeOrphanProjects_ownerKilledButNotYetReaped_isRemoved(@TempDir Path tmp) throws Exception {
        Process parent = new ProcessBuilder("bash", "-c", "sleep 0 & echo $!; exec sleep 30").start();
        try {
            long zombie = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(
                    parent.getInputStream(), java.nio.charset.StandardCharsets.UTF_8)).readLine().strip());
            for (int i = 0; i < 3000 && !isZombie(zombie); i++) {
                Thread.sleep(1);
            }
            assertThat(isZombie(zombie)).as("pid %d exited, unreaped", zombie).isTrue();
            Path orphan = Files.createDirectories(tmp.resolve(SeedStore.projectPrefix(zombie, "app") + "123"));
            Files.writeString(orphan.resolve("pyproject.toml"), "[project]\n");
            Path live = Files.createDirectories(tmp.resolve(SeedStore.projectPrefix(parent.pid(), "app") + "456"));

            List<Path> removed = SeedStore.removeOrphanProjects(tmp);

            assertThat(removed).containsExactly(orphan);
            assertThat(orphan).doesNotExist();
            assertThat(live).exists();
        } finally {
            parent.destroyForcibly();
            parent.waitFor();
        }
    }

    private static boolean isZombie(long pid) throws Exception {
        Path stat = Path.of("/proc/" + pid + "/stat");
        if (!Files.exists(stat)) {
            return false;
        }
        String s = Files.readString(stat);
        return s.substring(s.lastIndexOf(')') + 2).startsWith("Z");
    }
}
