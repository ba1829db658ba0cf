package dev.kiln.ui.caches;

import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.archive.ArchiveEvent;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.projection.TickResult;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.chart.SampleHistory;
import dev.kiln.ui.projection.ChartSeries;
import dev.kiln.ui.projection.ChartWindow;
import dev.kiln.ui.util.Background;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Caches page: the parse cache (entries and hit ratio per tick, from the projection's ticks) beside the source
 * archive cache (its counters live from its events, the archives it holds, bytes held against its bound), both over
 * time; and an action that asks the archive cache for a directory of the workspace — a hit when nothing changed, a
 * rebuild when a member file did.
 *
 * <p>Concurrency: FX thread only; the engine is asked in {@link Background} work.
 */
public final class CachesViewModel {
    /** Archive events kept in the activity table. */
    public static final int HISTORY = 300;

    /**
     * The parse cache in one tick: the contracts the projection holds ({@code entries}: one cached parse each), those
     * parsed this tick (misses) and those served from the cache (hits). Every contract not parsed came from the
     * cache — re-stat'ed on a full tick, untouched on an incremental one, whose own stats count only what it
     * re-enumerated.
     */
    public record ParseTick(int entries, int parsed, int reused) {
        public static ParseTick of(TickResult r) {
            int entries = r.leaves();
            int parsed = Math.min(r.stats().parsed(), entries);
            return new ParseTick(entries, parsed, entries - parsed);
        }

        /** Hits in percent, NaN for a tick with no contracts. */
        public double hitRatio() {
            return entries == 0 ? Double.NaN : 100.0 * reused / entries;
        }
    }

    /** What a chart keeps of one archive event: the counters it moved, and the bytes held before and after it. */
    private record ArchiveSample(long hits, long misses, long builds, long evictions, long heldBefore, long heldAfter) {
        /**
         * From two readings; never negative: events of concurrent requests may arrive out of their counters' order,
         * and an out-of-order one moved nothing new.
         */
        static ArchiveSample between(ArchiveCacheStats before, ArchiveCacheStats after) {
            return new ArchiveSample(Math.max(0, after.hits() - before.hits()), Math.max(0, after.misses() - before.misses()),
                    Math.max(0, after.builds() - before.builds()), Math.max(0, after.evictions() - before.evictions()),
                    before.bytesHeld(), after.bytesHeld());
        }
    }

    /**
     * One bucket of the Caches page's charts.
     *
     * @param secondsAgo where it ends, seconds before now
     * @param ticks projection ticks in it
     * @param parsed contracts parsed (parse cache misses), summed over its ticks
     * @param reused contracts reused from the parse cache (hits), summed
     * @param hitRatio reused / (parsed + reused) in percent; a bucket without ticks repeats the one before it (the
     *     cache did not change), NaN before the first tick of the window
     * @param hits archive requests served from the cache
     * @param misses archive requests that found no usable archive
     * @param builds archives built
     * @param evictions archives dropped (to stay under the byte bound, or invalidated)
     * @param bytesHeld bytes the archive cache held at the bucket's end
     */
    public record Bucket(double secondsAgo, int ticks, int parsed, int reused, double hitRatio, long hits, long misses,
            long builds, long evictions, long bytesHeld) {
    }

    private final Engine engine;
    private final Background background;
    private final SampleHistory<ParseTick> parse = new SampleHistory<>(ChartWindow.ONE_HOUR.span(), ChartSeries.MAX_SAMPLES);
    private final SampleHistory<ArchiveSample> archive = new SampleHistory<>(ChartWindow.ONE_HOUR.span(), ChartSeries.MAX_SAMPLES);
    private final ObjectProperty<ChartWindow> chartWindow = new SimpleObjectProperty<>(ChartWindow.TEN_MINUTES);
    private final ReadOnlyObjectWrapper<ArchiveCacheStats> stats = new ReadOnlyObjectWrapper<>(ArchiveCacheStats.empty());
    private final ReadOnlyObjectWrapper<TickResult> lastTick = new ReadOnlyObjectWrapper<>();
    private final ObservableList<ArchiveEvent> activity = FXCollections.observableArrayList();
    private final ObservableList<EntryRow> entries = FXCollections.observableArrayList();
    private final StringProperty source = new SimpleStringProperty(".");
    private final StringProperty members = new SimpleStringProperty("");
    private final ReadOnlyStringWrapper result = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(false);
    private boolean entriesLoading;
    private boolean entriesStale;

    public CachesViewModel(Engine engine, Background background) {
        this.engine = engine;
        this.background = background;
        // before the page was open nothing was seen: its charts draw that time as a gap, not as "0 % hits"
        java.time.Instant opened = engine.clock().instant();
        parse.observeFrom(opened);
        archive.observeFrom(opened);
    }

    /** Reads the archive cache's counters and entries now (the page calls it when it opens). */
    public void refresh() {
        background.run(engine.archives()::stats, s -> {
            if (activity.isEmpty()) {
                stats.set(s); // events carry newer counters than a read that raced them
            }
        }, e -> error.set("Could not read the archive cache: " + e.getMessage()));
        refreshEntries();
    }

    /** Re-reads the held archives; at most one read runs, and a change during it reads again once it ends. */
    private void refreshEntries() {
        if (entriesLoading) {
            entriesStale = true;
            return;
        }
        entriesLoading = true;
        java.nio.file.Path root = engine.layout().root();
        String policy = engine.archives().policy();
        background.run(engine.archives()::entries, list -> {
            entriesLoading = false;
            entries.setAll(list.stream().map(a -> EntryRow.of(a, root, policy)).toList());
            if (entriesStale) {
                entriesStale = false;
                refreshEntries();
            }
        }, e -> {
            entriesLoading = false;
            error.set("Could not list the archive cache: " + e.getMessage());
        });
    }

    /** Takes one frame's events: ticks feed the parse cache's chart, archive events the counters, activity and entries. */
    public void accept(List<? extends KilnEvent> batch) {
        boolean archiveChanged = false;
        for (KilnEvent e : batch) {
            if (e instanceof TickFinished t) {
                TickResult r = t.result();
                lastTick.set(r);
                parse.add(r.at(), ParseTick.of(r));
            } else if (e instanceof ArchiveEvent a) {
                ArchiveCacheStats before = stats.get();
                ArchiveCacheStats after = a.stats();
                archive.add(a.at(), ArchiveSample.between(before, after));
                if (after.hits() + after.misses() + after.evictions() >= before.hits() + before.misses() + before.evictions()) {
                    stats.set(after); // an event overtaken by a later one's counters keeps the later counters
                }
                activity.add(0, a);
                archiveChanged = true;
            }
        }
        if (activity.size() > HISTORY) {
            activity.remove(HISTORY, activity.size());
        }
        if (archiveChanged) {
            refreshEntries();
        }
    }

    /** Where the charts end: the engine's clock (a replay's position). */
    public java.time.Instant now() {
        return engine.clock().instant();
    }

    /** Since when the charts' samples were watched for. */
    public java.time.Instant observedFrom() {
        return parse.observedFrom();
    }

    /** The charts' buckets now, over the chosen window. */
    public List<Bucket> buckets() {
        return buckets(chartWindow.get(), engine.clock().instant());
    }

    /** The buckets of {@code window} ending at {@code now}, oldest first. */
    public List<Bucket> buckets(ChartWindow window, java.time.Instant now) {
        int n = ChartWindow.BUCKETS;
        Duration span = window.span();
        List<List<ParseTick>> ps = parse.buckets(span, n, now);
        List<List<ArchiveSample>> as = archive.buckets(span, n, now);
        // Bytes held before the window's first event: what that event found; without events, what is held now.
        long held = as.stream().flatMap(List::stream).findFirst().map(ArchiveSample::heldBefore).orElse(stats.get().bytesHeld());
        double ratio = Double.NaN;
        List<Bucket> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int ticks = 0;
            int parsed = 0;
            int reused = 0;
            for (ParseTick p : ps.get(i)) {
                ticks++;
                parsed += p.parsed();
                reused += p.reused();
            }
            if (parsed + reused > 0) {
                ratio = 100.0 * reused / (parsed + reused);
            }
            long hits = 0;
            long misses = 0;
            long builds = 0;
            long evictions = 0;
            for (ArchiveSample a : as.get(i)) {
                hits += a.hits();
                misses += a.misses();
                builds += a.builds();
                evictions += a.evictions();
                held = a.heldAfter();
            }
            out.add(new Bucket(SampleHistory.secondsAgo(span, n, i), ticks, parsed, reused, ratio, hits, misses, builds, evictions, held));
        }
        return out;
    }

    /**
     * Asks the archive cache for the archive of {@link #sourceProperty()} (a directory of the workspace) with the
     * listed members (all when empty).
     */
    public void fetch() {
        String dir = source.get() == null ? "" : source.get().strip();
        if (dir.isEmpty()) {
            error.set("Choose a source directory of the workspace first (\".\" is the workspace itself).");
            return;
        }
        List<String> names = Arrays.stream((members.get() == null ? "" : members.get()).split("[,\\s]+"))
                .filter(s -> !s.isBlank()).toList();
        busy.set(true);
        error.set("");
        background.run(() -> engine.archives().archive(dir, names), a -> {
            busy.set(false);
            result.set(String.format("%s · %,d bytes · %d files · sha256 %s", a.root().getFileName(), a.bytes(), a.files(), a.sha256()));
        }, e -> {
            busy.set(false);
            error.set(e.getMessage());
        });
    }

    /** Drops every cached archive (the next request rebuilds). */
    public void invalidateAll() {
        background.run(() -> {
            engine.archives().invalidate();
            return engine.archives().stats();
        }, s -> {
            stats.set(s);
            refreshEntries();
        }, e -> error.set(e.getMessage()));
    }

    /** The archive cache's bound on the bytes it holds. */
    public long maximumBytes() {
        return engine.archives().maximumBytes();
    }

    public String policy() {
        return engine.archives().policy();
    }

    /** Whether the engine's files are on another host (then there is no directory to browse for). */
    public boolean remote() {
        return engine.remote();
    }

    public String workspaceRoot() {
        return engine.layout().root().toString();
    }

    public ReadOnlyObjectProperty<ArchiveCacheStats> statsProperty() {
        return stats.getReadOnlyProperty();
    }

    /** The last projection tick: the parse cache's entries and its hits of that tick. Null before the first. */
    public ReadOnlyObjectProperty<TickResult> lastTickProperty() {
        return lastTick.getReadOnlyProperty();
    }

    /** How far back the charts look. */
    public ObjectProperty<ChartWindow> chartWindowProperty() {
        return chartWindow;
    }

    /** Newest first. */
    public ObservableList<ArchiveEvent> activity() {
        return activity;
    }

    /** The archives held, most recently used first. */
    public ObservableList<EntryRow> entries() {
        return entries;
    }

    /** Source directory, relative to the workspace (or absolute inside it). */
    public StringProperty sourceProperty() {
        return source;
    }

    /** Top-level members, separated by commas or spaces; empty means the whole directory. */
    public StringProperty membersProperty() {
        return members;
    }

    public ReadOnlyStringProperty resultProperty() {
        return result.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty busyProperty() {
        return busy.getReadOnlyProperty();
    }
}
