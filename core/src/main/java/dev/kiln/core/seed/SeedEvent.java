package dev.kiln.core.seed;

import dev.kiln.core.telemetry.KilnEvent;
import java.time.Instant;
import java.util.List;

/** What a warm publishes while it runs, so the console can show it live. */
public sealed interface SeedEvent extends KilnEvent {

    /** The target whose seed this is about. */
    String target();

    /**
     * uv was started for a warm.
     *
     * @param pid uv's process id (its tree is killed on cancel or timeout)
     */
    record WarmStarted(Instant at, String target, String hash, List<String> command, long pid) implements SeedEvent {
        public WarmStarted {
            command = List.copyOf(command);
        }

        @Override
        public String summary() {
            return "warm " + target + " started (" + shortHash(hash) + ", pid " + pid + ")";
        }
    }

    /**
     * One line uv wrote while warming.
     *
     * @param stderr whether uv wrote it to stderr (where uv reports its progress)
     */
    record WarmOutput(Instant at, String target, String line, boolean stderr) implements SeedEvent {
        @Override
        public String summary() {
            return "warm " + target + ": " + line;
        }
    }

    /** A warm ended, however it ended. */
    record WarmFinished(Instant at, WarmResult result) implements SeedEvent {
        @Override
        public String target() {
            return result.target();
        }

        @Override
        public String summary() {
            return "warm " + result.target() + " " + result.outcome().label() + ": " + result.message();
        }
    }

    /** A seed was copied into a job's scratch cache (or the copy failed, best-effort). */
    record SeedCopied(Instant at, String target, java.nio.file.Path scratch, CopyReport report) implements SeedEvent {
        @Override
        public String summary() {
            return report.copied()
                    ? "seed " + target + " copied into " + scratch + " (" + report.files() + " files, " + report.bytes() + " bytes)"
                    : "seed " + target + " not copied into " + scratch + ": " + report.problem().orElse("?");
        }
    }

    private static String shortHash(String hash) {
        return hash.length() > 12 ? hash.substring(0, 12) : hash;
    }
}
