package dev.kiln.core.serve.wire;

import static dev.kiln.core.serve.wire.WireTypes.constant;
import static dev.kiln.core.serve.wire.WireTypes.duration;
import static dev.kiln.core.serve.wire.WireTypes.list;
import static dev.kiln.core.serve.wire.WireTypes.ms;
import static dev.kiln.core.serve.wire.WireTypes.name;
import static dev.kiln.core.serve.wire.WireTypes.orNull;
import static dev.kiln.core.serve.wire.WireTypes.pathOf;
import static dev.kiln.core.serve.wire.WireTypes.pathText;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.kiln.core.seed.CopyMode;
import dev.kiln.core.seed.CopyReport;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmPlan;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.serve.wire.WireTypes.Codec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The seed routes' wire types ({@code seeds}, {@code seeds/history}, {@code seeds/plan}, a warm's result) and the
 * {@code warm_*} / {@code seed_copied} frames. Naming rule: {@link WireTypes}.
 */
final class WireSeeds {
    private WireSeeds() {
    }

    /** {@code GET /api/v1/seeds}: one target's seed. */
    record Seed(@JsonProperty("target") String target, @JsonProperty("seed_dir") String seedDir,
            @JsonProperty("seeded") boolean seeded, @JsonProperty("hash") @Nullable String hash,
            @JsonProperty("current_hash") @Nullable String currentHash, @JsonProperty("uv_version") @Nullable String uvVersion,
            @JsonProperty("warmed_at") @Nullable Instant warmedAt, @JsonProperty("warm_duration_ms") @Nullable Long warmDurationMs,
            @JsonProperty("bytes") long bytes, @JsonProperty("files") long files, @JsonProperty("wheels") long wheels,
            @JsonProperty("problem") @Nullable String problem) {
        static Seed of(SeedInfo s) {
            return new Seed(s.target(), pathText(s.seedDir()), s.seeded(), orNull(s.hash()), orNull(s.currentHash()),
                    orNull(s.uvVersion()), orNull(s.warmedAt()), ms(s.warmDuration()), s.bytes(), s.files(), s.wheels(),
                    orNull(s.problem()));
        }

        SeedInfo core() {
            return new SeedInfo(target, pathOf(seedDir), seeded, Optional.ofNullable(hash), Optional.ofNullable(currentHash),
                    Optional.ofNullable(uvVersion), Optional.ofNullable(warmedAt), duration(warmDurationMs), bytes, files,
                    wheels, Optional.ofNullable(problem));
        }
    }

    /** {@code GET /api/v1/seeds/history} (oldest first), a warm action's result, {@code warm_finished}. */
    record Warm(@JsonProperty("target") String target, @JsonProperty("outcome") String outcome,
            @JsonProperty("hash") String hash, @JsonProperty("at") Instant at, @JsonProperty("duration_ms") long durationMs,
            @JsonProperty("bytes") long bytes, @JsonProperty("files") long files, @JsonProperty("message") String message,
            @JsonProperty("stderr_tail") List<String> stderrTail) {
        static Warm of(WarmResult w) {
            return new Warm(w.target(), name(w.outcome()), w.hash(), w.at(), w.duration().toMillis(), w.bytes(), w.files(),
                    w.message(), w.stderrTail());
        }

        WarmResult core() {
            return new WarmResult(target, constant(WarmOutcome.class, outcome), hash, at, Duration.ofMillis(durationMs), bytes,
                    files, message, list(stderrTail));
        }
    }

    /** {@code GET /api/v1/seeds/plan?target=T}: the dry run of a warm. */
    record Plan(@JsonProperty("target") String target, @JsonProperty("hash") String hash,
            @JsonProperty("seeded_hash") @Nullable String seededHash, @JsonProperty("warm_needed") boolean warmNeeded,
            @JsonProperty("seed_dir") String seedDir, @JsonProperty("command") List<String> command,
            @JsonProperty("environment") List<String> environment, @JsonProperty("uv_problem") @Nullable String uvProblem) {
        static Plan of(WarmPlan p) {
            return new Plan(p.target(), p.hash(), orNull(p.seededHash()), p.warmNeeded(), pathText(p.seedDir()), p.command(),
                    p.environment(), orNull(p.uvProblem()));
        }

        WarmPlan core() {
            return new WarmPlan(target, hash, Optional.ofNullable(seededHash), warmNeeded, pathOf(seedDir), list(command),
                    list(environment), Optional.ofNullable(uvProblem));
        }
    }

    /** A seed copied into a job's scratch cache (in {@code seed_copied}). */
    record Copy(@JsonProperty("copied") boolean copied, @JsonProperty("files") long files, @JsonProperty("bytes") long bytes,
            @JsonProperty("links") long links, @JsonProperty("duration_ms") long durationMs,
            @JsonProperty("problem") @Nullable String problem, @JsonProperty("refused") boolean refused,
            @JsonProperty("copy_mode") String copyMode) {
        static Copy of(CopyReport c) {
            return new Copy(c.copied(), c.files(), c.bytes(), c.links(), c.duration().toMillis(), orNull(c.problem()),
                    c.refused(), WireTypes.name(c.mode()));
        }

        CopyReport core() {
            return new CopyReport(copied, files, bytes, links, Duration.ofMillis(durationMs), Optional.ofNullable(problem),
                    refused, WireTypes.constant(CopyMode.class, copyMode));
        }
    }

    /** Frame {@code warm_started}. */
    record WarmStarted(@JsonProperty("at") Instant at, @JsonProperty("target") String target,
            @JsonProperty("hash") String hash, @JsonProperty("command") List<String> command, @JsonProperty("pid") long pid) {
        static WarmStarted of(SeedEvent.WarmStarted e) {
            return new WarmStarted(e.at(), e.target(), e.hash(), e.command(), e.pid());
        }

        SeedEvent.WarmStarted core() {
            return new SeedEvent.WarmStarted(at, target, hash, list(command), pid);
        }
    }

    /** Frame {@code warm_output}: one line uv printed (credentials redacted). */
    record WarmOutput(@JsonProperty("at") Instant at, @JsonProperty("target") String target,
            @JsonProperty("line") String line, @JsonProperty("stderr") boolean stderr) {
        static WarmOutput of(SeedEvent.WarmOutput e) {
            return new WarmOutput(e.at(), e.target(), e.line(), e.stderr());
        }

        SeedEvent.WarmOutput core() {
            return new SeedEvent.WarmOutput(at, target, line, stderr);
        }
    }

    /** Frame {@code warm_finished}. */
    record WarmFinished(@JsonProperty("at") Instant at, @JsonProperty("result") Warm result) {
        static WarmFinished of(SeedEvent.WarmFinished e) {
            return new WarmFinished(e.at(), Warm.of(e.result()));
        }

        SeedEvent.WarmFinished core() {
            return new SeedEvent.WarmFinished(at, result.core());
        }
    }

    /** Frame {@code seed_copied}. */
    record SeedCopied(@JsonProperty("at") Instant at, @JsonProperty("target") String target,
            @JsonProperty("scratch") String scratch, @JsonProperty("report") Copy report) {
        static SeedCopied of(SeedEvent.SeedCopied e) {
            return new SeedCopied(e.at(), e.target(), pathText(e.scratch()), Copy.of(e.report()));
        }

        SeedEvent.SeedCopied core() {
            return new SeedEvent.SeedCopied(at, target, pathOf(scratch), report.core());
        }
    }

    static final List<Codec<?, ?>> CODECS = List.of(
            Codec.of(SeedInfo.class, Seed.class, Seed::of, Seed::core),
            Codec.of(WarmResult.class, Warm.class, Warm::of, Warm::core),
            Codec.of(WarmPlan.class, Plan.class, Plan::of, Plan::core),
            Codec.of(CopyReport.class, Copy.class, Copy::of, Copy::core),
            Codec.of(SeedEvent.WarmStarted.class, WarmStarted.class, WarmStarted::of, WarmStarted::core),
            Codec.of(SeedEvent.WarmOutput.class, WarmOutput.class, WarmOutput::of, WarmOutput::core),
            Codec.of(SeedEvent.WarmFinished.class, WarmFinished.class, WarmFinished::of, WarmFinished::core),
            Codec.of(SeedEvent.SeedCopied.class, SeedCopied.class, SeedCopied::of, SeedCopied::core));
}
