package dev.kiln.core.archive;

import dev.kiln.core.archive.ArchiveEvent.EvictionCause;
import dev.kiln.core.archive.ArchiveEvent.MissCause;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.telemetry.KilnEvent;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.LongAdder;
import dev.kiln.core.telemetry.Ticker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * Memoizes {@link SourceArchive}s by (real root path, members, excludes), bounded by total bytes.
 *
 * <p>Under {@link Policy#VALIDATED} (the default) every hit first re-checks the stat identity of each file in
 * the member set and the child names of each directory (no content is read), so an edit, a new file or a
 * deleted one rebuilds instead of serving stale bytes. Under {@link Policy#SNAPSHOT} a hit is trusted as is,
 * for callers that treat their sources as a startup snapshot.
 *
 * <p>Thread-safe. Concurrent requests for one key build once; the others wait and get the same instance. A
 * failed build is not cached: its waiters get its exception, and the next request tries again. Activity is
 * published as {@link ArchiveEvent}s to the injected sink, on the requesting thread.
 *
 * <p>Why not Caffeine: its weight bound is enforced by asynchronous maintenance and its admission policy may
 * reject a just-built archive, while this cache promises that the bytes held never exceed the bound after a
 * request returns, and replacing a stale entry under single flight needs a compare-and-swap of an in-flight
 * build, which would otherwise mean holding a map lock through a build of hundreds of milliseconds.
 */
public final class ArchiveCache {
    /*
     * Concurrency: `slots` maps a key to the future of its archive; whoever installs a future (putIfAbsent for an
     * absent key, replace for a stale one) builds and completes it; everyone else joins. Completed, held archives
     * are also in `lru` (access order), which with `bytesHeld` is guarded by `lock`; eviction removes a slot only
     * if it still holds the evicted archive. Events are published outside the lock.
     */
    private static final Logger LOG = LoggerFactory.getLogger(ArchiveCache.class);

    /** Default bound on the bytes of archives held: 256 MiB. */
    public static final long DEFAULT_MAXIMUM_BYTES = 256L * 1024 * 1024;

    /** Whether a hit is re-validated against the file system. */
    public enum Policy {
        /** Re-check the stat identity of every member file on each hit; rebuild on any change. */
        VALIDATED,
        /** Trust a cached archive until it is evicted: sources are a startup snapshot. */
        SNAPSHOT
    }

    private static final int MAX_ALIASES = 4096;

    private final long maximumBytes;
    private final Policy policy;
    private final EventSink sink;
    /** False when nobody listens: a hit then skips building its event (and the stats it carries). */
    private final boolean publishing;
    private final Clock clock;
    private final Ticker ticker;

    private final ConcurrentHashMap<ArchiveKey, CompletableFuture<SourceArchive>> slots = new ConcurrentHashMap<>();
    /** Request spelling → key; only under SNAPSHOT, where a hit must not pay for resolving the real path. */
    private final ConcurrentHashMap<Request, ArchiveKey> aliases = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    // @GuardedBy("lock")
    private final LinkedHashMap<ArchiveKey, SourceArchive> lru = new LinkedHashMap<>(16, 0.75f, true);
    private volatile long bytesHeld;
    private volatile long entriesHeld;

    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder builds = new LongAdder();
    private final LongAdder changesFound = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final LongAdder totalBuildNanos = new LongAdder();
    private volatile long lastBuildNanos;
    /** Per held archive: hits and times, for {@link #entries()}; weak, so an evicted archive's usage goes with it. */
    private final Map<SourceArchive, Usage> usage = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private static final class Usage {
        final Instant builtAt;
        long hits;
        @org.jspecify.annotations.Nullable Instant lastValidated;

        Usage(Instant builtAt) {
            this.builtAt = builtAt;
        }
    }

    private record Request(Path root, List<String> members, List<String> excludes) {
    }

    private ArchiveCache(Builder b) {
        this.maximumBytes = b.maximumBytes;
        this.policy = b.policy;
        this.sink = b.sink;
        this.publishing = b.sinkSet;
        this.clock = b.clock;
        this.ticker = b.ticker;
    }

    /** A builder with the defaults: {@link Policy#VALIDATED}, {@link #DEFAULT_MAXIMUM_BYTES}, no events. */
    public static Builder builder() {
        return new Builder();
    }

    /** The archive of all of {@code root}, with the default excludes. */
    public SourceArchive get(Path root) {
        return get(root, List.of(), SourceArchive.DEFAULT_EXCLUDES);
    }

    /** The archive of {@code members} of {@code root} (all when empty), with the default excludes. */
    public SourceArchive get(Path root, List<String> members) {
        return get(root, members, SourceArchive.DEFAULT_EXCLUDES);
    }

    /**
     * The archive of {@code members} of {@code root} (all when empty) without {@code excludes}: from the cache
     * when it holds a valid one, else built (once, however many threads ask).
     *
     * @throws ArchiveException as {@link SourceArchive#build(Path, List, List)} does
     */
    public SourceArchive get(Path root, List<String> members, List<String> excludes) {
        return get(root, members, excludes, Long.MAX_VALUE);
    }

    /**
     * As {@link #get(Path, List, List)}, but a build whose member files add up to more than
     * {@code maximumSourceBytes} is refused before any file is read (a held archive is served as it is).
     *
     * @throws ArchiveTooLargeException above the bound
     */
    public SourceArchive get(Path root, List<String> members, List<String> excludes, long maximumSourceBytes) {
        ArchiveKey key = resolve(root, members, excludes);
        while (true) {
            CompletableFuture<SourceArchive> f = slots.get(key);
            if (f == null) {
                CompletableFuture<SourceArchive> mine = new CompletableFuture<>();
                if (slots.putIfAbsent(key, mine) == null) {
                    return build(key, mine, MissCause.ABSENT, null, maximumSourceBytes);
                }
                continue;
            }
            if (!f.isDone()) {
                misses.increment();
                publish(new ArchiveEvent.Miss(clock.instant(), key.root(), MissCause.JOINED, null, stats()));
                return await(f);
            }
            SourceArchive a = f.getNow(null);
            if (a == null || f.isCompletedExceptionally()) {
                slots.remove(key, f);
                continue;
            }
            if (policy == Policy.SNAPSHOT) {
                touch(key);
                hit(a, false, 0);
                return a;
            }
            long t0 = ticker.read();
            String change = a.firstChange();
            long dt = ticker.read() - t0;
            if (change == null) {
                touch(key);
                hit(a, true, dt);
                return a;
            }
            CompletableFuture<SourceArchive> mine = new CompletableFuture<>();
            if (slots.replace(key, f, mine)) {
                changesFound.increment();
                release(key, a);
                return build(key, mine, MissCause.CHANGED, change, maximumSourceBytes);
            }
            // Another thread replaced it first: loop and join its rebuild.
        }
    }

    /** The counters now. */
    public ArchiveCacheStats stats() {
        return new ArchiveCacheStats(hits.sum(), misses.sum(), builds.sum(), changesFound.sum(), evictions.sum(),
                failures.sum(), bytesHeld, entriesHeld, totalBuildNanos.sum(), lastBuildNanos);
    }

    /** The archives held now, most recently used first. */
    public List<ArchiveEntry> entries() {
        List<SourceArchive> held;
        synchronized (lock) {
            held = new ArrayList<>(lru.values());
        }
        java.util.Collections.reverse(held); // access order is eldest first
        List<ArchiveEntry> out = new ArrayList<>(held.size());
        synchronized (usage) {
            for (SourceArchive a : held) {
                Usage u = usage.get(a);
                out.add(new ArchiveEntry(a.root(), a.members().size(), a.files(), a.size(), a.sha256(), u == null ? 0 : u.hits,
                        u == null ? Instant.EPOCH : u.builtAt, java.util.Optional.ofNullable(u == null ? null : u.lastValidated)));
            }
        }
        return out;
    }

    /** The policy hits are served under. */
    public Policy policy() {
        return policy;
    }

    /** The bound on bytes held. */
    public long maximumBytes() {
        return maximumBytes;
    }

    /** Drops every held archive (builds in flight finish and are held). */
    public void invalidateAll() {
        List<SourceArchive> dropped = new ArrayList<>();
        synchronized (lock) {
            long held = bytesHeld;
            for (Map.Entry<ArchiveKey, SourceArchive> e : lru.entrySet()) {
                removeSlotIfHolds(e.getKey(), e.getValue());
                dropped.add(e.getValue());
                held -= e.getValue().size();
            }
            lru.clear();
            bytesHeld = held; // subtracted, not zeroed: any drift in the accounting would show here
            entriesHeld = 0;
        }
        aliases.clear();
        for (SourceArchive a : dropped) {
            publish(new ArchiveEvent.Evicted(clock.instant(), a.root(), a.sha256(), a.size(), EvictionCause.EXPLICIT, stats()));
        }
    }

    private ArchiveKey resolve(Path root, List<String> members, List<String> excludes) {
        if (policy == Policy.VALIDATED) {
            return ArchiveKey.of(root, members, excludes);
        }
        Request r = new Request(root, List.copyOf(members), List.copyOf(excludes));
        ArchiveKey k = aliases.get(r);
        if (k == null) {
            k = ArchiveKey.of(root, members, excludes);
            if (aliases.size() >= MAX_ALIASES) {
                aliases.clear();
            }
            aliases.put(r, k);
        }
        return k;
    }

    private SourceArchive build(ArchiveKey key, CompletableFuture<SourceArchive> mine, MissCause cause, @Nullable String change,
            long maximumSourceBytes) {
        misses.increment();
        publish(new ArchiveEvent.Miss(clock.instant(), key.root(), cause, change, stats()));
        SourceArchive a;
        try {
            a = SourceArchive.build(key, maximumSourceBytes);
        } catch (RuntimeException | Error e) {
            failures.increment();
            slots.remove(key, mine);
            mine.completeExceptionally(e);
            publish(new ArchiveEvent.BuildFailed(clock.instant(), key.root(), String.valueOf(e.getMessage()), stats()));
            throw e;
        }
        builds.increment();
        totalBuildNanos.add(a.buildNanos());
        lastBuildNanos = a.buildNanos();
        // Complete before holding: an eviction only removes a slot whose future already holds the evicted
        // archive, so an archive must never be in `lru` while its future is still pending.
        mine.complete(a);
        List<SourceArchive> evicted = admit(key, a, mine);
        publish(new ArchiveEvent.Built(clock.instant(), a.root(), a.members(), a.sha256(), a.size(), a.entries(),
                a.buildTime(), a.skipped(), stats()));
        for (SourceArchive e : evicted) {
            publish(new ArchiveEvent.Evicted(clock.instant(), e.root(), e.sha256(), e.size(), EvictionCause.SIZE, stats()));
        }
        return a;
    }

    /** Holds {@code a}, evicting least recently used archives until the bound holds; returns what was evicted. */
    private List<SourceArchive> admit(ArchiveKey key, SourceArchive a, CompletableFuture<SourceArchive> mine) {
        List<SourceArchive> evicted = new ArrayList<>();
        synchronized (lock) {
            if (slots.get(key) != mine) {
                // Already replaced by a rebuild (its member set changed meanwhile): nothing to hold.
                return evicted;
            }
            if (a.size() > maximumBytes) {
                // Larger than the whole bound: served to its callers, never held.
                slots.remove(key, mine);
                evicted.add(a);
            } else {
                SourceArchive previous = lru.put(key, a);
                usage.putIfAbsent(a, new Usage(clock.instant()));
                // Computed locally and published once: a reader of stats() never sees the bound exceeded.
                long held = bytesHeld + a.size() - (previous == null ? 0 : previous.size());
                Iterator<Map.Entry<ArchiveKey, SourceArchive>> it = lru.entrySet().iterator();
                while (held > maximumBytes && it.hasNext()) {
                    Map.Entry<ArchiveKey, SourceArchive> eldest = it.next();
                    if (eldest.getKey().equals(key)) {
                        continue;
                    }
                    it.remove();
                    held -= eldest.getValue().size();
                    removeSlotIfHolds(eldest.getKey(), eldest.getValue());
                    evicted.add(eldest.getValue());
                }
                bytesHeld = held;
            }
            entriesHeld = lru.size();
        }
        evictions.add(evicted.size());
        return evicted;
    }

    /** Drops the stale archive of {@code key} (its slot already holds the rebuild). */
    private void release(ArchiveKey key, SourceArchive stale) {
        boolean removed;
        synchronized (lock) {
            removed = lru.remove(key, stale);
            if (removed) {
                bytesHeld -= stale.size();
                entriesHeld = lru.size();
            }
        }
        if (removed) {
            publish(new ArchiveEvent.Evicted(clock.instant(), stale.root(), stale.sha256(), stale.size(),
                    EvictionCause.REPLACED, stats()));
        }
    }

    private void touch(ArchiveKey key) {
        synchronized (lock) {
            lru.get(key);
        }
    }

    private void removeSlotIfHolds(ArchiveKey key, SourceArchive a) {
        CompletableFuture<SourceArchive> f = slots.get(key);
        if (f != null && f.getNow(null) == a) {
            slots.remove(key, f);
        }
    }

    private void hit(SourceArchive a, boolean validated, long validationNanos) {
        hits.increment();
        synchronized (usage) {
            Usage u = usage.get(a);
            if (u != null) {
                u.hits++;
                if (validated) {
                    u.lastValidated = clock.instant();
                }
            }
        }
        if (!publishing) {
            return;
        }
        publish(new ArchiveEvent.Hit(clock.instant(), a.root(), a.sha256(), a.size(), validated, validationNanos, stats()));
    }

    private static SourceArchive await(CompletableFuture<SourceArchive> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ArchiveException("Interrupted while waiting for another thread's archive build", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            Throwable c = cause != null ? cause : e;
            if (c instanceof RuntimeException re) {
                throw re;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new ArchiveException("The archive build this request waited for failed: " + c, c);
        }
    }

    private void publish(KilnEvent e) {
        try {
            sink.publish(e);
        } catch (RuntimeException ex) {
            LOG.warn("An archive cache event listener failed on {}; the cache carries on", e.getClass().getSimpleName(), ex);
        }
    }

    /** Configures an {@link ArchiveCache}; bad values are rejected when set. */
    public static final class Builder {
        private long maximumBytes = DEFAULT_MAXIMUM_BYTES;
        private Policy policy = Policy.VALIDATED;
        private EventSink sink = EventSink.none();
        private boolean sinkSet;
        private Clock clock = Clock.systemUTC();
        private Ticker ticker = Ticker.systemTicker();

        private Builder() {
        }

        /** Bound on the total bytes of archives held; an archive larger than this is served but never held. */
        public Builder maximumBytes(long bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("maximum bytes must not be negative, got " + bytes);
            }
            this.maximumBytes = bytes;
            return this;
        }

        /** How hits are served (default {@link Policy#VALIDATED}). */
        public Builder policy(Policy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** Where cache events go (default: nowhere). */
        public Builder eventSink(EventSink sink) {
            this.sink = Objects.requireNonNull(sink, "event sink");
            this.sinkSet = true;
            return this;
        }

        /** The clock that stamps events. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The ticker for validation timings (default {@link Ticker#systemTicker()}). */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        public ArchiveCache build() {
            return new ArchiveCache(this);
        }
    }
}
