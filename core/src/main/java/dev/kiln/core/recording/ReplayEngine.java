package dev.kiln.core.recording;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.archive.ArchiveEntry;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.doctor.Diagnosis;
import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.Archives;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.engine.ProbeRequest;
import dev.kiln.core.engine.Probes;
import dev.kiln.core.engine.Projection;
import dev.kiln.core.engine.SavedRun;
import dev.kiln.core.engine.Seeds;
import dev.kiln.core.engine.Store;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmPlan;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.serve.client.FrameDecoder;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.startup.Bytecode;
import dev.kiln.core.startup.BytecodeReport;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.SavedProbeRun;
import dev.kiln.core.startup.SavedSweep;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.telemetry.Ticker;
import dev.kiln.core.watch.WatchChanged;
import dev.kiln.core.watch.WatchStatus;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A recording played back as an {@link Engine}: the pages show the recorded workspace at the replay's position, and
 * the recorded events arrive on {@link #events()} as they did live (the same frames, read with the remote engine's
 * readers: {@link FrameDecoder}). Its {@link #clock()} is the position, so ages read as they did then.
 *
 * <p>Read-only: every action (project, heal, warm, probe, precompile, archive) is refused as {@code REJECTED} with
 * {@link #READ_ONLY}; lists the recording does not hold (seeds, servers, saved runs, archives) are empty.
 *
 * <p>Moving: {@link #play} at a speed, {@link #pause}, {@link #seek} (silent: the state of that moment, then one
 * {@link ReplayMoved} with the events just before it), {@link #stepToNextChange} (plays up to the next tick that
 * changed the revision, or the next warm, probe, archive or heal event). A seek starts from the nearest keyframe
 * group at or before the target (the recording's index); the state at each group's keyframe is kept once built, so
 * a seek back costs one group's frames at most.
 *
 * <p>Concurrency: thread-safe. The replay state (decoder, cursor, position) is guarded by {@code this}; events are
 * published while holding it, in recorded order, from the caller's thread or the player's ({@code kiln-replay}).
 */
public final class ReplayEngine implements Engine, Projection {
    private static final Logger LOG = LoggerFactory.getLogger(ReplayEngine.class);
    private final Seeds seeds = new ReplaySeeds();
    private final Probes probes = new ReplayProbes();
    private final Archives archives = new ReplayArchives();
    private final Store store = new ReplayStore();
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Why every action is refused. */
    public static final String READ_ONLY = "read-only: this is a recording being replayed, not a live workspace";
    private static final int RECENT = 100;
    private static final long STEP_NANOS = 40_000_000L;

    /** The state at a group's keyframe, kept once built. */
    private record Mark(FrameDecoder decoder, @Nullable TickFinished tick, @Nullable WatchChanged watch, int next) {
    }

    private final Recording recording;
    private final Ticker ticker;
    private final EventBus bus = new EventBus();
    private final WorkspaceLayout layout;
    private final long startMicros;
    private final long endMicros;
    private final ScheduledExecutorService player;
    private final Map<Integer, Mark> marks = new LinkedHashMap<>(16, 0.75f, true) { // guarded by this
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Mark> eldest) {
            return size() > 12;
        }
    };
    private final Map<Integer, List<Recording.Frame>> inflated = new LinkedHashMap<>(4, 0.75f, true) { // guarded by this
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, List<Recording.Frame>> eldest) {
            return size() > 8;
        }
    };

    private FrameDecoder decoder; // guarded by this
    private @Nullable TickFinished lastTick; // guarded by this
    private @Nullable WatchChanged lastWatch; // guarded by this
    private int group = -1; // guarded by this
    private List<Recording.Frame> frames = List.of(); // guarded by this
    private int next; // guarded by this: the next frame of `frames` to apply
    /** What the pages read, from memory: replaced after every move (never built on a caller's thread). */
    private volatile ContractSnapshot current;
    private volatile @Nullable WatchStatus currentWatch;
    private volatile long position;
    private volatile boolean playing;
    private volatile double speed = 1;
    private @Nullable ScheduledFuture<?> task; // guarded by this
    private long playedAt; // guarded by this: ticker time of the last step
    private long announcedAt; // guarded by this
    private volatile boolean closed;

    private ReplayEngine(Recording recording, Ticker ticker) {
        this.recording = recording;
        this.ticker = ticker;
        this.layout = WorkspaceLayout.of(Path.of(recording.workspaceRoot()));
        this.decoder = new FrameDecoder(layout.tasksDir());
        this.current = decoder.snapshot();
        this.startMicros = recording.groups().isEmpty() ? 0 : recording.groups().get(0).firstMicros();
        this.endMicros = recording.groups().isEmpty() ? 0 : recording.groups().get(recording.groups().size() - 1).lastMicros();
        this.position = startMicros;
        this.player = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kiln-replay");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Opens a recording for replay (see {@link Recording#open}: a damaged file replays up to its damage).
     *
     * @throws IOException when it is no recording, or holds no whole keyframe
     */
    public static ReplayEngine open(Path file, Ticker ticker) throws IOException {
        Recording r = Recording.open(file);
        if (r.groups().isEmpty()) {
            throw new IOException(file + " holds no whole keyframe, so nothing in it can be replayed"
                    + r.damage().map(d -> " (" + d.describe() + ")").orElse(""));
        }
        return new ReplayEngine(r, ticker);
    }

    /** The recording replayed: its header, groups and damage. */
    public Recording recording() {
        return recording;
    }

    // ---- moving ----------------------------------------------------------------------------------------------

    public Instant position() {
        return instant(position);
    }

    public Instant start() {
        return instant(startMicros);
    }

    public Instant end() {
        return instant(endMicros);
    }

    public boolean playing() {
        return playing;
    }

    public double speed() {
        return speed;
    }

    /** Plays from the position at {@code speed} times recorded time, until the end or {@link #pause}. */
    public synchronized void play(double speed) {
        if (!(speed > 0) || speed > 10_000) {
            throw new IllegalArgumentException("a replay plays at more than 0 and at most 10,000 times recorded time, not " + speed);
        }
        this.speed = speed;
        if (position >= endMicros) {
            seek(start());
        }
        playing = true;
        playedAt = ticker.read();
        if (task == null) {
            task = player.scheduleWithFixedDelay(this::playStep, STEP_NANOS, STEP_NANOS, TimeUnit.NANOSECONDS);
        }
        announce(false, List.of());
    }

    public synchronized void pause() {
        playing = false;
        if (task != null) {
            task.cancel(false);
            task = null;
        }
        announce(false, List.of());
    }

    private synchronized void playStep() {
        if (!playing || closed) {
            return;
        }
        long now = ticker.read();
        long advance = (long) ((now - playedAt) / 1_000.0 * speed);
        playedAt = now;
        long target = Math.min(endMicros, position + Math.max(0, advance));
        try {
            forward(target, true);
        } catch (IOException e) {
            LOG.error("Replaying {} stopped: {}", recording.file(), e.getMessage());
            target = endMicros;
        }
        position = target;
        settle();
        if (target >= endMicros) {
            playing = false;
            if (task != null) {
                task.cancel(false);
                task = null;
            }
            announce(false, List.of());
        } else if (now - announcedAt >= 200_000_000L) {
            announce(false, List.of());
        }
    }

    /**
     * Shows the recorded workspace as it was at {@code to} (clamped to the recording), without replaying the events
     * in between; publishes its last tick and watch, then a {@link ReplayMoved} with the events just before it.
     */
    public synchronized void seek(Instant to) {
        long target = to.isAfter(end()) ? endMicros : to.isBefore(start()) ? startMicros : Recorder.micros(to);
        ArrayDeque<KilnEvent> recent = new ArrayDeque<>();
        try {
            int g = recording.groupAt(target);
            if (g != group || target < position) {
                restore(g);
            }
            forward(target, false, recent);
        } catch (IOException e) {
            LOG.error("Seeking in {} failed: {}", recording.file(), e.getMessage());
        }
        position = target;
        settle();
        if (lastWatch != null) {
            bus.publish(lastWatch);
        }
        // the pages refresh on a tick: before the recording's first, one that stands for the state recorded
        bus.publish(lastTick != null ? lastTick : stateTick());
        announce(true, new ArrayList<>(recent));
    }

    /**
     * Plays up to the next change (a tick that advanced the revision, or a warm, probe, archive, heal or action
     * event), publishing what lies before it; at the end, stays there.
     *
     * @return whether there was a next change
     */
    public synchronized boolean stepToNextChange() {
        try {
            Optional<Long> at = nextChange();
            long target = at.orElse(endMicros);
            forward(target, true);
            position = target;
            // played, not jumped: every event on the way was published, so an event list keeps what it shows
            announce(false, List.of());
            return at.isPresent();
        } catch (IOException e) {
            LOG.error("Stepping in {} failed: {}", recording.file(), e.getMessage());
            return false;
        }
    }

    private Optional<Long> nextChange() throws IOException {
        int g = group;
        int i = next;
        List<Recording.Frame> fs = frames;
        while (g < recording.groups().size()) {
            for (; i < fs.size(); i++) {
                Recording.Frame f = fs.get(i);
                if (f.context() || f.micros() <= position) {
                    continue;
                }
                if (changes(f)) {
                    return Optional.of(f.micros());
                }
            }
            g++;
            if (g >= recording.groups().size()) {
                break;
            }
            fs = groupFrames(g);
            i = 0;
        }
        return Optional.empty();
    }

    private static boolean changes(Recording.Frame f) throws IOException {
        switch (f.event()) {
            case "tick":
                return JSON.readTree(f.data()).path("result").path("changed").asBoolean();
            case "watch":
            case "delta":
            case "snapshot":
                return false;
            default:
                return !f.event().startsWith("probe_") || f.event().equals("probe_run_started") || f.event().equals("probe_finished");
        }
    }

    /** The state at group {@code g}'s keyframe: from the kept marks, or built by applying its context frames. */
    private void restore(int g) throws IOException {
        List<Recording.Frame> fs = groupFrames(g);
        Mark m = marks.get(g);
        if (m == null) {
            FrameDecoder d = new FrameDecoder(layout.tasksDir());
            TickFinished tick = null;
            WatchChanged watch = null;
            int i = 0;
            // the keyframe and its context repeats (or, for a recording's first group, the snapshot alone)
            for (; i < fs.size() && (i == 0 || fs.get(i).context()); i++) {
                Optional<KilnEvent> e = d.apply(fs.get(i).event(), fs.get(i).data());
                if (e.isPresent() && e.get() instanceof TickFinished t) {
                    tick = t;
                } else if (e.isPresent() && e.get() instanceof WatchChanged w) {
                    watch = w;
                }
            }
            d.snapshot(); // built once here, shared by every copy until it changes
            m = new Mark(d, tick, watch, i);
            marks.put(g, m);
        }
        decoder = m.decoder().copy();
        lastTick = m.tick();
        lastWatch = m.watch();
        group = g;
        frames = fs;
        next = m.next();
        position = fs.isEmpty() ? position : fs.get(0).micros();
    }

    private void forward(long target, boolean publish) throws IOException {
        forward(target, publish, null);
    }

    /**
     * Applies every frame up to {@code target}, across groups; publishes events when asked. A silent move (a seek)
     * applies the state's frames only and reads just the events it needs afterwards (the last tick and watch, the
     * recent ones for {@code recent}): reading every tick of ten minutes was most of a seek's time.
     */
    private void forward(long target, boolean publish, @Nullable ArrayDeque<KilnEvent> recent) throws IOException {
        if (group < 0) {
            restore(0);
        }
        ArrayDeque<Recording.Frame> skipped = new ArrayDeque<>();
        Recording.Frame tickFrame = null;
        Recording.Frame watchFrame = null;
        while (true) {
            while (next < frames.size() && frames.get(next).micros() <= target) {
                Recording.Frame f = frames.get(next++);
                if (!publish && !FrameDecoder.isState(f.event())) {
                    if (f.event().equals("tick")) {
                        tickFrame = f;
                    } else if (f.event().equals("watch")) {
                        watchFrame = f;
                    }
                    if (!f.context()) {
                        skipped.addLast(f);
                        if (skipped.size() > RECENT) {
                            skipped.removeFirst();
                        }
                    }
                    continue;
                }
                Optional<KilnEvent> e = decode(f);
                if (e.isEmpty()) {
                    continue;
                }
                KilnEvent ev = e.get();
                if (ev instanceof TickFinished t) {
                    lastTick = t;
                } else if (ev instanceof WatchChanged w) {
                    lastWatch = w;
                }
                if (f.context()) {
                    continue; // a repeat of the state at a keyframe: it happened before
                }
                if (ev instanceof TickFinished) {
                    settle(); // a page reading the snapshot on this tick finds the state the tick made
                }
                bus.publish(ev);
            }
            if (next < frames.size() || group + 1 >= recording.groups().size()
                    || recording.groups().get(group + 1).firstMicros() > target) {
                break;
            }
            group++; // into the next group: its keyframe is the state reached already, applied as context
            frames = groupFrames(group);
            next = 0;
        }
        if (!publish) {
            for (Recording.Frame f : new Recording.Frame[] {watchFrame, tickFrame}) {
                if (f != null) {
                    decode(f).ifPresent(ev -> {
                        if (ev instanceof TickFinished t) {
                            lastTick = t;
                        } else if (ev instanceof WatchChanged w) {
                            lastWatch = w;
                        }
                    });
                }
            }
            if (recent != null) {
                for (Recording.Frame f : skipped) {
                    if (f != tickFrame && f != watchFrame) {
                        decode(f).ifPresent(recent::addLast);
                    } else if (f == tickFrame && lastTick != null) {
                        recent.addLast(lastTick);
                    } else if (f == watchFrame && lastWatch != null) {
                        recent.addLast(lastWatch);
                    }
                }
            }
        }
    }

    private Optional<KilnEvent> decode(Recording.Frame f) {
        try {
            return decoder.apply(f.event(), f.data());
        } catch (IOException ex) {
            LOG.warn("A {} frame of {} at {} could not be read; skipped: {}", f.event(), recording.file(), f.at(), ex.getMessage());
            return Optional.empty();
        }
    }

    private List<Recording.Frame> groupFrames(int g) throws IOException {
        List<Recording.Frame> fs = inflated.get(g);
        if (fs == null) {
            fs = recording.frames(recording.groups().get(g));
            inflated.put(g, fs);
        }
        return fs;
    }

    /** Makes the decoder's state what the pages read. */
    private void settle() {
        current = decoder.snapshot();
        currentWatch = decoder.watch().orElse(null);
    }

    private void announce(boolean jumped, List<KilnEvent> recent) {
        settle();
        announcedAt = ticker.read();
        bus.publish(new ReplayMoved(instant(position), instant(position), instant(startMicros), instant(endMicros), playing,
                speed, jumped, recent));
    }

    private TickFinished stateTick() {
        ContractSnapshot s = decoder.snapshot();
        Instant at = instant(position);
        return new TickFinished(at, new dev.kiln.core.projection.TickResult(dev.kiln.core.projection.WakeReason.STARTUP, at,
                decoder.revision(), true, s.contracts().size(), s.failures().size(), s.stats(), 0, List.of(), null));
    }

    private static Instant instant(long micros) {
        return new Recording.Frame(micros, "", "", false).at();
    }

    // ---- Engine ----------------------------------------------------------------------------------------------

    @Override
    public String location() {
        return "recording " + recording.file().getFileName() + " (" + recording.source() + ")";
    }

    /** True: the recorded paths name files of the recorded host, not of this one. */
    @Override
    public boolean remote() {
        return true;
    }

    @Override
    public WorkspaceLayout layout() {
        return layout;
    }

    @Override
    public EventBus events() {
        return bus;
    }

    /** The replay's position: ages read as they did when recorded. */
    @Override
    public Clock clock() {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return instant(position);
            }

            private Instant instant(long micros) {
                return ReplayEngine.instant(micros);
            }
        };
    }

    /** Shows the recording's first moment. */
    @Override
    public Optional<String> start(boolean live) {
        seek(start());
        return Optional.of("replaying " + recording.file().getFileName() + ", recorded from " + recording.source() + ": "
                + READ_ONLY);
    }

    /** The state at the position, from memory (built by the move that reached it): safe on a UI thread. */
    @Override
    public ContractSnapshot snapshot() {
        return current;
    }

    @Override
    public void projectNow() {
        throw refused("Project now");
    }

    @Override
    public Optional<WatchStatus> watchStatus() {
        return Optional.ofNullable(currentWatch);
    }

    @Override
    public Optional<String> apiUrl() {
        return Optional.empty();
    }

    /**
     * The verdict's evidence at the replay position, from the replayed snapshot alone: a recording keeps no live
     * heartbeat, watch or seeds, so only its contracts and their failures are judged.
     */
    @Override
    public dev.kiln.core.health.HealthEvidence healthEvidence() {
        ContractSnapshot s = current;
        return dev.kiln.core.health.HealthEvidence.builder()
                .projection(s.contracts().size() + s.failures().size(), s.failures().size(),
                        s.failures().stream().map(f -> f.path()).toList(), "")
                .build();
    }

    @Override
    public Diagnosis diagnose() {
        throw refused("The staleness doctor");
    }

    @Override
    public HealReport heal(boolean apply, String idempotencyKey) {
        throw refused("Heal");
    }

    @Override
    public Projection projection() {
        return this;
    }

    @Override
    public Seeds seeds() {
        return seeds;
    }

    @Override
    public Probes probes() {
        return probes;
    }

    @Override
    public Archives archives() {
        return archives;
    }

    @Override
    public Store store() {
        return store;
    }

    /** No seeds were recorded: none to list, none to warm. */
    private final class ReplaySeeds implements Seeds {
        @Override
        public List<SeedInfo> list() {
            return List.of();
        }

        @Override
        public List<WarmResult> history() {
            return List.of();
        }

        @Override
        public WarmPlan plan(String target) {
            throw refused("A warm plan");
        }

        @Override
        public Action<WarmResult> warm(String target, String idempotencyKey) {
            throw refused("A warm");
        }

        @Override
        public List<dev.kiln.core.seed.ServerSeedInfo> servers() {
            return List.of();
        }

        @Override
        public Action<dev.kiln.core.seed.ServerSeedsWarmed> warmServers(List<String> servers, String idempotencyKey) {
            throw new EngineException(EngineException.Kind.REJECTED, location() + " does not warm server seeds");
        }
    }

    /** The recording holds the probe's events, not its servers or runs: empty lists, every action refused. */
    private final class ReplayProbes implements Probes {
        @Override
        public List<ServerConfig> servers() {
            return List.of();
        }

        @Override
        public Duration defaultStartupTimeout() {
            return recording.defaultStartupTimeout();
        }

        @Override
        public Action<ProbeReport> probe(ProbeRequest request, String idempotencyKey) {
            throw refused("A probe");
        }

        @Override
        public List<SavedRun> runs() {
            return List.of();
        }

        @Override
        public SavedProbeRun run(String id) {
            throw refused("A saved probe run");
        }

        @Override
        public Optional<SavedSweep> latestSweep() {
            return Optional.empty();
        }

        @Override
        public BytecodeReport audit(String server) {
            throw refused("A bytecode audit");
        }

        @Override
        public Action<Bytecode.CompileResult> precompile(String server, String idempotencyKey) {
            throw refused("Precompiling");
        }
    }

    /** No archive cache was recorded: empty, and nothing to build or drop. */
    private final class ReplayArchives implements Archives {
        @Override
        public ArchiveCacheStats stats() {
            return ArchiveCacheStats.empty();
        }

        @Override
        public List<ArchiveEntry> entries() {
            return List.of();
        }

        @Override
        public long maximumBytes() {
            return 0;
        }

        @Override
        public String policy() {
            return "validated";
        }

        @Override
        public ArchiveEntry archive(String directory, List<String> members) {
            throw refused("An archive build");
        }

        @Override
        public void invalidate() {
            throw refused("Invalidating archives");
        }
    }

    /** A recording names no store: no status, no transfer. */
    private final class ReplayStore implements Store {
        @Override
        public Optional<dev.kiln.core.store.StoreStatus> status() {
            return Optional.empty();
        }

        @Override
        public Action<dev.kiln.core.store.Transfer> push(String target, String idempotencyKey) {
            throw refused("A push to the store");
        }

        @Override
        public Action<dev.kiln.core.store.Transfer> pull(String target, String idempotencyKey) {
            throw refused("A pull from the store");
        }

        @Override
        public Optional<dev.kiln.core.store.StoreStatus> serverStatus() {
            return Optional.empty();
        }

        @Override
        public Action<dev.kiln.core.store.Transfer> pushServer(String server, String idempotencyKey) {
            throw new EngineException(EngineException.Kind.REJECTED, location() + " does not push server seeds");
        }

        @Override
        public Action<dev.kiln.core.store.Transfer> pullServer(String server, String idempotencyKey) {
            throw new EngineException(EngineException.Kind.REJECTED, location() + " does not pull server seeds");
        }

        @Override
        public Action<dev.kiln.core.store.Transfer> pushArchive(String directory, List<String> members, String idempotencyKey) {
            throw refused("A push of an archive to the store");
        }

        @Override
        public Action<dev.kiln.core.store.Transfer> pullArchive(String sha256, String idempotencyKey) {
            throw refused("A pull of an archive from the store");
        }

        @Override
        public Optional<dev.kiln.core.store.ObjectManifest> archive(String sha256) {
            throw refused("Asking the store for an archive");
        }
    }

    private EngineException refused(String what) {
        return new EngineException(EngineException.Kind.REJECTED, what + " is not possible: " + READ_ONLY + " ("
                + recording.file().getFileName() + ")");
    }

    @Override
    public void close() {
        closed = true;
        player.shutdownNow();
        try {
            player.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
