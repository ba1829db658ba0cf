package dev.kiln.core.serve.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.contract.Contract;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.doctor.Diagnosis;
import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.Archives;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.engine.EngineEvent;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.engine.Probes;
import dev.kiln.core.engine.Projection;
import dev.kiln.core.engine.Seeds;
import dev.kiln.core.engine.Store;
import dev.kiln.core.http.BoundedRead;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.projection.TickRecord;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.projection.WakeReason;
import dev.kiln.core.serve.wire.Wire;
import dev.kiln.core.serve.wire.WireTypes;
import dev.kiln.core.snapshot.ContractFile;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.snapshot.SnapshotFailure;
import dev.kiln.core.snapshot.SnapshotStats;
import dev.kiln.core.snapshot.StatIdentity;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.watch.WatchChanged;
import dev.kiln.core.watch.WatchStatus;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Engine} of a {@code kiln serve} reached over its API ({@code /api/v1}), on this host or another: every
 * capability is a request to the daemon (the projection here, the other facets in {@link RemoteSeeds},
 * {@link RemoteProbes}, {@link RemoteArchives} and {@link RemoteStore}, over this engine's client, request helpers and
 * action tracking), and the daemon's events (ticks, watch changes, warm lines, probe steps,
 * archive events, heals, finished actions) arrive on {@link #events()} as the same core event types a local engine
 * publishes, so a view model cannot tell the two apart.
 *
 * <p>The state: {@link #start} loads the daemon's state document (gzipped) and opens its event stream after it; each
 * {@code delta} then replaces exactly the contracts it names (an unchanged contract stays the very same
 * {@link ContractFile} instance, as locally). The stream resumes with {@code Last-Event-ID} after a broken
 * connection (retrying with backoff, and when nothing arrives for {@link #STALL} — the daemon sends a comment every
 * 2 s — the connection counts as broken), so no event is lost or delivered twice; a daemon that cannot replay what
 * was missed (too much, or it restarted) sends a fresh snapshot, published as
 * {@link EngineEvent.ConnectionChanged} with {@code reset}. A contract on the wire has what the state document
 * carries: no {@code updated_at} and no unknown fields.
 *
 * <p>Faults are {@link EngineException}s: down → {@code UNREACHABLE}, token refused (also mid-session) →
 * {@code UNAUTHORIZED}, certificate not the pinned one → {@code CERTIFICATE_CHANGED}, another API version or an
 * answer that is not the API (also one larger than its route's bound, a gzip bomb, an event frame without end) →
 * {@code INCOMPATIBLE}, a request refused as invalid → {@code REJECTED}. Every request has a deadline for its whole
 * answer, body included, and every answer and event frame a size bound ({@link BoundedRead}).
 *
 * <p>Concurrency: thread-safe. One thread of its own reads the event stream, applies the state and publishes the
 * events (in the daemon's order); {@code state} is replaced whole (volatile) under {@code this}. One scheduler
 * thread watches for a stalled stream and asks the daemon about actions whose end the stream did not bring.
 */
public final class RemoteEngine implements Engine, Projection {
    private static final Logger LOG = LoggerFactory.getLogger(RemoteEngine.class);
    /** No byte for this long on the event stream (the daemon sends a comment every 2 s when idle): it is broken. */
    static final Duration STALL = EventStream.STALL;
    static final Duration READ = Duration.ofSeconds(10);
    /** The state is megabytes (34 MB for 100,000 contracts, gzipped on the wire): its whole answer gets longer. */
    private static final Duration STATE_READ = Duration.ofSeconds(60);
    static final Duration WRITE = Duration.ofSeconds(30);
    static final Duration SLOW = Duration.ofMinutes(3);
    /** A synthetic identity: a contract's stat identity does not travel (it names the daemon host's inode). */
    private static final StatIdentity REMOTE = new StatIdentity(0, 0, 0, null, false);

    private final URI url;
    private final ServeClient client;
    private final Clock clock;
    private final EventBus bus = new EventBus();
    private final WorkspaceLayout layout;
    private final Seeds seeds = new RemoteSeeds(this);
    private final Probes probes;
    private final Archives archives;
    private final Store store = new RemoteStore(this);
    private final Duration retryMin;
    private final Duration retryMax;
    private final ScheduledExecutorService scheduler;
    private final Map<String, RemoteAction<?>> pending = new ConcurrentHashMap<>();
    /** Ends of actions seen before their start's answer (a fast failure): the start picks them up. */
    private final Map<String, JsonNode> endedEarly = java.util.Collections.synchronizedMap(new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, JsonNode> eldest) {
            return size() > 256;
        }
    });

    /** The state as the stream left it: contracts by leaf id in enumeration order, failures, revision. */
    private record State(long revision, Map<String, ContractFile> leaves, List<SnapshotFailure> failures,
            SnapshotStats stats, @Nullable WatchStatus watch, ContractSnapshot snapshot) {
    }

    private volatile @Nullable State state;
    private volatile boolean closed;
    /** The daemon's events, with its replay ring first (see {@link EventStream}); null before {@link #start}. */
    private volatile @Nullable EventStream reader;

    private RemoteEngine(URI url, ServeClient client, Clock clock, JsonNode workspace, Duration retryMin, Duration retryMax) {
        this.url = url;
        this.client = client;
        this.clock = clock;
        this.layout = WorkspaceLayout.of(Path.of(workspace.path("root").asText("/")));
        this.probes = new RemoteProbes(this, Duration.ofMillis(workspace.path("default_startup_timeout_ms").asLong(30_000)));
        this.archives = new RemoteArchives(this, workspace.path("archive_max_bytes").asLong(),
                workspace.path("archive_policy").asText("validated"));
        this.retryMin = retryMin;
        this.retryMax = retryMax;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kiln-remote-watch");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Attaches to the daemon at {@code url} ({@code http://host:port/} or {@code https://…}, as {@code kiln serve}
     * prints it) after checking it speaks this API version. Blocks for at most a few seconds.
     *
     * @param tokenFile a copy of the daemon's {@code observer/api-token}, or null (then only reads of a loopback
     *     daemon work; every mutation is refused as {@code UNAUTHORIZED})
     * @param pin the SHA-256 fingerprint of the daemon's certificate (https), or null
     * @throws EngineException {@code INCOMPATIBLE} for a daemon of another API version or no Kiln at all,
     *     {@code UNREACHABLE}, {@code UNAUTHORIZED} or {@code CERTIFICATE_CHANGED} as they apply
     * @throws IllegalArgumentException for a URL that is no daemon's URL
     */
    public static RemoteEngine connect(URI url, @Nullable Path tokenFile, @Nullable String pin, Clock clock) {
        return connect(url, tokenFile, pin, clock, Duration.ofMillis(250), Duration.ofSeconds(5));
    }

    /** {@link #connect} with the event stream's reconnect backoff (first wait, cap). */
    static RemoteEngine connect(URI url, @Nullable Path tokenFile, @Nullable String pin, Clock clock, Duration retryMin,
            Duration retryMax) {
        ServeClient c = ServeClient.remote(url, tokenFile, pin);
        URI base = Objects.requireNonNull(url);
        ServeClient.Answer v = call(c, base, "GET", Wire.VERSION, null, null, null, READ);
        if (v.status() == 404) {
            throw new EngineException(EngineException.Kind.INCOMPATIBLE, "The daemon at " + base + " speaks an older API"
                    + " than v" + Wire.API_VERSION + " (no /" + Wire.VERSION + "): upgrade kiln on its host");
        }
        check(c, base, "GET /" + Wire.VERSION, v);
        int version;
        try {
            version = Wire.readVersion(v.text());
        } catch (IOException e) {
            throw new EngineException(EngineException.Kind.INCOMPATIBLE, "The server at " + base + " is no kiln serve: "
                    + e.getMessage());
        }
        if (version != Wire.API_VERSION) {
            throw new EngineException(EngineException.Kind.INCOMPATIBLE, "The daemon at " + base + " speaks API v" + version
                    + ", this kiln speaks v" + Wire.API_VERSION + ": use a kiln of the same release on both sides");
        }
        ServeClient.Answer w = call(c, base, "GET", Wire.WORKSPACE, null, null, null, READ);
        if (w.status() == 404) {
            throw new EngineException(EngineException.Kind.INCOMPATIBLE, "The daemon at " + base + " serves API v1 without"
                    + " /" + Wire.WORKSPACE + " (an earlier build): upgrade kiln on its host to attach a console");
        }
        check(c, base, "GET /" + Wire.WORKSPACE, w);
        return new RemoteEngine(base, c, clock, json(base, "GET /" + Wire.WORKSPACE, w), retryMin, retryMax);
    }

    @Override
    public String location() {
        return url.toString();
    }

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

    @Override
    public Clock clock() {
        return clock;
    }

    /** Whether the event stream is connected now. From memory. */
    public boolean connected() {
        EventStream r = reader;
        return r != null && r.connected();
    }

    // ---- projection ----------------------------------------------------------------------------------------------

    /**
     * Loads the daemon's state and opens its event stream ({@code live} or not: the daemon projects either way). The
     * daemon's last tick (a heartbeat too) and its watch are published on {@link #events()} before this returns, so
     * the pages show its whole current state at once rather than at its next tick.
     *
     * @return why this engine does not run the projector itself: it is attached to the daemon
     */
    @Override
    public synchronized Optional<String> start(boolean live) {
        if (reader == null) {
            // The metrics first: a tick they name has sent its frames already, so the stream, resumed after the
            // state, never brings it again; a tick between the two is in the state (and then shown instead).
            JsonNode metrics = metrics();
            ServeClient.Answer a = request("GET", Wire.STATE, null, null, null, STATE_READ);
            JsonNode doc = null;
            String resumeFrom = null;
            if (a.status() == 503) { // before the daemon's first tick: the stream's snapshot brings it
                LOG.debug("{} has no projection yet; the event stream brings the first", url);
            } else {
                check("GET /" + Wire.STATE, a);
                doc = json("GET /" + Wire.STATE, a);
                applySnapshot(doc);
                resumeFrom = a.headers().firstValue(Wire.EVENT_ID).orElse(null);
            }
            if (metrics != null) {
                fullWatch(metrics);
            }
            // The daemon's recent events (its replay ring) come first, then what was loaded is published as the
            // current view, then the live frames: the Events page opens with the daemon's history, and no past
            // watch or tick overrides the current one. The reader thread does it in that order; this waits for it.
            JsonNode loaded = doc;
            java.util.concurrent.CountDownLatch current = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicBoolean published = new java.util.concurrent.atomic.AtomicBoolean();
            Runnable publish = () -> {
                if (loaded != null && published.compareAndSet(false, true)) {
                    publishCurrent(loaded.path("tick"), metrics);
                }
                current.countDown();
            };
            reader = EventStream.of((last, backfill) -> EventStream.open(client, last, backfill, tokenAdvice()))
                    .backoff(retryMin, retryMax).resumeFrom(resumeFrom).backfill().name("kiln-remote-events")
                    .start(new Listener(publish));
            try {
                if (!current.await(READ.toMillis(), TimeUnit.MILLISECONDS)) {
                    publish.run(); // a daemon slow to send its ring: the current view does not wait for it
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                publish.run();
            }
            long period = Math.max(250, STALL.toMillis() / 4);
            scheduler.scheduleWithFixedDelay(this::watch, period, period, TimeUnit.MILLISECONDS);
        }
        return Optional.of("attached to the daemon at " + url + ": it projects, this console shows its state");
    }

    @Override
    public ContractSnapshot snapshot() {
        State s = state;
        return s != null ? s.snapshot() : ContractSnapshot.of(layout.tasksDir(), List.of(), List.of(), SnapshotStats.empty());
    }

    /** The daemon's frames on a connection of their own (see {@link EventStream#frames}), for a recording. */
    @Override
    public AutoCloseable frames(java.util.function.BiConsumer<String, String> sink) {
        return EventStream.frames(client, sink, why -> LOG.info("Recording the events of {}: {}", url, why));
    }

    /** The revision of the state held now; 0 before the first. From memory. */
    public long revision() {
        State s = state;
        return s == null ? 0 : s.revision();
    }

    /** Runs a tick on the daemon and waits until its revision is the state held here (or 10 s). */
    @Override
    public void projectNow() {
        start(false); // the tick is seen arriving on the event stream
        ServeClient.Answer a = request("POST", Wire.PROJECT, null, null, null, SLOW);
        check("POST /" + Wire.PROJECT, a);
        TickRecord t;
        try {
            t = Wire.readTick(a.text());
        } catch (IOException e) {
            throw incompatible("POST /" + Wire.PROJECT, e);
        }
        long deadline = System.nanoTime() + READ.toNanos();
        synchronized (this) {
            while (reader != null && revision() < t.revision() && System.nanoTime() < deadline && !closed) {
                try {
                    wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public Optional<WatchStatus> watchStatus() {
        State s = state;
        return s == null ? Optional.empty() : Optional.ofNullable(s.watch());
    }

    @Override
    public Optional<String> apiUrl() {
        return Optional.of(url.toString());
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

    @Override
    public Diagnosis diagnose() {
        return value("GET", Wire.DOCTOR, null, null, null, Duration.ofSeconds(60), Diagnosis.class);
    }

    // ---- heal ---------------------------------------------------------------------

    @Override
    public HealReport heal(boolean apply, String idempotencyKey) {
        String what = "POST /" + Wire.HEAL;
        ServeClient.Answer a = request("POST", Wire.HEAL, apply ? null : Wire.DRY_RUN + "=true", null, idempotencyKey, SLOW);
        check(what, a);
        try {
            return Wire.readHeal(json(what, a));
        } catch (IOException e) {
            throw incompatible(what, e);
        }
    }

    /** A saved run or sweep served as stored, read by its record's one reader; a body it cannot read is {@code INCOMPATIBLE}. */
    <T> T read(String what, ServeClient.Answer a, java.util.function.BiFunction<JsonNode, String, T> reader) {
        try {
            return reader.apply(json(what, a), what + " of " + location());
        } catch (IllegalArgumentException e) {
            throw new EngineException(EngineException.Kind.INCOMPATIBLE, String.valueOf(e.getMessage()), e);
        }
    }

    // ---- long actions --------------------------------------------------------------------------------------------

    <T> Action<T> startAction(String route, JsonNode body, String idempotencyKey, Class<T> type) {
        // An action reports its progress and its end on the event stream: open it if nothing has yet, as the
        // in-process engine's actions publish on its bus whether or not its projection was started.
        start(false);
        String what = "POST /" + route;
        ServeClient.Answer a = request("POST", route, null, body, idempotencyKey, WRITE);
        check(what, a);
        String id = json(what, a).path("id").asText("");
        if (id.isEmpty()) {
            throw new EngineException(EngineException.Kind.INCOMPATIBLE, "The daemon at " + url + " answered " + what
                    + " without an action id: " + abbreviate(a.text()));
        }
        RemoteAction<T> action = new RemoteAction<>(id, type);
        @SuppressWarnings("unchecked")
        RemoteAction<T> earlier = (RemoteAction<T>) pending.putIfAbsent(id, action);
        if (earlier != null) {
            return earlier; // the same key again: the same action
        }
        JsonNode ended = endedEarly.remove(id);
        if (ended != null) {
            action.end(ended);
        } else {
            scheduler.execute(() -> poll(action)); // it may have ended before the stream was there to tell
        }
        return action;
    }

    /** Asks the daemon about an action; ends it when the daemon says it ended. Never throws. */
    private void poll(RemoteAction<?> a) {
        if (a.result.isDone() || closed) {
            return;
        }
        String route = Wire.withId(Wire.ACTION, a.id);
        try {
            ServeClient.Answer r = request("GET", route, null, null, null, READ);
            if (r.status() == 404) {
                a.fail(new EngineException(EngineException.Kind.FAILED, "The daemon at " + url + " no longer knows action "
                        + a.id + " (it restarted?); its outcome is lost: look at its host's journal or run it again"));
                return;
            }
            check("GET /" + route, r);
            JsonNode n = json("GET /" + route, r);
            if (!n.path("state").asText().equals("running")) {
                a.end(n);
            }
        } catch (EngineException e) {
            LOG.debug("Asking {} about {}: {}", url, a.id, e.getMessage()); // the stream or the next poll tells
        }
    }

    /** An action on the daemon: its end comes as an {@code action_finished} event (or an answer to a poll). */
    private final class RemoteAction<T> implements Action<T> {
        private final String id;
        private final Class<T> type;
        final CompletableFuture<T> result = new CompletableFuture<>();

        RemoteAction(String id, Class<T> type) {
            this.id = id;
            this.type = type;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public CompletableFuture<T> result() {
            return result;
        }

        @Override
        public void cancel() {
            if (result.isDone()) {
                return;
            }
            String route = Wire.withId(Wire.ACTION_CANCEL, id);
            ServeClient.Answer a = request("POST", route, null, null, null, WRITE);
            if (a.status() == 404) {
                poll(this);
                return;
            }
            check("POST /" + route, a);
        }

        /** Ends it from the daemon's {@link Wire#action} document. */
        void end(JsonNode action) {
            pending.remove(id);
            String st = action.path("state").asText();
            JsonNode error = action.path("error");
            if (action.hasNonNull("result")) {
                try {
                    result.complete(Wire.read(action.path("result"), type));
                } catch (IOException e) {
                    result.completeExceptionally(incompatible("the end of action " + id, e));
                }
            } else if (st.equals(EngineEvent.Status.CANCELLED.jsonName())) {
                result.completeExceptionally(new CancellationException(error.path("message").asText(id + " cancelled")));
            } else {
                EngineException.Kind kind;
                try {
                    kind = WireTypes.constant(EngineException.Kind.class, error.path("kind").asText("failed"));
                } catch (IllegalArgumentException e) {
                    kind = EngineException.Kind.FAILED;
                }
                result.completeExceptionally(new EngineException(kind, "On the daemon at " + url + ": "
                        + error.path("message").asText(id + " " + st)));
            }
        }

        void fail(EngineException e) {
            pending.remove(id);
            result.completeExceptionally(e);
        }
    }

    // ---- the event stream ----------------------------------------------------------------------------------------

    /**
     * What the stream brings: history frames (the daemon's ring, from before the attach) are published as events and
     * change nothing held (the state loaded is newer than they are); live ones are applied and published. A frame is
     * bounded like the state it may carry (a snapshot is the whole document): a daemon that sends no newline, or a
     * frame without end, breaks the stream (and it reconnects) instead of filling the heap.
     */
    private final class Listener implements EventStream.Listener {
        private final Runnable caughtUp;
        private String why = "";

        Listener(Runnable caughtUp) {
            this.caughtUp = caughtUp;
        }

        @Override
        public void frame(EventStream.Frame f) {
            if (f.history()) {
                history(f.event(), f.data());
            } else {
                handle(f.event(), f.data());
            }
        }

        @Override
        public void caughtUp() {
            caughtUp.run();
        }

        @Override
        public void connected(boolean first) {
            why = "";
            bus.publish(new EngineEvent.ConnectionChanged(clock.instant(), url.toString(), true, false,
                    "connected to the daemon at " + url));
        }

        @Override
        public void broke(String reason, Duration retryIn) {
            if (closed) {
                return;
            }
            why = reason;
            bus.publish(new EngineEvent.ConnectionChanged(clock.instant(), url.toString(), false, false,
                    "lost the daemon at " + url + " (" + why + "); retrying in " + retryIn.toMillis() + " ms"));
        }
    }

    /** A frame of the daemon's ring from before this engine attached: its event, published; nothing applied. */
    private void history(String event, byte[] data) {
        Class<? extends KilnEvent> type = Wire.eventType(event);
        if (type == null || FrameDecoder.isState(event)) {
            return;
        }
        try {
            bus.publish(Wire.read(Wire.JSON.readTree(data), type));
        } catch (IOException | RuntimeException ex) {
            LOG.debug("A past event '{}' of {} could not be read; skipped: {}", BoundedRead.excerpt(event), url,
                    BoundedRead.excerpt(String.valueOf(ex.getMessage())));
        }
    }

    private void handle(String event, byte[] data) {
        JsonNode n;
        try {
            n = Wire.JSON.readTree(data);
        } catch (IOException e) {
            LOG.warn("An event '{}' of {} is not JSON; skipped: {}", BoundedRead.excerpt(event), url,
                    BoundedRead.excerpt(String.valueOf(e.getMessage())));
            return;
        }
        if (n == null) {
            LOG.warn("An event '{}' of {} has no data; skipped", BoundedRead.excerpt(event), url);
            return;
        }
        if (event.equals(Wire.SNAPSHOT)) {
            boolean reset = state != null;
            applySnapshot(n);
            if (reset) { // not the resume we asked for: what was missed is not coming; reload
                bus.publish(new EngineEvent.ConnectionChanged(clock.instant(), url.toString(), true, true,
                        "resynchronized with the daemon at " + url + ": it sent its whole state (the events in between"
                                + " are not replayed)"));
                pending.values().forEach(a -> scheduler.execute(() -> poll(a)));
            }
            return;
        }
        if (event.equals(Wire.DELTA)) {
            applyDelta(n);
            return;
        }
        Class<? extends KilnEvent> type = Wire.eventType(event);
        if (type == null) {
            LOG.debug("Ignoring event '{}' of {} (a newer daemon's)", BoundedRead.excerpt(event), url);
            return;
        }
        KilnEvent e;
        try {
            e = Wire.read(n, type);
        } catch (IOException ex) {
            LOG.warn("An event '{}' of {} could not be read; skipped: {}", event, url,
                    BoundedRead.excerpt(String.valueOf(ex.getMessage())));
            return;
        }
        if (e instanceof WatchChanged w) {
            synchronized (this) {
                State s = state;
                if (s != null) {
                    state = new State(s.revision(), s.leaves(), s.failures(), s.stats(), w.status(), s.snapshot());
                }
            }
        } else if (e instanceof TickFinished t) {
            synchronized (this) {
                State s = state;
                if (s != null && s.revision() <= t.result().revision()) {
                    state = new State(s.revision(), s.leaves(), s.failures(), t.result().stats(), s.watch(),
                            ContractSnapshot.of(layout.tasksDir(), s.snapshot().contracts(), s.failures(), t.result().stats()));
                }
            }
        }
        bus.publish(e);
        if (e instanceof EngineEvent.ActionFinished f) {
            JsonNode action = n.path("action");
            if (!action.isObject()) {
                action = Wire.JSON.createObjectNode().put("state", f.status().jsonName()).set("error",
                        Wire.JSON.createObjectNode().put("kind", "FAILED").put("message", f.message()));
            }
            RemoteAction<?> a = pending.get(f.id());
            if (a != null) {
                a.end(action);
            } else {
                endedEarly.put(f.id(), action);
            }
        }
    }

    private synchronized void applySnapshot(JsonNode doc) {
        Map<String, ContractFile> leaves = new LinkedHashMap<>();
        State old = state;
        for (JsonNode leaf : doc.path("leaves")) {
            ContractFile f = contract(leaf);
            ContractFile same = old == null ? null : old.leaves().get(f.leafId());
            leaves.put(f.leafId(), same != null && same.equals(f) ? same : f);
        }
        List<SnapshotFailure> failures = failures(doc.path("failures"));
        SnapshotStats stats = stats(doc.path("tick").path("counters"));
        WatchStatus watch = watch(doc.path("meta").path("watch"), old == null ? null : old.watch());
        set(doc.path("revision").asLong(), leaves, failures, stats, watch, true);
    }

    private synchronized void applyDelta(JsonNode d) {
        State s = state;
        long revision = d.path("revision").asLong();
        if (s == null || revision <= s.revision()) {
            return; // already in the state loaded (the stream resumed from just before it)
        }
        Map<String, ContractFile> leaves = new LinkedHashMap<>(s.leaves());
        d.path("removed").forEach(id -> leaves.remove(id.asText()));
        boolean added = d.path("added").size() > 0;
        d.path("added").fields().forEachRemaining(e -> leaves.put(e.getKey(), contract(e.getValue())));
        d.path("changed").fields().forEachRemaining(e -> leaves.put(e.getKey(), contract(e.getValue())));
        List<SnapshotFailure> failures = d.has("failures") ? failures(d.path("failures")) : s.failures();
        WatchStatus watch = d.path("meta").has("watch") ? watch(d.path("meta").path("watch"), s.watch()) : s.watch();
        set(revision, leaves, failures, s.stats(), watch, added);
    }

    private void set(long revision, Map<String, ContractFile> leaves, List<SnapshotFailure> failures, SnapshotStats stats,
            @Nullable WatchStatus watch, boolean reorder) {
        List<ContractFile> ordered = new ArrayList<>(leaves.values());
        if (reorder) { // the enumeration's order: depth first, names sorted, as the daemon's snapshot has it
            ordered.sort(ENUMERATION);
            Map<String, ContractFile> byOrder = new LinkedHashMap<>();
            ordered.forEach(f -> byOrder.put(f.leafId(), f));
            leaves = byOrder;
        }
        state = new State(revision, leaves, failures, stats, watch,
                ContractSnapshot.of(layout.tasksDir(), ordered, failures, stats));
        notifyAll();
    }

    /** Depth first with the names of a directory sorted: segment by segment. */
    static final Comparator<ContractFile> ENUMERATION = (a, b) -> {
        String[] x = a.file().split("/");
        String[] y = b.file().split("/");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            int c = x[i].compareTo(y[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.length, y.length);
    };

    static ContractFile contract(JsonNode leaf) {
        JsonNode e = leaf.path("engine");
        Contract.Engine engine = e.isObject() ? new Contract.Engine(e.path("pid").asLong(), text(e, "command"),
                instant(e, "started_at"), Map.of()) : null;
        List<String> enclosure = new ArrayList<>();
        leaf.path("enclosure").forEach(p -> enclosure.add(p.asText()));
        Contract c = new Contract(text(leaf, "declared_leaf_id"), text(leaf, "title"), text(leaf, "status"), enclosure, engine,
                instant(leaf, "deadline"), null, Map.of());
        return new ContractFile(leaf.path("file").asText(), leaf.path("leaf_id").asText(), REMOTE, c);
    }

    private static @Nullable String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static @Nullable Instant instant(JsonNode n, String field) {
        String t = text(n, field);
        try {
            return t == null ? null : Instant.parse(t);
        } catch (RuntimeException e) {
            return null;
        }
    }

    static List<SnapshotFailure> failures(JsonNode arr) {
        List<SnapshotFailure> out = new ArrayList<>();
        for (JsonNode f : arr) {
            SnapshotFailure.Kind kind;
            try {
                kind = SnapshotFailure.Kind.valueOf(f.path("kind").asText().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                kind = SnapshotFailure.Kind.values()[0];
            }
            out.add(new SnapshotFailure(f.path("path").asText(), kind, f.path("reason").asText()));
        }
        return List.copyOf(out);
    }

    static SnapshotStats stats(JsonNode c) {
        return new SnapshotStats(c.path("enumerated").asInt(), c.path("parsed").asInt(), c.path("reused").asInt(),
                c.path("failed").asInt(), c.path("pruned").asInt(), Math.round(c.path("build_ms").asDouble() * 1e6));
    }

    /** {@code meta.watch} as a status (what the state carries: mode, reason, since, partial note). */
    static @Nullable WatchStatus watch(JsonNode w, @Nullable WatchStatus known) {
        if (!w.isObject()) {
            return known;
        }
        boolean live = w.path("mode").asText().equals("live");
        Instant since = instant(w, "since");
        if (known != null && known.live() == live && known.since().equals(since)) {
            return known; // the event's status is the fuller one
        }
        return new WatchStatus(live, w.path("reason").asText(""), since == null ? Instant.EPOCH : since, List.of(), 0, -1,
                w.path("partial").asBoolean() ? 1 : 0, w.path("note").asText(""));
    }

    /** The daemon's metrics (its last tick, its watch in full), or null when it gives none. Best effort. */
    private @Nullable JsonNode metrics() {
        try {
            ServeClient.Answer a = request("GET", Wire.METRICS, null, null, null, READ);
            return a.status() == 200 ? json("GET /" + Wire.METRICS, a) : null;
        } catch (EngineException e) {
            LOG.debug("No metrics from {}: {}", url, e.getMessage());
            return null;
        }
    }

    /**
     * The watch as the daemon's metrics describe it (directories watched, the inotify limit, the polled part): the
     * state's {@code meta.watch} carries only what changes with the mode. The state's is kept otherwise.
     */
    private void fullWatch(JsonNode m) {
        JsonNode w = m.path("watch");
        Instant since = instant(w, "since");
        if (!w.isObject() || since == null) {
            return;
        }
        List<Path> roots = new ArrayList<>();
        w.path("roots").forEach(r -> roots.add(layout.root().resolve(r.asText())));
        WatchStatus full = new WatchStatus(w.path("mode").asText().equals("live"), w.path("reason").asText(""), since,
                roots, w.path("watched_directories").asInt(), w.path("inotify_limit").asLong(-1),
                w.path("polled_directories").asInt(), w.path("note").asText(""));
        synchronized (this) {
            State s = state;
            WatchStatus known = s == null ? null : s.watch();
            // the metrics were read before the state: a watch that changed in between is the state's
            if (s != null && (known == null || known.live() == full.live() && known.since().equals(full.since()))) {
                state = new State(s.revision(), s.leaves(), s.failures(), s.stats(), full, s.snapshot());
            }
        }
    }

    /**
     * Publishes what was just loaded as this engine's current view: the watch and the daemon's last tick. The pages
     * draw from events, and a quiet daemon sends none until its next tick (a heartbeat, 15 s by default): without
     * these they showed an empty workspace meanwhile. Nothing before the daemon's first projection: its snapshot and
     * first tick come on the stream.
     */
    private void publishCurrent(JsonNode stateTick, @Nullable JsonNode metrics) {
        State s = state;
        if (s == null) {
            return;
        }
        TickResult last = lastTick(s, stateTick, metrics);
        WatchStatus w = s.watch();
        if (w != null) {
            bus.publish(new WatchChanged(w.since(), w));
        }
        bus.publish(new TickFinished(last.at(), last));
    }

    /**
     * The daemon's last tick: the one its metrics name (a heartbeat too, so the age is right) when it is of the
     * revision loaded; else (it failed, or a tick made a newer revision meanwhile) the tick the state document
     * carries, the one that made its revision.
     */
    private static TickResult lastTick(State s, JsonNode stateTick, @Nullable JsonNode metrics) {
        JsonNode t = metrics == null ? null : metrics.get("last_tick");
        if (t != null && t.isObject()) {
            try {
                TickRecord r = Wire.readTick(t.toString());
                if (r.revision() == s.revision()) {
                    SnapshotStats stats = new SnapshotStats((int) r.counter("enumerated"), (int) r.counter("parsed"),
                            (int) r.counter("reused"), (int) r.counter("failed"), (int) r.counter("pruned"),
                            r.counter("build_us") * 1_000);
                    return new TickResult(r.reason(), r.at(), r.revision(), r.changed(), s.leaves().size(),
                            s.failures().size(), stats, r.durationNanos(), List.of(), null);
                }
            } catch (IOException e) {
                LOG.debug("The last tick in the metrics is not one ({}); the state's is shown", e.getMessage());
            }
        }
        WakeReason reason;
        try {
            reason = WakeReason.valueOf(stateTick.path("reason").asText().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            reason = WakeReason.STARTUP;
        }
        Instant at = instant(stateTick, "at");
        // The state's own tick has no duration: its snapshot's build time is the nearest it says.
        return new TickResult(reason, at == null ? Instant.EPOCH : at, s.revision(), true, s.leaves().size(),
                s.failures().size(), s.stats(), s.stats().buildNanos(), List.of(), null);
    }

    /** The scheduler's sweep: unfinished actions are asked about while no stream tells (the stream watches its own stall). */
    private void watch() {
        try {
            if (!connected()) {
                pending.values().forEach(this::poll);
            }
        } catch (RuntimeException e) {
            LOG.error("The watch of {} failed; it runs again shortly", url, e);
        }
    }

    /** Ends the event stream now (it reconnects): tests of resumption. */
    void breakStream() {
        EventStream r = reader;
        if (r != null) {
            r.breakStream();
        }
    }

    @Override
    public void close() {
        closed = true;
        synchronized (this) {
            notifyAll();
        }
        scheduler.shutdownNow();
        EventStream r = reader;
        if (r != null) {
            r.close();
        }
        for (RemoteAction<?> a : new ArrayList<>(pending.values())) {
            a.fail(new EngineException(EngineException.Kind.UNREACHABLE, "Detached from the daemon at " + url
                    + " before action " + a.id + " ended; it may still run there"));
        }
    }

    // ---- requests ------------------------------------------------------------------------------------------------

    <T> T value(String method, String route, @Nullable String query, @Nullable JsonNode body,
            @Nullable String key, Duration timeout, Class<T> type) {
        String what = method + " /" + route;
        ServeClient.Answer a = request(method, route, query, body, key, timeout);
        check(what, a);
        try {
            return Wire.read(json(what, a), type);
        } catch (IOException e) {
            throw incompatible(what, e);
        }
    }

    <T> List<T> list(String route, @Nullable String query, Class<T> type) {
        String what = "GET /" + route;
        ServeClient.Answer a = request("GET", route, query, null, null, READ);
        check(what, a);
        try {
            return Wire.readList(json(what, a), type);
        } catch (IOException e) {
            throw incompatible(what, e);
        }
    }

    ServeClient.Answer request(String method, String route, @Nullable String query, @Nullable JsonNode body,
            @Nullable String key, Duration timeout) {
        byte[] b;
        try {
            b = body == null ? null : Wire.JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
        return call(client, url, method, route, query, b, key, timeout);
    }

    private static ServeClient.Answer call(ServeClient client, URI url, String method, String route, @Nullable String query,
            byte @Nullable [] body, @Nullable String key, Duration timeout) {
        try {
            return client.exchange(method, route, query, body, key, timeout);
        } catch (IOException e) {
            if (ServeClient.pinMismatch(e)) {
                return raise(EngineException.Kind.CERTIFICATE_CHANGED, e.getMessage() + ". If the daemon's keystore was"
                        + " replaced on purpose, pin the fingerprint kiln serve printed at its start", e);
            }
            if (e.getMessage() != null && e.getMessage().contains("needs its token")) {
                return raise(EngineException.Kind.UNAUTHORIZED, e.getMessage(), e);
            }
            if (e.getMessage() != null && e.getMessage().contains("cannot read the API token")) {
                return raise(EngineException.Kind.UNAUTHORIZED, e.getMessage(), e);
            }
            BoundedRead.Exceeded x = BoundedRead.Exceeded.in(e);
            if (x != null && x.bound() != BoundedRead.Exceeded.Bound.DEADLINE) { // no kiln serve answers like that
                return raise(EngineException.Kind.INCOMPATIBLE, String.valueOf(e.getMessage()), e);
            }
            return raise(EngineException.Kind.UNREACHABLE, e.getMessage() + " (" + method + " " + url + route + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return raise(EngineException.Kind.UNREACHABLE, "Interrupted while asking the daemon at " + url + " for "
                    + method + " /" + route, e);
        }
    }

    private static ServeClient.Answer raise(EngineException.Kind kind, String message, Throwable cause) {
        throw new EngineException(kind, message, cause);
    }

    void check(String what, ServeClient.Answer a) {
        check(client, url, what, a);
    }

    /** Maps an answer that is not a success to the fault it is. */
    private static void check(ServeClient client, URI url, String what, ServeClient.Answer a) {
        int s = a.status();
        if (s >= 200 && s < 300) {
            return;
        }
        String said = Wire.errorText(a.text());
        if (s == 401) {
            Path f = client.tokenFile();
            throw new EngineException(EngineException.Kind.UNAUTHORIZED, "The daemon at " + url + " refused " + what
                    + " (401): " + said + (f == null ? "; attach with a token file (a copy of its observer/api-token)"
                    : "; " + f + " does not hold its current token: copy its observer/api-token again (it is new at every start)"));
        }
        if (s == 400 || s == 413 || s == 422) { // malformed, too large, an idempotency key of another request
            throw new EngineException(EngineException.Kind.REJECTED, "The daemon at " + url + " refused " + what + ": " + said);
        }
        if (s == 404 && said.contains("(not_found)")) {
            throw new EngineException(EngineException.Kind.INCOMPATIBLE, "The daemon at " + url + " has no " + what
                    + " (an older build?): upgrade kiln on its host");
        }
        if (s == 404) {
            throw new EngineException(EngineException.Kind.REJECTED, "The daemon at " + url + " has nothing for " + what
                    + ": " + said);
        }
        if (s == 403) {
            throw new EngineException(EngineException.Kind.REJECTED, "The daemon at " + url + " refused " + what
                    + " (403): " + said);
        }
        if (s == 503) {
            throw new EngineException(EngineException.Kind.UNREACHABLE, "The daemon at " + url + " cannot answer " + what
                    + " yet (503): " + said + "; retry shortly");
        }
        throw new EngineException(EngineException.Kind.FAILED, "The daemon at " + url + " failed " + what + " (" + s + "): "
                + said);
    }

    private JsonNode json(String what, ServeClient.Answer a) {
        return json(url, what, a);
    }

    private static JsonNode json(URI url, String what, ServeClient.Answer a) {
        try {
            JsonNode n = Wire.JSON.readTree(a.body());
            if (n == null) {
                throw new IOException("an empty answer");
            }
            return n;
        } catch (IOException e) {
            throw new EngineException(EngineException.Kind.INCOMPATIBLE, "The daemon at " + url + " answered " + what
                    + " with something that is not JSON (" + BoundedRead.excerpt(String.valueOf(e.getMessage())) + "): "
                    + BoundedRead.excerpt(a.body()) + "; is that URL a kiln serve of this release?", e);
        }
    }

    private EngineException incompatible(String what, IOException e) {
        return new EngineException(EngineException.Kind.INCOMPATIBLE, "The daemon at " + url + " answered " + what
                + " in a shape this kiln does not read (" + e.getMessage() + "); use a kiln of the same release on both sides", e);
    }

    private String tokenAdvice() {
        Path f = client.tokenFile();
        return f == null ? "attach with a token file" : "copy its observer/api-token to " + f + " again";
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String abbreviate(String s) {
        return BoundedRead.excerpt(s);
    }

    @Override
    public String toString() {
        return "RemoteEngine[" + url + (connected() ? ", connected" : "") + ", revision " + revision() + "]";
    }

    @Override
    public dev.kiln.core.health.HealthEvidence healthEvidence() {
        try {
            return client.health().evidence();
        } catch (IOException e) {
            throw new EngineException(EngineException.Kind.UNREACHABLE, String.valueOf(e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EngineException(EngineException.Kind.UNREACHABLE, "interrupted while asking " + url + " its health", e);
        }
    }
}
