package dev.kiln.core.watch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One generation's inotify watches over a set of directories, through the JDK's {@link WatchService} (inotify on
 * Linux, one watch per directory), and the loop that turns its events into {@link Sink} calls.
 *
 * <p>Why not a library: registering a directory with the JDK's service is a round trip to its poller thread (a
 * request queued, a wake-up, the {@code inotify_add_watch}, an answer); one after another, at 100,000 directories
 * that round trip was most of the watch start, on top of the library's own walk of every file before it
 * registered anything (measured: {@code kiln bench scale}). Here the tree is walked once, by several threads, each
 * registering the directory it reached: the poller then answers the requests queued meanwhile in one wake-up, so
 * the cost approaches the walk plus one {@code inotify_add_watch} per directory.
 *
 * <p>What is registered below each directory is the {@link Scope}'s decision, at start and for directories that
 * appear later (registered before their contents are reported, so nothing created in them is missed).
 *
 * <p>Thread-safety: {@link #register} may run on any thread (it is called by the walk's threads at once); the
 * event loop runs on the thread given to {@link #run}; {@link #close} may be called from any thread and ends it.
 */
final class InotifyTree implements AutoCloseable {
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final WatchEvent.Kind<?>[] KINDS = {StandardWatchEventKinds.ENTRY_CREATE,
        StandardWatchEventKinds.ENTRY_DELETE, StandardWatchEventKinds.ENTRY_MODIFY};
    /** Registering threads: they wait on the poller far more than they compute, so more than the cores. */
    private static final int WALKERS = Math.max(2, Math.min(8, 2 * Runtime.getRuntime().availableProcessors()));

    enum Kind { CREATE, MODIFY, DELETE }

    /** Receives the events of the watched tree, on the event loop's thread. */
    interface Sink {
        void onEvent(Kind kind, Path path, boolean directory);

        /** The kernel's queue overflowed: events were lost. */
        void onOverflow();

        /** Every watched directory is gone. */
        void onEnded();

        void onError(Exception e);
    }

    /** Visits {@code start} as the watch sees it: calls {@code onDirectory} for what to watch, {@code onFile} for files. */
    interface Scope {
        void visit(Path start, Callback onDirectory, Callback onFile, boolean parallel) throws IOException;
    }

    @FunctionalInterface
    interface Callback {
        void call(Path path) throws IOException;
    }

    /** Thrown by a registration that would pass the watch budget: the caller plans within it instead. */
    static final class OverBudget extends IOException {
        private static final long serialVersionUID = 1L;

        OverBudget(int budget) {
            super("more directories than the " + budget + " watches allowed");
        }
    }

    private final WatchService service;
    private final Map<WatchKey, Path> keys = new ConcurrentHashMap<>();
    private final Set<Path> directories = ConcurrentHashMap.newKeySet();
    private final AtomicInteger registered = new AtomicInteger();
    private final int budget;

    /** @param budget most watches {@link #register} may add before {@link OverBudget}; 0 for no bound */
    InotifyTree(int budget) throws IOException {
        this.service = FileSystems.getDefault().newWatchService();
        this.budget = budget;
    }

    /** Watches registered so far. */
    int registered() {
        return registered.get();
    }

    /** Watches {@code dir} itself (not its subdirectories). */
    void register(Path dir) throws IOException {
        if (budget > 0 && registered.incrementAndGet() > budget) {
            throw new OverBudget(budget);
        } else if (budget <= 0) {
            registered.incrementAndGet();
        }
        WatchKey key = dir.register(service, KINDS);
        keys.put(key, dir);
        directories.add(dir);
    }

    /** Runs the event loop until {@link #close}, or until every watched directory is gone. */
    void run(Sink sink, Scope scope) {
        while (true) {
            WatchKey key;
            try {
                key = service.take();
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            Path dir = keys.get(key);
            for (WatchEvent<?> event : key.pollEvents()) {
                try {
                    if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                        sink.onOverflow();
                        continue;
                    }
                    if (dir == null || !(event.context() instanceof Path name)) {
                        continue; // a key cancelled under us
                    }
                    Path child = dir.resolve(name);
                    if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE) {
                        created(child, sink, scope);
                    } else if (event.kind() == StandardWatchEventKinds.ENTRY_MODIFY) {
                        sink.onEvent(Kind.MODIFY, child, directories.contains(child));
                    } else {
                        sink.onEvent(Kind.DELETE, child, directories.remove(child));
                    }
                } catch (ClosedWatchServiceException e) {
                    return;
                } catch (IOException | RuntimeException e) {
                    IOException io = e instanceof UncheckedIOException u ? u.getCause() : null;
                    sink.onError(io != null ? io : e);
                }
            }
            if (!key.reset()) {
                Path gone = keys.remove(key);
                if (gone != null) {
                    directories.remove(gone);
                }
                if (keys.isEmpty()) {
                    sink.onEnded();
                    return;
                }
            }
        }
    }

    /** A new entry: a directory is watched as the scope says, then it and what is already in it are reported. */
    private void created(Path child, Sink sink, Scope scope) throws IOException {
        if (!Files.isDirectory(child, NOFOLLOW)) {
            sink.onEvent(Kind.CREATE, child, false);
            return;
        }
        List<Path> dirs = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        // Watch first, report after: whatever is created in it from now on raises its own event.
        scope.visit(child, d -> {
            register(d);
            dirs.add(d);
        }, files::add, false);
        if (dirs.isEmpty()) {
            // not watched (outside the inputs), still reported: the workspace root's watch saw it
            sink.onEvent(Kind.CREATE, child, true);
            return;
        }
        for (Path d : dirs) {
            sink.onEvent(Kind.CREATE, d, true);
        }
        for (Path f : files) {
            sink.onEvent(Kind.CREATE, f, false);
        }
    }

    @Override
    public void close() {
        try {
            service.close();
        } catch (IOException e) {
            // nothing left to release
        }
    }

    // ---- the walk ---------------------------------------------------------------------------------------------

    /**
     * Walks {@code start} (skipping dot-directories below it, tolerating entries that vanish mid-walk), on several
     * threads when {@code parallel}: {@code onDirectory} is then called concurrently and must be thread-safe.
     */
    static void walk(Path start, Callback onDirectory, Callback onFile, boolean parallel) throws IOException {
        Dir root = new Dir(start, onDirectory, onFile);
        ForkJoinPool pool = parallel ? new ForkJoinPool(WALKERS) : null;
        try {
            if (pool == null) {
                root.compute();
            } else {
                pool.invoke(root);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } finally {
            if (pool != null) {
                pool.shutdownNow();
            }
        }
    }

    private static final class Dir extends RecursiveAction {
        private static final long serialVersionUID = 1L;
        private final transient Path dir;
        private final transient Callback onDirectory;
        private final transient Callback onFile;

        Dir(Path dir, Callback onDirectory, Callback onFile) {
            this.dir = dir;
            this.onDirectory = onDirectory;
            this.onFile = onFile;
        }

        @Override
        protected void compute() {
            List<Dir> below = new ArrayList<>();
            try {
                onDirectory.call(dir);
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
                    for (Path e : entries) {
                        BasicFileAttributes a;
                        try {
                            a = Files.readAttributes(e, BasicFileAttributes.class, NOFOLLOW);
                        } catch (NoSuchFileException gone) {
                            continue;
                        }
                        if (a.isDirectory()) {
                            if (!PathRules.isIgnoredDirectory(e)) {
                                below.add(new Dir(e, onDirectory, onFile));
                            }
                        } else {
                            onFile.call(e);
                        }
                    }
                }
            } catch (NoSuchFileException | NotDirectoryException gone) {
                return; // removed (or replaced) since its parent listed it
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (inForkJoinPool()) {
                invokeAll(below);
            } else {
                for (Dir d : below) {
                    d.compute();
                }
            }
        }
    }
}
