package dev.kiln.core.serve.wire;

import static dev.kiln.core.serve.wire.WireTypes.constant;
import static dev.kiln.core.serve.wire.WireTypes.list;
import static dev.kiln.core.serve.wire.WireTypes.ms;
import static dev.kiln.core.serve.wire.WireTypes.name;
import static dev.kiln.core.serve.wire.WireTypes.nanos;
import static dev.kiln.core.serve.wire.WireTypes.pathList;
import static dev.kiln.core.serve.wire.WireTypes.paths;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.engine.EngineEvent;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.serve.wire.WireTypes.Codec;
import dev.kiln.core.snapshot.SnapshotStats;
import dev.kiln.core.watch.WatchChanged;
import dev.kiln.core.watch.WatchStatus;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The projection's and the engine's own frames ({@code tick}, {@code watch}, {@code heal}, {@code action_finished}),
 * the heal report and the action document ({@code actions/{id}}). Naming rule: {@link WireTypes}.
 */
final class WireEvents {
    private WireEvents() {
    }

    /** A tick's snapshot counters (the state document's {@code tick.counters} has the same keys). */
    record Counters(@JsonProperty("enumerated") int enumerated, @JsonProperty("parsed") int parsed,
            @JsonProperty("reused") int reused, @JsonProperty("failed") int failed, @JsonProperty("pruned") int pruned,
            @JsonProperty("build_ms") double buildMs) {
        static Counters of(SnapshotStats s) {
            return new Counters(s.enumerated(), s.parsed(), s.reused(), s.failed(), s.pruned(), ms(s.buildNanos()));
        }

        SnapshotStats core() {
            return new SnapshotStats(enumerated, parsed, reused, failed, pruned, nanos(buildMs));
        }
    }

    /** One projection tick. */
    record Tick(@JsonProperty("reason") String reason, @JsonProperty("at") Instant at, @JsonProperty("revision") long revision,
            @JsonProperty("changed") boolean changed, @JsonProperty("leaves") int leaves, @JsonProperty("failures") int failures,
            @JsonProperty("counters") Counters counters, @JsonProperty("duration_ms") double durationMs,
            @JsonProperty("drift_pruned") List<String> driftPruned, @JsonProperty("write_error") @Nullable String writeError) {
        static Tick of(TickResult t) {
            return new Tick(name(t.reason()), t.at(), t.revision(), t.changed(), t.leaves(), t.failures(), Counters.of(t.stats()),
                    ms(t.durationNanos()), t.driftPruned(), t.writeError());
        }

        TickResult core() {
            return new TickResult(constant(WakeReason.class, reason), at, revision, changed, leaves, failures, counters.core(),
                    nanos(durationMs), list(driftPruned), writeError);
        }
    }

    /** Frame {@code tick}: a projection ran (after its revision's {@code delta}). */
    record TickFrame(@JsonProperty("at") Instant at, @JsonProperty("result") Tick result) {
        static TickFrame of(TickFinished e) {
            return new TickFrame(e.at(), Tick.of(e.result()));
        }

        TickFinished core() {
            return new TickFinished(at, result.core());
        }
    }

    /** The watch's status; {@code roots} are the watched directories (paths on the daemon's host). */
    record Watch(@JsonProperty("live") boolean live, @JsonProperty("mode") String mode, @JsonProperty("reason") String reason,
            @JsonProperty("since") Instant since, @JsonProperty("roots") List<String> roots,
            @JsonProperty("watched_directories") int watchedDirectories, @JsonProperty("inotify_limit") long inotifyLimit,
            @JsonProperty("polled_directories") int polledDirectories, @JsonProperty("note") String note) {
        static Watch of(WatchStatus w) {
            return new Watch(w.live(), w.mode(), w.reason(), w.since(), paths(w.roots()), w.watchedDirectories(), w.inotifyLimit(),
                    w.polledDirectories(), w.note());
        }

        WatchStatus core() {
            return new WatchStatus(live, reason, since, pathList(roots), watchedDirectories, inotifyLimit, polledDirectories,
                    note == null ? "" : note);
        }
    }

    /** Frame {@code watch}: the watch went live, degraded or partial. */
    record WatchFrame(@JsonProperty("at") Instant at, @JsonProperty("status") Watch status) {
        static WatchFrame of(WatchChanged e) {
            return new WatchFrame(e.at(), Watch.of(e.status()));
        }

        WatchChanged core() {
            return new WatchChanged(at, status.core());
        }
    }

    record HealChange(@JsonProperty("file") String file, @JsonProperty("from") String from, @JsonProperty("to") String to) {
    }

    record HealMisplaced(@JsonProperty("file") String file, @JsonProperty("declared") String declared,
            @JsonProperty("expected") String expected) {
    }

    record HealProblem(@JsonProperty("file") String file, @JsonProperty("reason") String reason) {
    }

    /** {@code POST /api/v1/heal}'s answer and the {@code heal} frame's report: {@link HealReport#toJson()}'s shape. */
    record Heal(@JsonProperty("dry_run") boolean dryRun, @JsonProperty("scanned") int scanned,
            @JsonProperty("changes") List<HealChange> changes, @JsonProperty("misplaced") List<HealMisplaced> misplaced,
            @JsonProperty("problems") List<HealProblem> problems) {
        static Heal of(HealReport r) {
            return new Heal(r.dryRun(), r.scanned(), r.changes().stream().map(c -> new HealChange(c.file(), c.from(), c.to())).toList(),
                    r.misplaced().stream().map(m -> new HealMisplaced(m.file(), m.declared(), m.expected())).toList(),
                    r.problems().stream().map(p -> new HealProblem(p.file(), p.reason())).toList());
        }

        HealReport core() {
            return new HealReport(dryRun, scanned, list(changes).stream().map(c -> new HealReport.Change(c.file(), c.from(), c.to()))
                    .toList(), list(misplaced).stream().map(m -> new HealReport.Misplaced(m.file(), m.declared(), m.expected()))
                    .toList(), list(problems).stream().map(p -> new HealReport.Problem(p.file(), p.reason())).toList());
        }
    }

    /** Frame {@code heal}: a heal ran (applied or previewed). */
    record HealFrame(@JsonProperty("at") Instant at, @JsonProperty("report") Heal report) {
        static HealFrame of(EngineEvent.HealFinished e) {
            return new HealFrame(e.at(), Heal.of(e.report()));
        }

        EngineEvent.HealFinished core() {
            return new EngineEvent.HealFinished(at, report.core());
        }
    }

    /**
     * Frame {@code action_finished}: the event's fields; the daemon adds {@code action}, the {@link Action} document
     * with the result, so a client needs no second request.
     */
    record ActionFinished(@JsonProperty("at") Instant at, @JsonProperty("id") String id, @JsonProperty("kind") String kind,
            @JsonProperty("status") String status, @JsonProperty("message") String message) {
        static ActionFinished of(EngineEvent.ActionFinished e) {
            return new ActionFinished(e.at(), e.id(), e.kind(), name(e.status()), e.message());
        }

        EngineEvent.ActionFinished core() {
            return new EngineEvent.ActionFinished(at, id, kind, constant(EngineEvent.Status.class, status),
                    message == null ? "" : message);
        }
    }

    /** Why an action failed or was cancelled: {@code kind} is an {@code EngineException} kind, lower_snake. */
    record ActionError(@JsonProperty("kind") String kind, @JsonProperty("message") String message) {
    }

    /**
     * {@code GET /api/v1/actions/{id}}: {@code state} is {@code running}, {@code succeeded}, {@code failed} or
     * {@code cancelled}; {@code result} the action's value (a warm's, probe's or precompile's wire type) once it has
     * one; {@code error} once it failed or was cancelled.
     */
    record Action(@JsonProperty("id") String id, @JsonProperty("kind") String kind, @JsonProperty("state") String state,
            @JsonProperty("result") @Nullable JsonNode result, @JsonProperty("error") @Nullable ActionError error) {
    }

    /** 202 {@code {"id": …}}: a long action started; follow it with {@code actions/{id}} or its frames. */
    record Started(@JsonProperty("id") String id) {
    }

    /** Every error answer: {@code error} a stable lower_snake code, {@code message} what happened and what to do. */
    record Error(@JsonProperty("error") String error, @JsonProperty("message") String message) {
    }

    static final List<Codec<?, ?>> CODECS = List.of(
            Codec.of(SnapshotStats.class, Counters.class, Counters::of, Counters::core),
            Codec.of(TickResult.class, Tick.class, Tick::of, Tick::core),
            Codec.of(TickFinished.class, TickFrame.class, TickFrame::of, TickFrame::core),
            Codec.of(WatchStatus.class, Watch.class, Watch::of, Watch::core),
            Codec.of(WatchChanged.class, WatchFrame.class, WatchFrame::of, WatchFrame::core),
            Codec.of(HealReport.class, Heal.class, Heal::of, Heal::core),
            Codec.of(EngineEvent.HealFinished.class, HealFrame.class, HealFrame::of, HealFrame::core),
            Codec.of(EngineEvent.ActionFinished.class, ActionFinished.class, ActionFinished::of, ActionFinished::core));
}
