package dev.kiln.core.seed;

import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.workspace.FileTrees;
import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.core.workspace.WorkspaceLayout;
import dev.kiln.core.workspace.WorkspaceSettings;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The seed caches of one workspace (docs/ARCHITECTURE.md, "A warm"): per target, a uv cache warmed wheels-only once per
 * lockfile hash, swapped in whole, and copied into each job's scratch cache.
 *
 * <pre>{@code
 * SeedCaches seeds = SeedCaches.builder(workspace).events(bus).build();
 * WarmResult r = seeds.warm("demo", Cancellation.create());
 * CopyReport c = seeds.copyInto("demo", jobCacheDir);
 * }</pre>
 *
 * <p>Thread-safe. Warms of one target never overlap (a file lock, so not across processes either: the second
 * waits, then usually finds the seed {@link WarmOutcome#UNCHANGED}); warms of different targets run in parallel.
 * Every warm outcome is appended to the workspace's journal ({@link #history()}), and published as
 * {@link SeedEvent}s while it runs.
 */
public final class SeedCaches {
    /** The journal's file name under the workspace's {@code observer/}. */
    public static final String JOURNAL_FILE = "seed-warms.jsonl";

    private final WorkspaceLayout layout;
    private final Path seedsDir;
    private final Clock clock;
    private final EventSink events;
    private final WarmJournal journal;
    private final Warmer warmer;

    private SeedCaches(Builder b) {
        this.layout = WorkspaceLayout.of(b.workspace);
        WorkspaceSettings settings = b.settings != null ? b.settings : WorkspaceSettings.read(layout.root());
        this.seedsDir = layout.root().resolve(settings.seedsDir()).normalize();
        this.clock = b.clock;
        this.events = b.events;
        this.journal = new WarmJournal(layout.observerDir().resolve(JOURNAL_FILE));
        this.warmer = new Warmer(layout.root(), layout.targetsDir(), seedsDir, settings.uv(), clock, events,
                b.environment, journal);
    }

    /** Starts configuring the seed caches of the workspace at {@code workspace}. */
    public static Builder builder(Path workspace) {
        return new Builder(workspace);
    }

    /** The seed caches of {@code workspace} with its kiln.json, the system clock, no events and this process's environment. */
    public static SeedCaches of(Path workspace) {
        return builder(workspace).build();
    }

    /** Where the seeds live. */
    public Path seedsDir() {
        return seedsDir;
    }

    /** Where the seed of {@code target} lives (whether or not it exists). */
    public Path seedDir(String target) {
        return warmer.seedDir(target);
    }

    /** The journal file the warm history is appended to. */
    public Path journalFile() {
        return journal.file();
    }

    /** The names of the workspace's targets ({@code targets/<name>/target.json}), sorted. */
    public List<String> targets() {
        List<String> names = new ArrayList<>();
        if (!Files.isDirectory(layout.targetsDir())) {
            return names;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(layout.targetsDir())) {
            for (Path d : s) {
                if (Files.isRegularFile(d.resolve(Target.FILE_NAME))) {
                    names.add(d.getFileName().toString());
                }
            }
        } catch (IOException e) {
            throw new WorkspaceException("Cannot list targets in " + layout.targetsDir() + ": " + e.getMessage(), e);
        }
        names.sort(null);
        return names;
    }

    /**
     * Computes what a warm of {@code target} would do — hash, whether uv would run, the exact command — and writes
     * nothing at all.
     *
     * @throws WorkspaceException when the target is missing or malformed, or its files cannot be read
     */
    public WarmPlan plan(String target) {
        return warmer.plan(target);
    }

    /**
     * Warms the seed of {@code target} if its lockfile hash changed; never throws for a bad target or a failed uv:
     * the result says what happened, and the previous seed is kept on anything but success.
     */
    public WarmResult warm(String target, Cancellation cancel) {
        return warmer.warm(target, Objects.requireNonNull(cancel, "cancel"));
    }

    /** Every recorded warm of this workspace, oldest first. */
    public List<WarmResult> history() {
        return journal.read();
    }

    /** Every target and every seed on disk, with what the seed holds and whether it is current. */
    public List<SeedInfo> seeds() {
        TreeSet<String> names = new TreeSet<>(targets());
        if (Files.isDirectory(seedsDir)) {
            try (DirectoryStream<Path> s = Files.newDirectoryStream(seedsDir, p -> Files.isDirectory(p)
                    && !p.getFileName().toString().startsWith("."))) {
                // the server seeds' directory (ServerSeeds) is not a target's seed
                s.forEach(p -> {
                    if (!p.getFileName().toString().equals(ServerSeeds.DIR)) {
                        names.add(p.getFileName().toString());
                    }
                });
            } catch (IOException e) {
                throw new WorkspaceException("Cannot list seeds in " + seedsDir + ": " + e.getMessage(), e);
            }
        }
        List<SeedInfo> out = new ArrayList<>();
        for (String name : names) {
            Path dir = seedsDir.resolve(name);
            Optional<String> seeded = SeedStore.seededHash(dir);
            Optional<SeedStore.Manifest> m = SeedStore.manifest(dir);
            Optional<String> current = Optional.empty();
            Optional<String> problem = Optional.empty();
            try {
                current = Optional.of(LockFiles.read(Target.read(layout.targetsDir(), name)).hash());
            } catch (WorkspaceException e) {
                problem = Optional.of(String.valueOf(e.getMessage()));
            }
            out.add(new SeedInfo(name, dir, seeded.isPresent(), seeded, current,
                    m.map(SeedStore.Manifest::uvVersion), m.map(SeedStore.Manifest::warmedAt),
                    m.map(SeedStore.Manifest::duration), m.map(SeedStore.Manifest::bytes).orElse(0L),
                    m.map(SeedStore.Manifest::files).orElse(0L), m.map(SeedStore.Manifest::wheels).orElse(0L), problem));
        }
        return out;
    }

    /**
     * Copies the seed of {@code target} into a job's scratch cache, best-effort: a missing seed or a failed copy is
     * reported in the result (and as an event), and the job proceeds without it.
     */
    public CopyReport copyInto(String target, Path scratchCache) {
        CopyReport r = copyInto(seedDir(target), scratchCache, clock);
        events.publish(new SeedEvent.SeedCopied(clock.instant(), target, scratchCache, r));
        return r;
    }

    /**
     * Copies the seed directory {@code seed} into {@code scratchCache}: real copies (a new inode per file, never a
     * hard link, never a link into the seed), uv's internal relative links recreated. Best-effort, never throws
     * for I/O.
     */
    public static CopyReport copyInto(Path seed, Path scratchCache, Clock clock) {
        return SeedCopier.copy(seed, scratchCache, clock);
    }

    /**
     * {@link #copyInto(Path, Path, Clock)} starting in {@code mode}: {@link CopyMode#STREAM} copies through a buffer
     * even where the kernel could (what {@code kiln bench seed} measures the kernel path against).
     */
    public static CopyReport copyInto(Path seed, Path scratchCache, Clock clock, CopyMode mode) {
        return SeedCopier.copy(seed, scratchCache, clock, mode, SeedCopier.KERNEL);
    }


    // ---- A seed that travels (dev.kiln.core.store): it leaves and arrives as one whole directory. ----

    /** The lockfile hash the target's complete seed was warmed for; empty when it has none. */
    public Optional<String> seededHash(String target) {
        return SeedStore.seededHash(seedDir(target));
    }

    /**
     * A new, empty directory in the seeds directory for a seed arriving for {@code target} (on the seeds' own
     * filesystem, so {@link #install} is a rename). Whatever an earlier, killed arrival left there is removed first.
     */
    public Path stagingDir(String target, String hash) throws IOException {
        Path dir = seedsDir.resolve("." + Target.checkName(target) + ".pull-" + hash.substring(0, Math.min(12, hash.length())));
        Files.createDirectories(seedsDir);
        FileTrees.delete(dir);
        Files.createDirectory(dir);
        return dir;
    }

    /**
     * Installs the seed that arrived whole in {@code fresh} (from {@link #stagingDir}) as the seed of {@code target}
     * for lockfile {@code hash}, after the checks a warmed seed passes: its hash file names {@code hash}, no link
     * leaves it (absolute or escaping links are refused), it holds only directories, regular files and links. Then it
     * swaps it in under the target's lock, the same atomic swap as a warm, so a reader sees the old seed or the new
     * one and a failure keeps the old. {@code fresh} is gone afterwards, installed or deleted.
     *
     * @throws IOException naming the entry and the reason when a check fails or the swap cannot be made
     */
    public void install(String target, String hash, Path fresh, Cancellation cancel) throws IOException {
        Path seedDir = seedDir(target);
        try {
            SeedStore.checkArrived(fresh, hash);
            Optional<TargetLock> lock;
            try {
                lock = TargetLock.acquire(SeedStore.lockFile(seedsDir, target), cancel);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while waiting for the lock of seed " + target);
            }
            if (lock.isEmpty()) {
                throw new java.io.InterruptedIOException("cancelled while waiting for the lock of seed " + target);
            }
            try (TargetLock held = lock.get()) {
                SeedStore.swap(fresh, seedDir, clock.instant());
            }
        } finally {
            FileTrees.delete(fresh);
        }
    }

    /** Configures {@link SeedCaches}. */
    public static final class Builder {
        private final Path workspace;
        /** Null until {@link #settings} is called: then the workspace's kiln.json is read when it is built. */
        private @Nullable WorkspaceSettings settings;
        private Clock clock = Clock.systemUTC();
        private EventSink events = EventSink.none();
        private Map<String, String> environment = System.getenv();

        private Builder(Path workspace) {
            this.workspace = Objects.requireNonNull(workspace, "workspace");
        }

        /** Settings to use instead of reading the workspace's kiln.json. */
        public Builder settings(WorkspaceSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder events(EventSink events) {
            this.events = Objects.requireNonNull(events, "events");
            return this;
        }

        /**
         * The caller environment uv's allowlisted environment is taken from (default: this process's). Only
         * PATH, HOME, locale, TZ, proxies, CA bundles and non-credential {@code UV_*} variables of it reach uv.
         */
        public Builder environment(Map<String, String> environment) {
            this.environment = Map.copyOf(Objects.requireNonNull(environment, "environment"));
            return this;
        }

        public SeedCaches build() {
            return new SeedCaches(this);
        }
    }
}
