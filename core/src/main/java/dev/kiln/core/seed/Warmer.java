package dev.kiln.core.seed;

import dev.kiln.core.workspace.FileTrees;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.workspace.WorkspaceException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The warm itself (docs/ARCHITECTURE.md, "A warm"): hash, compare, lock, run uv wheels-only into a fresh cache beside the
 * seed, swap it in whole.
 *
 * <p>Concurrency: stateless apart from its collaborators; warms of one target are serialized by {@link TargetLock}
 * (across threads and processes), warms of different targets run in parallel.
 */
final class Warmer {
    private static final Logger LOG = LoggerFactory.getLogger(Warmer.class);
    private static final Duration VERSION_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern NO_BUILD = Pattern.compile(
            "Distribution `([^`]+)` can't be installed because it is marked as `--no-build`");
    private static final Path TMP = Path.of(System.getProperty("java.io.tmpdir"));
    static final List<String> SYNC_FLAGS = List.of("sync", "--frozen", "--no-install-project", "--no-build");

    private final Path workspace;
    private final Path targetsDir;
    private final Path seedsDir;
    private final Optional<Path> configuredUv;
    private final Clock clock;
    private final EventSink events;
    private final Map<String, String> callerEnv;
    private final WarmJournal journal;

    Warmer(Path workspace, Path targetsDir, Path seedsDir, Optional<Path> configuredUv, Clock clock, EventSink events,
            Map<String, String> callerEnv, WarmJournal journal) {
        this.workspace = workspace;
        this.targetsDir = targetsDir;
        this.seedsDir = seedsDir;
        this.configuredUv = configuredUv;
        this.clock = clock;
        this.events = events;
        this.callerEnv = Map.copyOf(callerEnv);
        this.journal = journal;
    }

    Path seedDir(String name) {
        return seedsDir.resolve(Target.checkName(name));
    }

    WarmPlan plan(String name) {
        Target target = Target.read(targetsDir, name);
        LockFiles files = LockFiles.read(target);
        Path seedDir = seedDir(name);
        Optional<String> seeded = SeedStore.seededHash(seedDir);
        boolean needed = !seeded.equals(Optional.of(files.hash()));
        String uv = "uv";
        Optional<String> problem = Optional.empty();
        try {
            uv = UvLauncher.locate(configuredUv, workspace, callerEnv).toString();
        } catch (WorkspaceException e) {
            problem = Optional.of(String.valueOf(e.getMessage()));
        }
        Path fresh = SeedStore.freshDir(seedsDir, name, files.hash());
        List<String> env = List.of("UV_CACHE_DIR=" + fresh, "UV_PROJECT_ENVIRONMENT=" + SeedStore.venvDir(fresh),
                "UV_LINK_MODE=copy");
        return new WarmPlan(name, files.hash(), seeded, needed, seedDir, command(uv, target), env, problem);
    }

    static List<String> command(String uv, Target target) {
        List<String> c = new ArrayList<>();
        c.add(uv);
        c.addAll(SYNC_FLAGS);
        c.addAll(target.syncArguments());
        return c;
    }

    WarmResult warm(String name, Cancellation cancel) {
        Instant begin = clock.instant();
        Target target;
        LockFiles files;
        try {
            target = Target.read(targetsDir, name);
            files = LockFiles.read(target);
        } catch (WorkspaceException e) {
            return finish(name, WarmOutcome.FAILED, "", begin, SeedStore.Stats.EMPTY, String.valueOf(e.getMessage()), List.of());
        }
        String hash = files.hash();
        Path seedDir = seedsDir.resolve(name);
        // The hot path: one small read, no lock, no process.
        if (SeedStore.seededHash(seedDir).equals(Optional.of(hash))) {
            return unchanged(name, hash, begin, seedDir);
        }
        try {
            Files.createDirectories(seedsDir);
        } catch (IOException e) {
            return finish(name, WarmOutcome.FAILED, hash, begin, SeedStore.Stats.EMPTY,
                    "cannot create the seeds directory " + seedsDir + ": " + e.getMessage(), List.of());
        }
        Optional<TargetLock> lock;
        try {
            lock = TargetLock.acquire(SeedStore.lockFile(seedsDir, name), cancel);
        } catch (IOException e) {
            return finish(name, WarmOutcome.FAILED, hash, begin, oldStats(seedDir),
                    "cannot lock " + SeedStore.lockFile(seedsDir, name) + ": " + e.getMessage(), List.of());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            lock = Optional.empty();
        }
        if (lock.isEmpty()) {
            return finish(name, WarmOutcome.CANCELLED, hash, begin, oldStats(seedDir),
                    "cancelled while another warm of '" + name + "' was running; the seed is unchanged", List.of());
        }
        TargetLock held = lock.get();
        Ending end;
        try {
            // Whoever held the lock may just have warmed this very hash.
            if (SeedStore.seededHash(seedDir).equals(Optional.of(hash))) {
                end = null;
            } else {
                end = warmLocked(target, files, seedDir, cancel, begin);
            }
        } finally {
            release(held, name);
        }
        if (end == null) {
            return unchanged(name, hash, begin, seedDir);
        }
        // Recorded only after warmLocked has cleaned up, so whoever hears the outcome sees the final disk state.
        return finish(name, end.outcome(), hash, begin, end.stats(), end.message(), end.stderrTail());
    }

    private static void release(TargetLock held, String name) {
        try {
            held.close();
        } catch (IOException e) {
            // The file lock goes with the channel or the process anyway; the warm's outcome stands.
            LOG.warn("Releasing the warm lock of {} failed: {}", name, e.toString());
        }
    }

    /** How a warm under the lock ended, before it is recorded. */
    private record Ending(WarmOutcome outcome, SeedStore.Stats stats, String message, List<String> stderrTail) {
    }

    private Ending warmLocked(Target target, LockFiles files, Path seedDir, Cancellation cancel, Instant begin) {
        String name = target.name();
        String hash = files.hash();
        try {
            for (Path p : SeedStore.removeLeftovers(seedsDir, name)) {
                LOG.info("Removed {} left by an earlier warm of {} that did not finish", p, name);
            }
            SeedStore.removeOrphanProjects(TMP).forEach(p -> LOG.info("Removed {} left by a killed warm", p));
        } catch (IOException e) {
            return new Ending(WarmOutcome.FAILED, oldStats(seedDir),
                    "cannot remove what an earlier warm left in " + seedsDir + ": " + e.getMessage(), List.of());
        }
        Path uv;
        try {
            uv = UvLauncher.locate(configuredUv, workspace, callerEnv);
        } catch (WorkspaceException e) {
            return new Ending(WarmOutcome.FAILED, oldStats(seedDir), String.valueOf(e.getMessage()), List.of());
        }
        Path fresh = SeedStore.freshDir(seedsDir, name, hash);
        Path venv = SeedStore.venvDir(fresh);
        Path project = null;
        boolean swapped = false;
        try {
            Files.createDirectories(fresh);
            // The throwaway project lives outside the workspace, so uv cannot mistake it for a member of an
            // enclosing uv workspace.
            project = Files.createTempDirectory(SeedStore.projectPrefix(ProcessHandle.current().pid(), name));
            for (Map.Entry<String, byte[]> f : files.files().entrySet()) {
                Files.write(project.resolve(f.getKey()), f.getValue());
            }
            Map<String, String> env = UvLauncher.environment(callerEnv, Map.of(
                    "UV_CACHE_DIR", fresh.toString(),
                    "UV_PROJECT_ENVIRONMENT", venv.toString(),
                    "UV_LINK_MODE", "copy"));
            UvLauncher.Run version = UvLauncher.run(List.of(uv.toString(), "--version"), project, env, VERSION_TIMEOUT,
                    cancel, clock, pid -> { }, (l, e) -> { }, true);
            if (!version.succeeded()) {
                return ended(name, hash, begin, seedDir, version, cancel, "uv at " + uv + " did not report its version");
            }
            String uvVersion = String.join(" ", version.stdout()).strip();
            List<String> command = command(uv.toString(), target);
            UvLauncher.Run run = UvLauncher.run(command, project, env, target.timeout(), cancel, clock,
                    pid -> events.publish(new SeedEvent.WarmStarted(clock.instant(), name, hash, command, pid)),
                    (line, stderr) -> events.publish(new SeedEvent.WarmOutput(clock.instant(), name, line, stderr)),
                    false);
            if (!run.succeeded()) {
                return ended(name, hash, begin, seedDir, run, cancel, "uv sync failed");
            }
            SeedStore.Stats stats = SeedStore.stats(fresh);
            Instant now = clock.instant();
            SeedStore.writeMarkers(fresh, name, hash, uvVersion, now, Duration.between(begin, now), stats);
            SeedStore.swap(fresh, seedDir, now);
            swapped = true;
            return new Ending(WarmOutcome.WARMED, stats,
                    "warmed with " + uvVersion + ": " + stats.wheels() + " wheels, " + stats.files() + " files, "
                            + stats.bytes() + " bytes", List.of());
        } catch (IOException e) {
            return new Ending(WarmOutcome.FAILED, oldStats(seedDir),
                    "warm failed on the file system: " + e + "; the previous seed is kept", List.of());
        } catch (RuntimeException e) {
            LOG.error("The warm of {} failed unexpectedly", name, e);
            return new Ending(WarmOutcome.FAILED, oldStats(seedDir),
                    "warm failed unexpectedly: " + e + "; the previous seed is kept", List.of());
        } finally {
            quietlyDelete(venv);
            if (project != null) {
                quietlyDelete(project);
            }
            if (!swapped) {
                quietlyDelete(fresh);
            }
        }
    }

    private Ending ended(String name, String hash, Instant begin, Path seedDir, UvLauncher.Run run,
            Cancellation cancel, String what) {
        SeedStore.Stats old = oldStats(seedDir);
        // A terminal's Ctrl-C reaches uv too: it may exit on its own just before the cancel is seen.
        UvLauncher.End end = cancel.isCancelled() ? UvLauncher.End.CANCELLED : run.end();
        switch (end) {
            case CANCELLED:
                return new Ending(WarmOutcome.CANCELLED, old,
                        "cancelled; uv's process tree was killed and the previous seed is kept", run.stderrTail());
            case TIMED_OUT:
                return new Ending(WarmOutcome.FAILED, old, "timed out after "
                        + run.duration().toSeconds() + "s (the target's timeout); uv's process tree was killed and the"
                        + " previous seed is kept. Raise 'timeout' in target.json if the download is just slow.",
                        run.stderrTail());
            case FAILED_TO_START:
                return new Ending(WarmOutcome.FAILED, old, run.problem(), List.of());
            default:
                break;
        }
        Optional<String> needsBuild = needsBuild(run.stderrTail());
        if (needsBuild.isPresent()) {
            return new Ending(WarmOutcome.NEEDS_BUILD, old, "needs-build: " + needsBuild.get()
                    + " is published only as source (no wheel uv can use here), and Kiln never builds packages on the"
                    + " warming host. Pin a version that has a wheel, or build the wheel elsewhere and serve it from an"
                    + " index.", run.stderrTail());
        }
        return new Ending(WarmOutcome.FAILED, old, what + " (exit " + run.exitCode() + "): "
                + errorLine(run.stderrTail()) + "; the previous seed is kept", run.stderrTail());
    }

    /** The package a {@code --no-build} refusal names, as {@code name==version}. */
    static Optional<String> needsBuild(List<String> stderr) {
        for (String line : stderr) {
            Matcher m = NO_BUILD.matcher(line);
            if (m.find()) {
                String dist = m.group(1);
                int at = dist.indexOf(" @ ");
                return Optional.of(at < 0 ? dist : dist.substring(0, at));
            }
        }
        return Optional.empty();
    }

    private static String errorLine(List<String> stderr) {
        for (String line : stderr) {
            if (line.startsWith("error:")) {
                return line.substring("error:".length()).strip();
            }
        }
        return stderr.isEmpty() ? "uv printed nothing" : stderr.get(stderr.size() - 1).strip();
    }

    private WarmResult unchanged(String name, String hash, Instant begin, Path seedDir) {
        if (SeedStore.hasLeftovers(seedsDir, name)) {
            // A killed earlier warm left a fresh cache behind; clean it now unless a warm is running right now.
            try (TargetLock held = TargetLock.tryAcquire(SeedStore.lockFile(seedsDir, name)).orElse(null)) {
                if (held != null) {
                    for (Path p : SeedStore.removeLeftovers(seedsDir, name)) {
                        LOG.info("Removed {} left by an earlier warm of {} that did not finish", p, name);
                    }
                    SeedStore.removeOrphanProjects(TMP).forEach(p -> LOG.info("Removed {} left by a killed warm", p));
                }
            } catch (IOException e) {
                LOG.warn("Could not remove what an earlier warm of {} left: {}", name, e.toString());
            }
        }
        return finish(name, WarmOutcome.UNCHANGED, hash, begin, oldStats(seedDir),
                "seed is current (" + hash.substring(0, 12) + "); nothing ran", List.of());
    }

    private static SeedStore.Stats oldStats(Path seedDir) {
        return SeedStore.manifest(seedDir).map(m -> new SeedStore.Stats(m.bytes(), m.files(), m.wheels()))
                .orElse(SeedStore.Stats.EMPTY);
    }

    private WarmResult finish(String name, WarmOutcome outcome, String hash, Instant begin, SeedStore.Stats stats,
            String message, List<String> stderrTail) {
        Instant now = clock.instant();
        // Millisecond precision: what the journal keeps is exactly what was returned.
        WarmResult r = new WarmResult(name, outcome, hash, now, Duration.ofMillis(Duration.between(begin, now).toMillis()), stats.bytes(),
                stats.files(), message, stderrTail);
        journal.append(r);
        events.publish(new SeedEvent.WarmFinished(now, r));
        return r;
    }

    private static void quietlyDelete(Path p) {
        try {
            FileTrees.delete(p);
        } catch (IOException e) {
            LOG.warn("Could not delete {} after a warm; the next warm removes it: {}", p, e.toString());
        }
    }
}
