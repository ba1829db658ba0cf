package dev.kiln.ui.fleet;

import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.fleet.DaemonList;
import dev.kiln.core.serve.DaemonHealth;
import dev.kiln.core.serve.ServeClient;
import dev.kiln.ui.util.Background;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.collections.transformation.SortedList;


/**
 * The Fleet page's state: every daemon of the operator's list ({@link DaemonList}), live. One poller per daemon asks
 * for its health every {@link #POLL} while it answers; while it does not, it backs off ({@link #BACKOFF_FIRST},
 * doubling, at most {@link #BACKOFF_MAX}), shows since when and when it asks again, and comes back by itself.
 * Adding, editing and removing daemons writes the list (never over a file that does not read: the page says why).
 *
 * <p>Concurrency: the health call runs through {@link Background} (off the FX thread; one hop back per answer); the
 * {@link Scheduler} only says when to ask. All state is touched on the FX thread (the caller's thread in tests); an
 * answer for a poller that was removed or replaced meanwhile is dropped.
 */
public final class FleetViewModel implements AutoCloseable {
    /** How often a daemon that answers is asked again. */
    public static final Duration POLL = Duration.ofSeconds(2);
    /** The first retry after a failed poll; it doubles per failure. */
    public static final Duration BACKOFF_FIRST = Duration.ofSeconds(1);
    /** The longest wait between retries of a daemon that is down. */
    public static final Duration BACKOFF_MAX = Duration.ofSeconds(30);

    /** When the next poll is due; the task runs on any thread and only starts a poll. */
    @FunctionalInterface
    public interface Scheduler {
        Background.Cancellable schedule(Duration delay, Runnable task);

        /** The one daemon thread of the application that does nothing but start polls (shared by every fleet). */
        static Scheduler daemonThread() {
            return (delay, task) -> {
                ScheduledFuture<?> f = SharedTimer.TIMER.schedule(task, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
                return () -> f.cancel(false);
            };
        }
    }

    /** Made on first use: a console that never shows the Fleet page starts no thread for it. */
    private static final class SharedTimer {
        static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kiln-fleet-timer");
            t.setDaemon(true);
            return t;
        });
    }

    /** How a daemon is asked for its health: one asker per daemon, made once (it may hold a connection pool). */
    @FunctionalInterface
    public interface HealthSource {
        Asker open(DaemonEntry daemon);

        /** Asks once; blocks (off the FX thread). */
        @FunctionalInterface
        interface Asker {
            DaemonHealth health() throws Exception;
        }

        /** Over the daemon's API ({@code GET /api/v1/health}, {@link ServeClient}). */
        static HealthSource api() {
            return d -> {
                ServeClient c = d.client();
                return c::health;
            };
        }
    }

    private final Path listFile;
    private final Background background;
    private final Scheduler scheduler;
    private final HealthSource source;
    private final Clock clock;
    private final Consumer<DaemonEntry> opener;
    private final Map<String, Poller> pollers = new LinkedHashMap<>();
    private final ObservableList<FleetRow> backing = FXCollections.observableArrayList();
    private final SortedList<FleetRow> rows = new SortedList<>(backing, ORDER);
    private final ReadOnlyObjectWrapper<Instant> now;
    private final ReadOnlyStringWrapper listError = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
    private final ReadOnlyObjectWrapper<String> focused = new ReadOnlyObjectWrapper<>();
    private volatile boolean closed;

    /** Down first, then degraded, connecting, up; by name within each. */
    static final Comparator<FleetRow> ORDER = Comparator.comparing(FleetRow::state)
            .thenComparing(r -> r.name().toLowerCase(Locale.ROOT));

    /**
     * @param listFile the daemon list ({@code daemons.json}), or null for none (nothing is saved; the page says so)
     * @param opener what selecting a daemon does: open its pages
     */
    public FleetViewModel(Path listFile, Background background, Scheduler scheduler, HealthSource source,
            Clock clock, Consumer<DaemonEntry> opener) {
        this.listFile = listFile;
        this.background = Objects.requireNonNull(background);
        this.scheduler = Objects.requireNonNull(scheduler);
        this.source = Objects.requireNonNull(source);
        this.clock = Objects.requireNonNull(clock);
        this.opener = Objects.requireNonNull(opener);
        this.now = new ReadOnlyObjectWrapper<>(clock.instant());
    }

    /** Reads the list and starts a poller per daemon; a list that does not read is named in {@link #listErrorProperty()}. */
    public void load() {
        if (listFile == null) {
            listError.set("No daemon list: this console was started without a config directory; daemons added here"
                    + " are kept until it closes.");
            return;
        }
        try {
            sync(DaemonList.read(listFile));
            listError.set("");
        } catch (IOException e) {
            listError.set(e.getMessage());
        }
    }

    /** The daemons, the ones that need a look first. */
    public ObservableList<FleetRow> rows() {
        return rows;
    }

    /** The time the texts are derived against; {@link #tick()} advances it. */
    public ReadOnlyObjectProperty<Instant> nowProperty() {
        return now.getReadOnlyProperty();
    }

    /** Advances {@link #nowProperty()}: the page calls it every second, so ages and countdowns tick. */
    public void tick() {
        now.set(clock.instant());
    }

    /** Why the daemon list could not be read (it is not overwritten); empty when it was. */
    public ReadOnlyStringProperty listErrorProperty() {
        return listError.getReadOnlyProperty();
    }

    /** The outcome of the last edit, for the page. */
    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    /** The daemon the page should select (after an edit or an attach), by name. */
    public ReadOnlyObjectProperty<String> focusedProperty() {
        return focused.getReadOnlyProperty();
    }

    /** The row of {@code name}, if listed. */
    public Optional<FleetRow> row(String name) {
        Poller p = pollers.get(key(name));
        return p == null ? Optional.empty() : Optional.of(p.row);
    }

    /**
     * Adds {@code d} (when {@code oldName} is null) or puts it in place of the daemon called {@code oldName}, in the
     * list file, and polls it.
     *
     * @return why not, empty when it was saved
     */
    public Optional<String> save(String oldName, DaemonEntry d) {
        if (oldName == null && pollers.containsKey(key(d.name())) && pollers.get(key(d.name())).saved) {
            return Optional.of("a daemon is already called " + d.name() + "; pick another name, or edit that one");
        }
        try {
            if (listFile == null) {
                DaemonList l = DaemonList.of(savedEntries());
                sync(oldName == null ? l.with(d) : l.replace(oldName, d));
            } else {
                sync(DaemonList.update(listFile, l -> oldName == null ? l.with(d) : l.replace(oldName, d)));
            }
        } catch (IOException | IllegalArgumentException e) {
            return Optional.of(e.getMessage());
        }
        message.set((oldName == null ? "Added " : "Saved ") + d.name() + (listFile == null ? "" : " in " + listFile));
        focused.set(d.name());
        return Optional.empty();
    }

    /** Removes the daemon called {@code name} from the list and stops polling it; why not, empty when done. */
    public Optional<String> remove(String name) {
        Poller p = pollers.get(key(name));
        if (p != null && !p.saved) {
            stop(p);
            pollers.remove(key(name));
            backing.remove(p.row);
            return Optional.empty();
        }
        try {
            if (listFile == null) {
                sync(DaemonList.of(savedEntries()).without(name));
            } else {
                sync(DaemonList.update(listFile, l -> l.without(name)));
            }
        } catch (IOException e) {
            return Optional.of(e.getMessage());
        }
        message.set("Removed " + name);
        return Optional.empty();
    }

    /**
     * Shows {@code d} and selects it: the listed daemon with the same URL if there is one, else {@code d} for this
     * session only (not written to the list).
     */
    public void attach(DaemonEntry d) {
        Optional<Poller> same = pollers.values().stream().filter(p -> p.entry.url().equals(d.url())).findFirst();
        if (same.isPresent()) {
            focused.set(same.get().entry.name());
            return;
        }
        if (!pollers.containsKey(key(d.name()))) {
            start(d, false);
        }
        focused.set(d.name());
    }

    /** Opens the pages of the daemon in {@code row} (the injected opener). */
    public void open(FleetRow row) {
        opener.accept(row.entry());
    }

    /**
     * On first contact with a TLS daemon without a pin: reads the fingerprint of the certificate it presents, for
     * the operator to compare with what {@code kiln serve} printed, off the FX thread; {@code then} gets it (empty
     * when there is nothing to ask: plain HTTP, a pin already set, or no certificate seen).
     */
    public void firstContact(DaemonEntry d, Consumer<Optional<String>> then) {
        if (!d.tls() || d.pin().isPresent()) {
            then.accept(Optional.empty());
            return;
        }
        background.run(() -> ServeClient.presentedFingerprint(d.url()), then, e -> then.accept(Optional.empty()));
    }

    /** Stops every poller. */
    @Override
    public void close() {
        closed = true;
        pollers.values().forEach(this::stop);
    }

    private java.util.List<DaemonEntry> savedEntries() {
        return pollers.values().stream().filter(p -> p.saved).map(p -> p.entry).toList();
    }

    /** Makes the pollers match {@code list}: new ones start, changed ones restart, gone ones stop. */
    private void sync(DaemonList list) {
        Map<String, DaemonEntry> want = new LinkedHashMap<>();
        list.daemons().forEach(d -> want.put(key(d.name()), d));
        for (var it = pollers.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            Poller p = e.getValue();
            DaemonEntry d = want.get(e.getKey());
            if (p.saved && (d == null || !d.equals(p.entry)) || !p.saved && d != null) {
                stop(p);
                backing.remove(p.row);
                it.remove();
            }
        }
        want.forEach((k, d) -> {
            if (!pollers.containsKey(k)) {
                start(d, true);
            }
        });
    }

    private void start(DaemonEntry d, boolean saved) {
        Poller p = new Poller(d, saved, source.open(d));
        pollers.put(key(d.name()), p);
        backing.add(p.row);
        poll(p);
    }

    private void stop(Poller p) {
        p.stopped = true;
        Background.Cancellable t = p.timer;
        if (t != null) {
            t.cancel();
        }
    }

    private void poll(Poller p) {
        if (p.stopped || closed) {
            return;
        }
        // A daemon that is down is expected, not a fault of the console: it comes back as a value (not logged as a
        // failed background task), once per poll.
        background.run(() -> {
            try {
                return new Answer(p.asker.health(), null);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                return new Answer(null, e);
            }
        }, a -> {
            if (a.health() != null) {
                answered(p, a.health());
            } else {
                failed(p, a.error());
            }
        }, e -> failed(p, e));
    }

    /** One poll's outcome: a health, or why there is none. */
    private record Answer(DaemonHealth health, Exception error) {
    }

    private void answered(Poller p, DaemonHealth h) {
        if (p.stopped) {
            return;
        }
        p.failures = 0;
        Instant at = clock.instant();
        replace(p, p.row.answered(h, at));
        now.set(at);
        next(p, POLL);
    }

    private void failed(Poller p, Throwable e) {
        if (p.stopped) {
            return;
        }
        Duration wait = backoff(p.failures++);
        Instant at = clock.instant();
        String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        replace(p, p.row.failed(why, at, at.plus(wait)));
        now.set(at);
        next(p, wait);
    }

    /** {@link #BACKOFF_FIRST} doubled per earlier failure, at most {@link #BACKOFF_MAX}. */
    static Duration backoff(int earlierFailures) {
        Duration d = BACKOFF_FIRST;
        for (int i = 0; i < earlierFailures && d.compareTo(BACKOFF_MAX) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(BACKOFF_MAX) > 0 ? BACKOFF_MAX : d;
    }

    private void next(Poller p, Duration delay) {
        p.timer = scheduler.schedule(delay, () -> poll(p));
    }

    private void replace(Poller p, FleetRow row) {
        int i = backing.indexOf(p.row);
        p.row = row;
        if (i >= 0) {
            backing.set(i, row);
        }
    }

    private static String key(String name) {
        return name.strip().toLowerCase(Locale.ROOT);
    }

    /** One daemon's polling; touched on the FX thread only (stopped is read by the timer's thread too). */
    private static final class Poller {
        final DaemonEntry entry;
        final boolean saved;
        final HealthSource.Asker asker;
        FleetRow row;
        int failures;
        volatile boolean stopped;
        Background.Cancellable timer;

        Poller(DaemonEntry entry, boolean saved, HealthSource.Asker asker) {
            this.entry = entry;
            this.saved = saved;
            this.asker = asker;
            this.row = FleetRow.connecting(entry, saved);
        }
    }
}
