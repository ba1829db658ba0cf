package dev.kiln.core.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.projection.PublishedState;
import dev.kiln.core.workspace.Durations;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Gives each difference its likely cause from the evidence. First the workspace: is there a daemon, does it hold the
 * lock, did its last tick fail, is its watch live, is the published document its own, did the clock jump ("the
 * blocker": why nothing re-projects, the same for every difference). Then each difference: when its file changed
 * (ctime), whether its directory is among the daemon's inotify watches, whether only time-derived fields flipped and
 * when the heartbeat is due.
 */
final class Explainer {
    private static final Pattern SYSCTL = Pattern.compile("sysctl (fs\\.inotify\\.max_user_watches=\\d+)");
    /** The pacer's default settle: a change is projected at most settle + interval after it. */
    private static final Duration SETTLE = Duration.ofMillis(100);

    private final WorkspaceLayout layout;
    private final Instant now;
    private final DateTimeFormatter hms;
    private final PublishedState published;
    private final DaemonEvidence daemon;
    private final List<String> evidence = new ArrayList<>();
    private Difference.@Nullable Explanation blocker;
    private Difference.@Nullable Explanation clockBack;
    /** A running writer of state.json that does not hold the lock, or null. */
    private Difference.@Nullable Explanation secondWriter;
    private long secondWriterPid;
    private @Nullable Instant lastTickAt;
    private String lastTickText = "";
    private String sysctl = "";

    Explainer(WorkspaceLayout layout, Instant now, ZoneId zone, PublishedState published, DaemonEvidence daemon) {
        this.layout = layout;
        this.now = now;
        this.hms = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(zone);
        this.published = published;
        this.daemon = daemon;
        survey();
    }

    /** How long after a change its projection may take without anything being wrong. */
    private Duration grace() {
        return daemon.interval.plus(SETTLE).plusSeconds(1);
    }

    // ---- the workspace ----------------------------------------------------------------------------------------

    private void survey() {
        Instant at = published.generatedAt();
        evidence.add("published: " + published.source() + " at revision " + published.revision()
                + (at == null ? "" : ", generated at " + time(at)) + (published.tickReason().isEmpty() ? "" : " (a " + published.tickReason() + " tick)"));
        if (at != null && at.isAfter(now.plusSeconds(2))) {
            clockBack = new Difference.Explanation(Cause.CLOCK_JUMPED, "the published document was generated at " + at + ", "
                    + seconds(Duration.between(now, at)) + " after this clock's now (" + now + "): the clock jumped back since it"
                    + " was written (or its writer's clock is ahead); time-derived fields were computed for a time still to come");
            evidence.add(clockBack.evidence());
        }
        String lock = "observer/serve.lock";
        switch (daemon.state) {
            case NEVER -> blocker = new Difference.Explanation(Cause.NO_DAEMON, "no kiln serve has served this workspace (no "
                    + lock + "): state.json was written by a one-off kiln project and nothing re-projects after a change");
            case GONE -> blocker = new Difference.Explanation(Cause.NO_DAEMON, lock + (daemon.filePid > 0
                    ? " names pid " + daemon.filePid + ", which " + (daemon.pidAlive ? "is another process now" : "is not running")
                    : " names no process") + ", and nobody holds the lock: the daemon stopped or was killed (SIGKILL, a crash)"
                    + " and left its lock file behind; nothing re-projects after a change");
            case UNREACHABLE -> blocker = new Difference.Explanation(Cause.LOCK_HELD_ELSEWHERE, "pid "
                    + (daemon.holderPid > 0 ? daemon.holderPid : daemon.filePid)
                    + (daemon.command.isEmpty() ? "" : " (" + abbreviate(daemon.command) + ")") + " holds " + lock + ", but "
                    + daemon.problem + (daemon.holderPid > 0 && daemon.filePid > 0 && daemon.holderPid != daemon.filePid
                    ? "; the lock file names pid " + daemon.filePid + " instead" : ""));
            case RUNNING -> surveyDaemon();
        }
        surveyWriter();
        if (blocker != null) {
            evidence.add(blocker.evidence());
        }
    }

    /**
     * {@code meta.writer} against the lock: a writer that is still running but does not hold the lock is a second
     * writer, whether or not the documents differ now (they will at its next tick). A writer that is gone is the
     * previous owner, whose last revision stands until the new one's first tick.
     */
    private void surveyWriter() {
        JsonNode w = published.meta().path("writer");
        long writer = w.path("pid").asLong(-1);
        long owner = daemon.owner();
        if (writer <= 0 || owner <= 0 || writer == owner
                || !ProcessHandle.of(writer).map(ProcessHandle::isAlive).orElse(false)) {
            return;
        }
        String kind = "console".equals(w.path("kind").asText()) ? "a Kiln console" : "kiln serve";
        secondWriter = new Difference.Explanation(Cause.SECOND_WRITER, "observer/state.json (revision " + published.revision()
                + ") was written by " + kind + " (pid " + writer + "), which is still running but does not hold"
                + " observer/serve.lock; pid " + owner + " (" + daemon.fileKind + ") holds it: two processes project this"
                + " workspace and overwrite each other's revisions");
        secondWriterPid = writer;
        blocker = secondWriter;
    }

    private void surveyDaemon() {
        JsonNode m = Objects.requireNonNull(daemon.metrics, "a running daemon's evidence holds its metrics");
        JsonNode last = m.path("last_tick");
        lastTickAt = instant(last.path("at").asText(null));
        if (lastTickAt != null) {
            lastTickText = "the daemon's last tick (#" + last.path("seq").asLong() + ", " + last.path("reason").asText()
                    + ", " + (last.path("full").asBoolean() ? "full" : "incremental over " + last.path("changed_paths").asInt()
                    + " paths") + ") at " + time(lastTickAt);
        }
        JsonNode w = m.path("watch");
        evidence.add(daemon.name() + " runs: revision " + daemon.revision() + ", " + m.path("projections").asLong()
                + " projections" + (lastTickAt == null ? "" : ", last at " + time(lastTickAt)) + "; watch " + w.path("mode").asText()
                + " since " + time(instant(w.path("since").asText(null))) + " on " + w.path("watched_directories").asLong()
                + " directories (inotify limit " + w.path("inotify_limit").asLong() + "); heartbeat every "
                + Durations.format(daemon.heartbeat) + " (" + daemon.pacingSource + ")");
        if (daemon.holdsAnotherFile) {
            evidence.add("the lock file names pid " + daemon.filePid + ", which holds its lock on another file: the workspace"
                    + " directory was replaced (moved away and recreated) after kiln serve started, so its lock and its"
                    + " watches are on the old directory");
        }
        Instant prev = null;
        long prevSeq = 0;
        for (JsonNode t : m.path("history")) {
            Instant a = instant(t.path("at").asText(null));
            if (a != null && prev != null && a.isBefore(prev.minusSeconds(1)) && clockBack == null) {
                clockBack = new Difference.Explanation(Cause.CLOCK_JUMPED, "the daemon's tick #" + t.path("seq").asLong() + " ran at "
                        + a + ", " + seconds(Duration.between(a, prev)) + " before tick #" + prevSeq + " (" + prev + "): the wall clock jumped back");
                evidence.add(clockBack.evidence());
            }
            prev = a;
            prevSeq = t.path("seq").asLong();
        }
        if (!last.path("error").asText("").isEmpty()) {
            blocker = new Difference.Explanation(Cause.TICK_FAILED, lastTickText + " failed: " + last.path("error").asText());
            return;
        }
        if (!published.source().startsWith("http")) {
            long r = daemon.revision();
            if (published.revision() > r) {
                blocker = new Difference.Explanation(Cause.SECOND_WRITER, "observer/state.json is at revision " + published.revision()
                        + (published.generatedAt() == null ? "" : " (generated at " + time(published.generatedAt()) + ")")
                        + ", newer than any tick of " + daemon.name() + ", whose revision is " + r
                        + ": another process wrote it (an older kiln, a script, a second projector)");
                return;
            }
            if (published.revision() < r) {
                blocker = new Difference.Explanation(Cause.TICK_FAILED, "observer/state.json is at revision " + published.revision()
                        + ", behind the daemon's " + r + ": its write failed (disk full, permissions: see its log) or another"
                        + " process put an older copy back");
                return;
            }
        }
        if (!"live".equals(w.path("mode").asText())) {
            String reason = w.path("reason").asText();
            Matcher s = SYSCTL.matcher(reason);
            if (reason.contains("inotify watch limit")) {
                sysctl = s.find() ? s.group(1) : "fs.inotify.max_user_watches=524288";
                blocker = new Difference.Explanation(Cause.INOTIFY_LIMIT, "the watch is degraded since "
                        + time(instant(w.path("since").asText(null))) + ": " + reason
                        + "; the daemon projects every " + Durations.format(daemon.interval) + " instead");
            } else {
                blocker = new Difference.Explanation(Cause.WATCH_DEGRADED, "the watch is degraded since "
                        + time(instant(w.path("since").asText(null))) + ": " + reason
                        + "; the daemon projects every " + Durations.format(daemon.interval) + " and retries the watch");
            }
        }
    }

    // ---- each difference --------------------------------------------------------------------------------------

    Difference explain(Comparison.Raw r) {
        List<Difference.Explanation> why = new ArrayList<>();
        Path file = layout.tasksDir().resolve(r.file());
        Stat stat = Stat.of(file);
        Difference.Kind kind = r.kind();
        boolean timeOnly = kind == Difference.Kind.CHANGED && !r.fields().isEmpty()
                && r.fields().stream().allMatch(f -> Comparison.TIME_DERIVED.contains(f.field()));
        Instant changedAt;
        if (timeOnly) {
            // a CHANGED difference compares a published leaf with a fresh one
            JsonNode fresh = Objects.requireNonNull(r.now(), "a changed leaf is in the fresh projection");
            String fact = timeFact(r, fresh);
            changedAt = flippedAt(r, fresh);
            // a document from the future explains a time-derived flip, unless another writer (with its own clock) wrote it
            if (blocker != null && blocker.cause() == Cause.SECOND_WRITER) {
                why.add(blocker);
            }
            if (clockBack != null) {
                why.add(clockBack);
            }
            if (blocker != null && blocker.cause() != Cause.SECOND_WRITER) {
                why.add(blocker);
            } else if (why.isEmpty() && lastTickAt != null) {
                Instant due = lastTickAt.plus(daemon.heartbeat);
                if (!now.isAfter(due.plus(grace()))) {
                    why.add(new Difference.Explanation(Cause.HEARTBEAT_PENDING, fact + ", after " + lastTickText
                            + "; only a heartbeat re-projects time-derived fields when no file changes: the next is due at "
                            + time(due) + " (every " + Durations.format(daemon.heartbeat) + ", from " + daemon.pacingSource + ")"));
                } else {
                    why.add(new Difference.Explanation(Cause.PROJECTOR_STALLED, fact + "; the heartbeat due at " + time(due)
                            + " (every " + Durations.format(daemon.heartbeat) + " after " + lastTickText + ") has not run, "
                            + seconds(Duration.between(due, now)) + " late: the projector loop is stuck, or the wall clock jumped forward"));
                }
            }
            if (why.isEmpty() || why.get(0).cause() != Cause.HEARTBEAT_PENDING && why.get(0).cause() != Cause.PROJECTOR_STALLED) {
                why.add(new Difference.Explanation(Cause.HEARTBEAT_PENDING, fact + "; a tick would re-project it"));
            }
        } else {
            changedAt = stat == null ? null : stat.changed();
            Stat where = stat;
            Path dir = file.getParent();
            if (stat == null) { // removed: its nearest remaining directory changed when it went
                while (dir != null && dir.startsWith(layout.root()) && !Files.isDirectory(dir)) {
                    dir = dir.getParent();
                }
                where = dir == null ? null : Stat.of(dir);
                changedAt = where == null ? null : where.changed();
            }
            if (blocker != null) {
                why.add(blocker);
            } else if (daemon.state == DaemonEvidence.State.RUNNING) {
                String when = changedAt == null ? "it changed" : "it changed at " + time(changedAt);
                Long dirInode = dir == null ? null : DaemonEvidence.inode(dir);
                if (changedAt != null && changedAt.isAfter(now.minus(grace()))) {
                    why.add(new Difference.Explanation(Cause.IN_FLIGHT, "it changed " + Duration.between(changedAt, now).toMillis()
                            + " ms ago; the daemon projects a change within " + Durations.format(daemon.interval.plus(SETTLE))));
                } else if (daemon.watchedInodes != null && dir != null && dirInode != null
                        && !daemon.watchedInodes.contains(dirInode)) {
                    why.add(new Difference.Explanation(Cause.UNWATCHED_DIRECTORY, when + "; " + relative(dir) + " (inode "
                            + dirInode + ") is not among the " + daemon.watchedInodes.size() + " directories " + daemon.name()
                            + " watches: it was created or replaced after the watch registered it, so nothing written into it"
                            + " made an event" + (daemon.holdsAnotherFile ? " (the whole workspace directory was replaced)" : "")));
                } else {
                    why.add(new Difference.Explanation(Cause.EVENT_LOST, when + (lastTickAt == null ? ""
                            : lastTickAt.isAfter(changedAt == null ? Instant.MIN : changedAt)
                            ? ", before " + lastTickText + ", which did not include it"
                            : ", and nothing ran since " + lastTickText)
                            + (daemon.watchedInodes == null ? "; the daemon's watches could not be read"
                            : "; its directory is watched, yet no event arrived (inotify overflow or a lost event)")));
                }
            }
            if (clockBack != null) {
                why.add(clockBack);
            }
            if (stat != null && stat.pinned(published.generatedAt())) {
                why.add(new Difference.Explanation(Cause.PINNED_REWRITE, "its mtime (" + stat.mtime + ") is before the published"
                        + " tick (" + published.generatedAt() + ") but its ctime (" + stat.ctime + ") is after it: it was"
                        + " rewritten with its mtime set back (cp -p, rsync -t, tar, touch -d); Kiln keys its cache on ctime"
                        + " too, so a tick sees it"));
            }
        }
        if (why.isEmpty()) {
            why.add(new Difference.Explanation(Cause.UNKNOWN, "the published and the fresh projection differ, and the daemon,"
                    + " the lock, the watch and the file times explain nothing"));
        }
        return new Difference(r.key(), r.file(), kind, r.fields(), changedAt, why);
    }

    private String timeFact(Comparison.Raw r, JsonNode fresh) {
        List<String> facts = new ArrayList<>();
        for (Difference.FieldChange f : r.fields()) {
            if (f.field().equals("overdue")) {
                Instant d = instant(fresh.path("deadline").asText(null));
                facts.add("overdue is " + f.now() + " now" + (d == null ? "" : ": its deadline "
                        + (now.isAfter(d) ? "passed at " + time(d) : "is still ahead (" + time(d) + ")")));
            } else {
                facts.add("its engine (pid " + fresh.path("engine").path("pid").asText() + ") was " + f.published()
                        + " and is " + f.now() + " now");
            }
        }
        return String.join("; ", facts);
    }

    /** When a time-derived field flipped: a passed deadline; unknown for an engine. */
    private @Nullable Instant flippedAt(Comparison.Raw r, JsonNode fresh) {
        Instant d = instant(fresh.path("deadline").asText(null));
        boolean overdue = r.fields().stream().anyMatch(f -> f.field().equals("overdue"));
        return overdue && d != null && now.isAfter(d) ? d : null;
    }

    // ---- the whole ----------------------------------------------------------------------------------------------

    Diagnosis diagnosis(List<Difference> differences, int contracts, String workspace, double elapsedMillis) {
        Map<Cause, Integer> counts = new LinkedHashMap<>();
        differences.forEach(d -> counts.merge(d.cause(), 1, Integer::sum));
        List<String> remedies = new ArrayList<>();
        String headline;
        Diagnosis.Verdict verdict;
        if (differences.isEmpty() && secondWriter != null) {
            verdict = Diagnosis.Verdict.STALE; // the same content now, but each writer's next tick overwrites the other's
            headline = "two writers: pid " + secondWriterPid + " writes state.json (revision " + published.revision()
                    + ") without holding observer/serve.lock, beside its owner, pid " + daemon.owner();
            remedies.add(remedy(Cause.SECOND_WRITER));
        } else if (differences.isEmpty()) {
            verdict = Diagnosis.Verdict.UP_TO_DATE;
            headline = "up to date: revision " + published.revision()
                    + (published.generatedAt() == null ? "" : " (generated " + time(published.generatedAt()) + ")")
                    + " matches the " + contracts + " contracts on disk";
            if (daemon.state != DaemonEvidence.State.RUNNING) {
                headline += "; no kiln serve keeps it so";
                remedies.add(remedy(blocker == null ? Cause.NO_DAEMON : blocker.cause()));
            }
        } else {
            verdict = Diagnosis.Verdict.STALE;
            Cause primary = counts.entrySet().stream().max(Map.Entry.<Cause, Integer>comparingByValue()
                    .thenComparing(e -> -e.getKey().ordinal())).orElseThrow().getKey();
            Instant since = differences.stream().map(Difference::changedAt).filter(java.util.Objects::nonNull)
                    .min(Instant::compareTo).orElse(published.generatedAt());
            long keys = differences.stream().map(Difference::key).distinct().count();
            headline = "stale by " + keys + (keys == 1 ? " contract" : " contracts")
                    + (since == null ? "" : " since " + time(since)) + " because " + primary.phrase()
                    + (counts.size() > 1 ? " (and " + (counts.size() - 1) + " more " + (counts.size() == 2 ? "cause" : "causes") + ")" : "");
            remedies.add(remedy(primary));
            for (Difference d : differences) { // the likely causes' remedies, and the clock's wherever it is evidence
                for (Difference.Explanation e : d.explanations()) {
                    String r = remedy(e.cause());
                    if (!remedies.contains(r) && (e.cause() == d.cause() || e.cause() == Cause.CLOCK_JUMPED)) {
                        remedies.add(r);
                    }
                }
            }
        }
        return new Diagnosis(verdict, headline, workspace, published.source(), published.revision(), published.generatedAt(),
                now, contracts, differences, evidence, remedies, elapsedMillis);
    }

    private String remedy(Cause c) {
        String dir = layout.root().toString();
        String r = c.remedy().replace("DIR", dir);
        if (c == Cause.INOTIFY_LIMIT && !sysctl.isEmpty()) {
            r = r.replace("fs.inotify.max_user_watches=N", sysctl);
        }
        if (c == Cause.HEARTBEAT_PENDING && lastTickAt != null) {
            r = r.replace("wait for the next heartbeat", "wait for the next heartbeat (due " + time(lastTickAt.plus(daemon.heartbeat)) + ")");
        }
        if (c == Cause.SECOND_WRITER && secondWriter != null) {
            r = "stop pid " + secondWriterPid + ", the second writer (kill " + secondWriterPid + "): pid " + daemon.owner()
                    + " holds the lock and is the only one that may write state.json";
        }
        if (c == Cause.LOCK_HELD_ELSEWHERE && daemon.holderPid > 0) {
            r = r.replace("the process holding observer/serve.lock", "pid " + daemon.holderPid + ", which holds observer/serve.lock,");
        }
        return r;
    }

    /** How long until the youngest of {@code differences} is older than the daemon's grace. */
    long inFlightMillisLeft(List<Difference> differences) {
        Instant latest = differences.stream().map(Difference::changedAt).filter(java.util.Objects::nonNull)
                .max(Instant::compareTo).orElse(now);
        return Math.max(0, Duration.between(now, latest.plus(grace())).toMillis());
    }

    List<String> evidence() {
        return evidence;
    }

    private String relative(Path p) {
        Path rel = layout.root().relativize(p);
        return rel.toString().isEmpty() ? "the workspace directory" : rel + "/";
    }

    private String time(@Nullable Instant t) {
        return t == null ? "?" : hms.format(t);
    }

    private static String seconds(Duration d) {
        return String.format(java.util.Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "…";
    }

    /** A file's times: mtime and (where the platform gives it) ctime. */
    record Stat(Instant mtime, @Nullable Instant ctime) {
        /** The times of {@code p}, or null when it cannot be read (it is gone). */
        static @Nullable Stat of(Path p) {
            try {
                Map<String, Object> a = Files.readAttributes(p, "unix:lastModifiedTime,ctime");
                // the unix view answers every attribute it is asked for, or throws
                return new Stat(((FileTime) Objects.requireNonNull(a.get("lastModifiedTime"), "unix:lastModifiedTime")).toInstant(),
                        ((FileTime) Objects.requireNonNull(a.get("ctime"), "unix:ctime")).toInstant());
            } catch (UnsupportedOperationException | IllegalArgumentException e) {
                try {
                    return new Stat(Files.getLastModifiedTime(p).toInstant(), null);
                } catch (IOException io) {
                    return null;
                }
            } catch (IOException e) {
                return null;
            }
        }

        /** The last change the file system recorded: ctime where known (a pinned mtime cannot hide it). */
        Instant changed() {
            return ctime == null ? mtime : ctime.isAfter(mtime) ? ctime : mtime;
        }

        /** Whether the mtime is before {@code tick} while the ctime is after it. */
        boolean pinned(@Nullable Instant tick) {
            return tick != null && ctime != null && !mtime.isAfter(tick) && ctime.isAfter(tick);
        }
    }

    /** A time of the published meta, or null when it is absent or unreadable (unknown, never guessed). */
    static @Nullable Instant instant(@Nullable String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }
}
