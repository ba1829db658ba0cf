package dev.kiln.core.watch;

import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * Watches the projection's input roots ({@code tasks/}, {@code observer/drift/}, {@code targets/}, and the workspace
 * directory itself, non-recursively, for {@code kiln.json} and roots that appear) with the JDK's inotify watch
 * service, one watch per directory registered by a parallel walk ({@link InotifyTree}), and tells a {@link Listener}
 * what changed, in which domain.
 *
 * <p>Fails open. Any watcher failure — a watched root deleted, events lost (inotify OVERFLOW, which the library
 * reports as an error), the inotify watch limit, any other exception — is logged once as an error with its
 * cause, reported as {@link Listener#onDegraded}, and a retry loop re-establishes the watch with back-off (up to
 * {@code maxBackoff}); when it succeeds, {@link Listener#onLive} tells the caller to reconcile with a full
 * enumeration, because inotify has no replay. The root set is re-derived every {@code rederiveEvery} (and at
 * once when a root directory appears), so a root created after start gets watched.
 *
 * <p>When the inotify watch limit is below the directories to watch, it does not degrade everything: a
 * {@link WatchPlan} watches as much of {@code tasks/} as the limit allows (whole subtrees first), a
 * {@link StatPoller} stat-walks the rest every {@code pollEvery} and reports its changed contracts like events, and
 * the status says so ({@link WatchStatus#partial()}, with the exact {@code sysctl} that would cover everything).
 * If the kernel refuses watches anyway (other processes hold some of the user's), the next attempt plans within
 * half the budget.
 *
 * <p>Concurrency: establishing, failing and retrying all run on one supervisor thread, so they never interleave;
 * the event loop runs on its own thread per watch generation and only forwards events of the current
 * generation. {@link #status()} may be read from any thread.
 */
public final class ChangeWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChangeWatcher.class);
    private static final Path MAX_USER_WATCHES = Path.of("/proc/sys/fs/inotify/max_user_watches");
    static final String EVENTS_LOST = "events were lost (inotify queue overflow or a watcher error)";

    /** Receives what the watcher sees; called on watcher threads, so it must be quick and must not block. */
    public interface Listener {
        /** A path of {@code domain} was created, modified or deleted. */
        void onChange(ChangeDomain domain, Path path);

        /** The watch is established (at start or again after a failure): reconcile with one full enumeration. */
        void onLive(WatchStatus status);

        /** The watch failed: fall back to the fixed interval until {@link #onLive}. */
        void onDegraded(WatchStatus status);
    }

    private final WorkspaceLayout layout;
    private final PathRules rules;
    private final Listener listener;
    private final Clock clock;
    private final EventSink events;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final Duration rederiveEvery;
    private final long watchLimit;
    private final Duration pollEvery;
    /** Watches the kernel was seen to allow at most (halved on each refusal); 0 while none was refused. */
    private long refusedCap;
    private volatile @Nullable WatchPlan plan;
    private @Nullable StatPoller poller;
    private @Nullable ScheduledFuture<?> polling;
    private final ScheduledExecutorService supervisor;
    private final AtomicInteger watched = new AtomicInteger();

    // Only the supervisor thread writes these.
    private volatile int generation;
    private volatile WatchStatus status;
    private volatile boolean closed;
    private @Nullable InotifyTree current;
    private volatile List<Path> roots = List.of();
    private Duration backoff;
    private @Nullable ScheduledFuture<?> retry;
    private @Nullable ScheduledFuture<?> rederive;

    private ChangeWatcher(Builder b) {
        this.layout = b.layout;
        this.rules = new PathRules(b.layout);
        this.listener = Objects.requireNonNull(b.listener, "listener");
        this.clock = b.clock;
        this.events = b.events;
        this.initialBackoff = b.initialBackoff;
        this.maxBackoff = b.maxBackoff;
        this.rederiveEvery = b.rederiveEvery;
        this.watchLimit = b.watchLimit > 0 ? b.watchLimit : readInotifyLimit();
        this.pollEvery = b.pollEvery;
        this.backoff = initialBackoff;
        this.status = WatchStatus.degraded("not started", clock.instant(), watchLimit);
        this.supervisor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kiln-watch-supervisor");
            t.setDaemon(true);
            return t;
        });
    }

    public static Builder builder(WorkspaceLayout layout) {
        return new Builder(layout);
    }

    /**
     * Makes the first attempt to establish the watch and returns when it succeeded or failed (a failure is
     * reported to the listener and retried in the background, like any later one).
     */
    public void start() {
        try {
            supervisor.submit(() -> {
                attempt();
                rederive = supervisor.scheduleWithFixedDelay(this::rederive, rederiveEvery.toNanos(),
                        rederiveEvery.toNanos(), TimeUnit.NANOSECONDS);
            }).get(5, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not start watching " + layout.root() + ": " + e, e);
        }
    }

    /** The current status: live, or degraded with the reason and since when. */
    public WatchStatus status() {
        WatchStatus s = status;
        return s.live() ? new WatchStatus(true, "", s.since(), s.roots(), watched.get(), s.inotifyLimit(),
                s.polledDirectories(), s.note()) : s;
    }

    /** Stops watching: closes the library watcher and the supervisor. No callback runs afterwards. */
    @Override
    public void close() {
        closed = true;
        supervisor.shutdownNow();
        try {
            supervisor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeCurrent();
    }

    // ---- supervisor thread ------------------------------------------------------------------------------------

    private void attempt() {
        if (closed) {
            return;
        }
        retry = null;
        boolean wasDown = !status.live() && !status.reason().equals("not started");
        try {
            establish();
        } catch (WatchFailure f) {
            WatchStatus before = status;
            boolean firstFailure = before.live() || before.reason().equals("not started");
            Duration wait = backoff;
            backoff = backoff.multipliedBy(2).compareTo(maxBackoff) > 0 ? maxBackoff : backoff.multipliedBy(2);
            noteRefusal(f.reason());
            status = WatchStatus.degraded(f.reason(), firstFailure ? clock.instant() : before.since(), watchLimit);
            if (firstFailure) {
                LOG.error("Cannot watch {}: {}. Projecting on the fixed interval; retrying in {} ms.", layout.root(),
                        f.getMessage(), wait.toMillis(), f.getCause());
                announce(false);
            } else {
                LOG.debug("Watch still not established ({}); next try in {} ms", f.getMessage(), wait.toMillis());
            }
            scheduleRetry(wait);
            return;
        }
        backoff = initialBackoff;
        if (wasDown) {
            LOG.info("Watch on {} re-established ({} directories); reconciling with one full projection",
                    layout.root(), watched.get());
        }
        announce(true);
    }

    private void establish() throws WatchFailure {
        closeCurrent();
        int gen = ++generation;
        List<Path> found = deriveRoots();
        if (!found.contains(layout.tasksDir())) {
            throw new WatchFailure(layout.tasksDir() + " does not exist; create it (or a demo: kiln demo DIR)", null);
        }
        long limit = refusedCap > 0 && (watchLimit <= 0 || refusedCap < watchLimit) ? refusedCap : watchLimit;
        List<Path> paths = new ArrayList<>();
        paths.add(layout.root());
        paths.addAll(found);
        InputTreeVisitor visitor = new InputTreeVisitor(found);
        plan = null;
        WatchPlan partial = null;
        int dirs;
        int otherDirs = 0;
        // One parallel walk registers everything within the limit: the tree is walked once. Only a tree larger
        // than the limit is counted and planned (then walked again, within the plan).
        InotifyTree w = open(limit > 0 ? (int) Math.min(Integer.MAX_VALUE, limit) : 0);
        try {
            for (Path p : paths) {
                visitor.visit(p, w::register, f -> { }, true);
            }
            dirs = w.registered();
        } catch (InotifyTree.OverBudget over) {
            w.close();
            List<Path> others = new ArrayList<>(found);
            others.remove(layout.tasksDir());
            otherDirs = 1 + countDirectories(others); // the workspace directory itself, drift, targets
            int taskDirs = countDirectories(List.of(layout.tasksDir()));
            dirs = otherDirs + taskDirs;
            if (limit - otherDirs < 1) {
                throw new WatchFailure(limitReason(dirs), null);
            }
            try {
                partial = WatchPlan.of(layout.tasksDir(), (int) Math.min(Integer.MAX_VALUE, limit - otherDirs));
            } catch (IOException e) {
                throw new WatchFailure("cannot list " + layout.tasksDir() + ": " + e.getMessage(), e);
            }
            plan = partial;
            w = open(0);
            try {
                for (Path p : paths) {
                    visitor.visit(p, w::register, f -> { }, false);
                }
            } catch (IOException | RuntimeException e) {
                throw registrationFailed(w, e, dirs);
            }
        } catch (IOException | RuntimeException e) {
            throw registrationFailed(w, e, w.registered());
        }
        InotifyTree tree = w;
        Thread loop = new Thread(() -> tree.run(new GenerationSink(gen), visitor), "kiln-watch-" + gen);
        loop.setDaemon(true);
        loop.start();
        current = w;
        roots = found;
        if (partial == null) {
            watched.set(dirs);
            status = new WatchStatus(true, "", clock.instant(), found, dirs, watchLimit);
            return;
        }
        StatPoller p = new StatPoller(layout.tasksDir(), partial);
        p.baseline();
        poller = p;
        polling = supervisor.scheduleWithFixedDelay(() -> poll(gen, p), pollEvery.toNanos(), pollEvery.toNanos(),
                TimeUnit.NANOSECONDS);
        int watches = otherDirs + partial.watches;
        watched.set(watches);
        String note = partialNote(limit, dirs, watches, partial.polled);
        LOG.warn("Watching {} in part: {}", layout.root(), note);
        status = new WatchStatus(true, "", clock.instant(), found, watches, watchLimit, partial.polled, note);
    }

    private InotifyTree open(int budget) throws WatchFailure {
        try {
            return new InotifyTree(budget);
        } catch (IOException | RuntimeException e) {
            throw new WatchFailure(describe(e, 0), e);
        }
    }

    /** A registration that failed part-way: what was tried is kept for {@link #noteRefusal}. */
    private WatchFailure registrationFailed(InotifyTree w, Exception e, int dirs) {
        watched.set(w.registered());
        w.close();
        return new WatchFailure(describe(e, dirs), e);
    }

    /** One stat walk of the unwatched part; its changes go to the listener like events. Supervisor thread. */
    private void poll(int gen, StatPoller p) {
        if (closed || gen != generation) {
            return;
        }
        for (Path path : p.poll()) {
            rules.classify(path, false).ifPresent(domain -> {
                try {
                    listener.onChange(domain, path);
                } catch (RuntimeException e) {
                    LOG.warn("A watch listener failed on {}; the watcher goes on", path, e);
                }
            });
        }
    }

    private String partialNote(long limit, int dirs, int watches, int polled) {
        return "the inotify watch limit (" + limit + (limit == watchLimit ? "" : ", after the kernel refused more")
                + ") is below the " + dirs + " directories to watch: " + watches + " are watched, " + polled
                + " are stat-walked every " + pollEvery.toMillis() + " ms instead. To watch everything, raise it: "
                + sysctl(dirs);
    }

    private static String sysctl(int dirs) {
        return "sysctl fs.inotify.max_user_watches=" + Math.max(524_288, dirs * 2L);
    }

    /** After the kernel refused a watch: plan within half of what was tried next time. */
    private void noteRefusal(String reason) {
        if (reason != null && reason.contains("[") && reason.startsWith("inotify watch limit reached")) {
            long tried = refusedCap > 0 ? refusedCap : Math.max(2, watched.get());
            refusedCap = Math.max(1, tried / 2);
        }
    }

    private void rederive() {
        if (closed || !status.live()) {
            return;
        }
        List<Path> now = deriveRoots();
        if (!now.equals(roots)) {
            LOG.info("Input roots changed ({} -> {}); re-establishing the watch", roots, now);
            attempt();
        }
    }

    private void scheduleRetry(Duration wait) {
        if (!closed && retry == null) {
            retry = supervisor.schedule(this::attempt, wait.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    private void announce(boolean live) {
        WatchStatus s = status();
        events.publish(new WatchChanged(clock.instant(), s));
        try {
            if (live) {
                listener.onLive(s);
            } else {
                listener.onDegraded(s);
            }
        } catch (RuntimeException e) {
            LOG.warn("A watch listener failed on {}; the watcher goes on", s, e);
        }
    }

    // ---- any thread -------------------------------------------------------------------------------------------

    /** Reports a failure of generation {@code gen}; stale generations (already replaced) are ignored. */
    private void fail(int gen, String reason, @Nullable Throwable cause) {
        if (closed) {
            return;
        }
        try {
            supervisor.execute(() -> {
                if (closed || gen != generation || !status.live()) {
                    return;
                }
                closeCurrent();
                generation++;
                noteRefusal(reason);
                status = WatchStatus.degraded(reason, clock.instant(), watchLimit);
                backoff = initialBackoff;
                LOG.error("Watching {} failed: {}. Projecting on the fixed interval until the watch is re-established"
                        + " (first retry in {} ms).", layout.root(), reason, backoff.toMillis(), cause);
                announce(false);
                scheduleRetry(backoff);
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing: nothing to do
        }
    }

    private final class GenerationSink implements InotifyTree.Sink {
        private final int gen;

        GenerationSink(int gen) {
            this.gen = gen;
        }

        @Override
        public void onOverflow() {
            if (!closed && gen == generation) {
                fail(gen, EVENTS_LOST, null);
            }
        }

        @Override
        public void onEnded() {
            if (!closed && gen == generation) {
                fail(gen, "the watch ended: its directories were removed", null);
            }
        }

        @Override
        public void onEvent(InotifyTree.Kind type, Path raw, boolean directory) {
            if (closed || gen != generation) {
                return;
            }
            Path path = raw.toAbsolutePath().normalize();
            WatchPlan pl = plan;
            boolean inRoot = roots.stream().anyMatch(path::startsWith)
                    && (pl == null || !path.startsWith(layout.tasksDir()) || pl.inFull(path));
            if (inRoot && directory && type == InotifyTree.Kind.CREATE) {
                watched.incrementAndGet();
            } else if (inRoot && directory && type == InotifyTree.Kind.DELETE) {
                watched.decrementAndGet();
            }
            if (type == InotifyTree.Kind.DELETE && roots.contains(path)) {
                fail(gen, layout.root().relativize(path) + "/ was deleted", null);
            }
            // A directory's MODIFY (chmod, link count) is kept: its readability decides what a walk sees below it.
            if (rules.isRootCandidate(path) && type == InotifyTree.Kind.CREATE) {
                try {
                    supervisor.execute(ChangeWatcher.this::rederive);
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    return;
                }
            }
            rules.classify(path, directory).ifPresent(domain -> {
                try {
                    listener.onChange(domain, path);
                } catch (RuntimeException e) {
                    LOG.warn("A watch listener failed on {}; the watcher goes on", path, e);
                }
            });
        }

        @Override
        public void onError(Exception e) {
            // a failed registration of a new directory (the limit, say) or a failed read: events may be lost
            if (!closed && gen == generation) {
                fail(gen, describe(e, watched.get()), e);
            }
        }
    }

    // ---- roots, counting, limits ------------------------------------------------------------------------------

    private List<Path> deriveRoots() {
        List<Path> found = new ArrayList<>(3);
        for (Path p : List.of(layout.tasksDir(), layout.driftDir(), layout.targetsDir())) {
            if (Files.isDirectory(p)) {
                found.add(p);
            }
        }
        return List.copyOf(found);
    }

    private static int countDirectories(List<Path> roots) throws WatchFailure {
        int[] n = {0};
        for (Path r : roots) {
            try {
                walk(r, d -> n[0]++, f -> { });
            } catch (IOException e) {
                throw new WatchFailure("cannot list " + r + ": " + e.getMessage(), e);
            }
        }
        return n[0];
    }

    private String limitReason(int dirs) {
        return "inotify watch limit reached: " + dirs + " directories to watch, max_user_watches is " + watchLimit
                + " (raise it: " + sysctl(dirs) + ")";
    }

    private String describe(Throwable t, int dirs) {
        Throwable e = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        String msg = String.valueOf(e.getMessage());
        if (msg.contains("inotify watches") || msg.contains("User limit of inotify")) {
            return limitReason(dirs) + " [" + msg + "]";
        }
        if (e instanceof NullPointerException || e instanceof IllegalStateException) {
            return EVENTS_LOST + " [" + e + "]";
        }
        return "watcher failed: " + e;
    }

    static long readInotifyLimit() {
        try {
            // not Files.readString: it trusts the size procfs reports (0) and returned "1" here on JDK 17
            List<String> lines = Files.readAllLines(MAX_USER_WATCHES);
            return lines.isEmpty() ? -1 : Long.parseLong(lines.get(0).trim());
        } catch (IOException | NumberFormatException | SecurityException e) {
            return -1;
        }
    }

    private void closeCurrent() {
        ScheduledFuture<?> f = polling;
        polling = null;
        poller = null;
        if (f != null) {
            f.cancel(false);
        }
        InotifyTree w = current;
        current = null;
        if (w != null) {
            w.close();
        }
    }

    /** Walks {@code start}, skipping dot-directories and tolerating files that vanish mid-walk. */
    static void walk(Path start, InotifyTree.Callback onDirectory, InotifyTree.Callback onFile) throws IOException {
        InotifyTree.walk(start, onDirectory, onFile, false);
    }

    /**
     * What the watch walks and registers: the workspace directory itself without its children, and the input
     * roots recursively (minus dot-directories). A directory that appears elsewhere (e.g. {@code seeds/}) is not
     * watched.
     */
    private final class InputTreeVisitor implements InotifyTree.Scope {
        private final List<Path> inputRoots;

        InputTreeVisitor(List<Path> inputRoots) {
            this.inputRoots = inputRoots;
        }

        @Override
        public void visit(Path start, InotifyTree.Callback onDirectory, InotifyTree.Callback onFile, boolean parallel)
                throws IOException {
            Path s = start.toAbsolutePath().normalize();
            if (s.equals(layout.root())) {
                onDirectory.call(s);
                return;
            }
            boolean underRoot = inputRoots.stream().anyMatch(s::startsWith);
            if (!underRoot && rules.isRootCandidate(s)) {
                // a root appearing: watched alone and reported; the re-derivation its CREATE triggers then
                // watches it recursively
                onDirectory.call(s);
                return;
            }
            if (!underRoot || layout.root().relativize(s).toString().contains("/.") || PathRules.isIgnoredDirectory(s)) {
                return;
            }
            WatchPlan pl = plan;
            if (pl != null && s.startsWith(layout.tasksDir()) && !pl.inFull(s)) {
                List<Path> planned = pl.spine.get(s);
                if (planned != null) { // watched alone; its planned children as planned; the rest is polled
                    onDirectory.call(s);
                    for (Path c : planned) {
                        visit(c, onDirectory, onFile, false);
                    }
                }
                return;
            }
            if (Files.isDirectory(s)) {
                InotifyTree.walk(s, onDirectory, onFile, parallel);
            }
        }
    }

    private static final class WatchFailure extends Exception {
        private static final long serialVersionUID = 1L;

        private final String reason;

        WatchFailure(String reason, @Nullable Throwable cause) {
            super(reason, cause);
            this.reason = reason;
        }

        /** Why the watch failed (never null, unlike {@link #getMessage}'s contract). */
        String reason() {
            return reason;
        }
    }

    /** Configures a {@link ChangeWatcher}; bad values are rejected when set. */
    public static final class Builder {
        private final WorkspaceLayout layout;
        private @Nullable Listener listener;
        private Clock clock = Clock.systemUTC();
        private EventSink events = EventSink.none();
        private Duration initialBackoff = Duration.ofSeconds(1);
        private Duration maxBackoff = Duration.ofSeconds(30);
        private Duration rederiveEvery = Duration.ofSeconds(30);
        private long watchLimit = -1;
        private Duration pollEvery = Duration.ofSeconds(2);

        private Builder(WorkspaceLayout layout) {
            this.layout = Objects.requireNonNull(layout, "layout");
        }

        public Builder listener(Listener l) {
            this.listener = Objects.requireNonNull(l, "listener");
            return this;
        }

        public Builder clock(Clock c) {
            this.clock = Objects.requireNonNull(c, "clock");
            return this;
        }

        public Builder events(EventSink sink) {
            this.events = Objects.requireNonNull(sink, "events");
            return this;
        }

        /** Retry back-off after a failure: starts at {@code initial}, doubles, capped at {@code max} (default 1 s, 30 s). */
        public Builder backoff(Duration initial, Duration max) {
            if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
                throw new IllegalArgumentException("back-off must be positive and max >= initial, got " + initial + ", " + max);
            }
            this.initialBackoff = initial;
            this.maxBackoff = max;
            return this;
        }

        /** How often the root set is re-derived (default 30 s). */
        public Builder rederiveEvery(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("rederive period must be positive, got " + d);
            }
            this.rederiveEvery = d;
            return this;
        }

        /**
         * Overrides the inotify watch limit read from {@code /proc/sys/fs/inotify/max_user_watches} (tests use it to
         * provoke the limit without changing the system's).
         */
        public Builder watchLimit(long limit) {
            if (limit < 1) {
                throw new IllegalArgumentException("watch limit must be at least 1, got " + limit);
            }
            this.watchLimit = limit;
            return this;
        }

        /**
         * How often the part of {@code tasks/} a partial watch leaves unwatched is stat-walked (default 2 s). Only
         * used when the watch limit is below the directories to watch.
         */
        public Builder pollEvery(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("poll period must be positive, got " + d);
            }
            this.pollEvery = d;
            return this;
        }

        public ChangeWatcher build() {
            return new ChangeWatcher(this);
        }
    }
}
