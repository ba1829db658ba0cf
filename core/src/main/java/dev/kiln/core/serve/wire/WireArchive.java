package dev.kiln.core.serve.wire;

import static dev.kiln.core.serve.wire.WireTypes.constant;
import static dev.kiln.core.serve.wire.WireTypes.list;
import static dev.kiln.core.serve.wire.WireTypes.ms;
import static dev.kiln.core.serve.wire.WireTypes.name;
import static dev.kiln.core.serve.wire.WireTypes.nanos;
import static dev.kiln.core.serve.wire.WireTypes.orNull;
import static dev.kiln.core.serve.wire.WireTypes.pathOf;
import static dev.kiln.core.serve.wire.WireTypes.pathText;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.archive.ArchiveEntry;
import dev.kiln.core.archive.ArchiveEvent;
import dev.kiln.core.serve.wire.WireTypes.Codec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The archive routes' wire types ({@code archive/stats}, {@code archive/entries}, {@code archive/build},
 * {@code archive/invalidate}) and the {@code archive_*} frames. Naming rule: {@link WireTypes}.
 */
final class WireArchive {
    private WireArchive() {
    }

    /** {@code GET /api/v1/archive/stats}: the cache's counters. */
    record Stats(@JsonProperty("hits") long hits, @JsonProperty("misses") long misses, @JsonProperty("builds") long builds,
            @JsonProperty("changes_found") long changesFound, @JsonProperty("evictions") long evictions,
            @JsonProperty("build_failures") long buildFailures, @JsonProperty("bytes_held") long bytesHeld,
            @JsonProperty("entries_held") long entriesHeld, @JsonProperty("total_build_ms") double totalBuildMs,
            @JsonProperty("last_build_ms") double lastBuildMs) {
        static Stats of(ArchiveCacheStats s) {
            return new Stats(s.hits(), s.misses(), s.builds(), s.changesFound(), s.evictions(), s.buildFailures(), s.bytesHeld(),
                    s.entriesHeld(), ms(s.totalBuildNanos()), ms(s.lastBuildNanos()));
        }

        ArchiveCacheStats core() {
            return new ArchiveCacheStats(hits, misses, builds, changesFound, evictions, buildFailures, bytesHeld, entriesHeld,
                    nanos(totalBuildMs), nanos(lastBuildMs));
        }
    }

    /** {@code GET /api/v1/archive/entries} (most recently used first), {@code POST archive/build}'s answer. */
    record Entry(@JsonProperty("root") String root, @JsonProperty("members") int members, @JsonProperty("files") int files,
            @JsonProperty("bytes") long bytes, @JsonProperty("sha256") String sha256, @JsonProperty("hits") long hits,
            @JsonProperty("built_at") Instant builtAt, @JsonProperty("last_validated") @Nullable Instant lastValidated) {
        static Entry of(ArchiveEntry e) {
            return new Entry(pathText(e.root()), e.members(), e.files(), e.bytes(), e.sha256(), e.hits(), e.builtAt(),
                    orNull(e.lastValidated()));
        }

        ArchiveEntry core() {
            return new ArchiveEntry(pathOf(root), members, files, bytes, sha256, hits, builtAt, Optional.ofNullable(lastValidated));
        }
    }

    /** Frame {@code archive_hit}. */
    record Hit(@JsonProperty("at") Instant at, @JsonProperty("root") String root, @JsonProperty("sha256") String sha256,
            @JsonProperty("bytes") long bytes, @JsonProperty("validated") boolean validated,
            @JsonProperty("validation_ms") double validationMs, @JsonProperty("stats") Stats stats) {
        static Hit of(ArchiveEvent.Hit e) {
            return new Hit(e.at(), pathText(e.root()), e.sha256(), e.bytes(), e.validated(), ms(e.validationNanos()), Stats.of(e.stats()));
        }

        ArchiveEvent.Hit core() {
            return new ArchiveEvent.Hit(at, pathOf(root), sha256, bytes, validated, nanos(validationMs), stats.core());
        }
    }

    /** Frame {@code archive_miss}. */
    record Miss(@JsonProperty("at") Instant at, @JsonProperty("root") String root, @JsonProperty("cause") String cause,
            @JsonProperty("change") @Nullable String change, @JsonProperty("stats") Stats stats) {
        static Miss of(ArchiveEvent.Miss e) {
            return new Miss(e.at(), pathText(e.root()), name(e.cause()), e.change(), Stats.of(e.stats()));
        }

        ArchiveEvent.Miss core() {
            return new ArchiveEvent.Miss(at, pathOf(root), constant(ArchiveEvent.MissCause.class, cause), change, stats.core());
        }
    }

    /** Frame {@code archive_built}. */
    record Built(@JsonProperty("at") Instant at, @JsonProperty("root") String root, @JsonProperty("members") List<String> members,
            @JsonProperty("sha256") String sha256, @JsonProperty("bytes") long bytes, @JsonProperty("entries") int entries,
            @JsonProperty("build_ms") long buildMs, @JsonProperty("skipped") List<String> skipped,
            @JsonProperty("stats") Stats stats) {
        static Built of(ArchiveEvent.Built e) {
            return new Built(e.at(), pathText(e.root()), e.members(), e.sha256(), e.bytes(), e.entries(), e.buildTime().toMillis(),
                    e.skipped(), Stats.of(e.stats()));
        }

        ArchiveEvent.Built core() {
            return new ArchiveEvent.Built(at, pathOf(root), list(members), sha256, bytes, entries, Duration.ofMillis(buildMs),
                    list(skipped), stats.core());
        }
    }

    /** Frame {@code archive_build_failed}. */
    record BuildFailed(@JsonProperty("at") Instant at, @JsonProperty("root") String root,
            @JsonProperty("message") String message, @JsonProperty("stats") Stats stats) {
        static BuildFailed of(ArchiveEvent.BuildFailed e) {
            return new BuildFailed(e.at(), pathText(e.root()), e.message(), Stats.of(e.stats()));
        }

        ArchiveEvent.BuildFailed core() {
            return new ArchiveEvent.BuildFailed(at, pathOf(root), message, stats.core());
        }
    }

    /** Frame {@code archive_evicted}. */
    record Evicted(@JsonProperty("at") Instant at, @JsonProperty("root") String root, @JsonProperty("sha256") String sha256,
            @JsonProperty("bytes") long bytes, @JsonProperty("cause") String cause, @JsonProperty("stats") Stats stats) {
        static Evicted of(ArchiveEvent.Evicted e) {
            return new Evicted(e.at(), pathText(e.root()), e.sha256(), e.bytes(), name(e.cause()), Stats.of(e.stats()));
        }

        ArchiveEvent.Evicted core() {
            return new ArchiveEvent.Evicted(at, pathOf(root), sha256, bytes, constant(ArchiveEvent.EvictionCause.class, cause),
                    stats.core());
        }
    }

    static final List<Codec<?, ?>> CODECS = List.of(
            Codec.of(ArchiveCacheStats.class, Stats.class, Stats::of, Stats::core),
            Codec.of(ArchiveEntry.class, Entry.class, Entry::of, Entry::core),
            Codec.of(ArchiveEvent.Hit.class, Hit.class, Hit::of, Hit::core),
            Codec.of(ArchiveEvent.Miss.class, Miss.class, Miss::of, Miss::core),
            Codec.of(ArchiveEvent.Built.class, Built.class, Built::of, Built::core),
            Codec.of(ArchiveEvent.BuildFailed.class, BuildFailed.class, BuildFailed::of, BuildFailed::core),
            Codec.of(ArchiveEvent.Evicted.class, Evicted.class, Evicted::of, Evicted::core));
}
