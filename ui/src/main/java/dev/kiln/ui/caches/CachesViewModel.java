package dev.kiln.ui.caches;

import dev.kiln.core.Kiln;
import dev.kiln.core.archive.ArchiveCacheStats;
import dev.kiln.core.archive.ArchiveEvent;
import dev.kiln.core.archive.SourceArchive;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.util.Background;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Caches page: the source archive cache's counters, live from its events, and an action that asks the
 * cache for an archive of a directory — a hit when nothing changed, a rebuild when a member file did.
 */
public final class CachesViewModel {
    /** Archive events kept in the activity table. */
    public static final int HISTORY = 300;

    private final Kiln kiln;
    private final Background background;
    private final ReadOnlyObjectWrapper<ArchiveCacheStats> stats;
    private final ObservableList<ArchiveEvent> activity = FXCollections.observableArrayList();
    private final StringProperty source = new SimpleStringProperty("");
    private final StringProperty members = new SimpleStringProperty("");
    private final ReadOnlyStringWrapper result = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper(false);
    private volatile SourceArchive last;

    public CachesViewModel(Kiln kiln, Background background) {
        this.kiln = kiln;
        this.background = background;
        this.stats = new ReadOnlyObjectWrapper<>(kiln.archives().stats());
        // The workspace itself is a useful first source: its contracts are what sandboxes are handed.
        source.set(kiln.layout().root().toString());
    }

    /** Takes one frame's events: archive events update the counters and the activity list. */
    public void accept(List<? extends KilnEvent> batch) {
        for (KilnEvent e : batch) {
            if (e instanceof ArchiveEvent a) {
                stats.set(a.stats());
                activity.add(0, a);
            }
        }
        if (activity.size() > HISTORY) {
            activity.remove(HISTORY, activity.size());
        }
    }

    /** Asks the cache for the archive of {@link #sourceProperty()} with the listed members (all when empty). */
    public void fetch() {
        String dir = source.get() == null ? "" : source.get().strip();
        if (dir.isEmpty()) {
            error.set("Choose a source directory first.");
            return;
        }
        Path root = kiln.layout().root().resolve(dir);
        if (!Files.isDirectory(root)) {
            error.set(root + " is not a directory.");
            return;
        }
        List<String> names = Arrays.stream((members.get() == null ? "" : members.get()).split("[,\\s]+"))
                .filter(s -> !s.isBlank()).toList();
        busy.set(true);
        error.set("");
        background.run(() -> kiln.archives().get(root, names), a -> {
            busy.set(false);
            last = a;
            result.set(String.format("%s · %,d bytes · %d entries · built in %d ms · sha256 %s",
                    a.root().getFileName(), a.size(), a.entries(), a.buildTime().toMillis(), a.sha256()));
        }, e -> {
            busy.set(false);
            error.set(e.getMessage());
        });
    }

    /** Writes the last archive to {@code file}. */
    public void save(Path file) {
        SourceArchive a = last;
        if (a == null) {
            return;
        }
        background.run(() -> {
            a.writeTo(file);
            return file;
        }, f -> result.set(result.get() + " · saved to " + f), e -> error.set("Could not save " + file + ": " + e.getMessage()));
    }

    /** Drops every cached archive (the next request rebuilds). */
    public void invalidateAll() {
        background.run(() -> {
            kiln.archives().invalidateAll();
            return kiln.archives().stats();
        }, stats::set, e -> error.set(e.getMessage()));
    }

    public long maximumBytes() {
        return kiln.archives().maximumBytes();
    }

    public String policy() {
        return kiln.archives().policy().name().toLowerCase(java.util.Locale.ROOT);
    }

    public ReadOnlyObjectProperty<ArchiveCacheStats> statsProperty() {
        return stats.getReadOnlyProperty();
    }

    /** Newest first. */
    public ObservableList<ArchiveEvent> activity() {
        return activity;
    }

    /** Source directory; relative paths resolve against the workspace. */
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

    public boolean hasArchive() {
        return last != null;
    }
}
