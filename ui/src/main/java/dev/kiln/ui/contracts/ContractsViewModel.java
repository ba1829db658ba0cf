package dev.kiln.ui.contracts;

import dev.kiln.core.contract.Contract;
import dev.kiln.core.contract.HealReport;
import dev.kiln.core.contract.ContractCodec;
import dev.kiln.core.contract.LeafIds;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.snapshot.ContractFile;
import dev.kiln.core.snapshot.ContractSnapshot;
import dev.kiln.core.snapshot.SnapshotFailure;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.util.Background;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.ObservableList;
import javafx.collections.transformation.FilteredList;

/**
 * State and actions of the Contracts page: the projector's latest snapshot as rows, a filter, and the heal
 * action, which always shows its preview (a dry run) before anything is written.
 */
public final class ContractsViewModel {
    private static final java.time.format.DateTimeFormatter DAY =
            java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(java.time.ZoneOffset.UTC);
    private final Engine engine;
    private final Background background;
    private final RowList all = new RowList();
    private final FilteredList<ContractRow> shown = new FilteredList<>(all, r -> true);
    private final StringProperty filter = new SimpleStringProperty("");
    private final BooleanProperty flaggedOnly = new SimpleBooleanProperty(false);
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper notice = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper loading = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyObjectWrapper<HealReport> healPreview = new ReadOnlyObjectWrapper<>();
    private ContractSnapshot shownSnapshot;
    // FX thread only: the snapshot whose rows are being built, and the newest one that came in meanwhile.
    private ContractSnapshot buildingSnapshot;
    private ContractSnapshot pendingSnapshot;
    private int allVersion; // FX thread only: counts changes to the rows, so a build knows whether its diff still holds
    private boolean showing = true; // FX thread only
    private ContractSnapshot summarized; // FX thread only: the snapshot last counted while hidden
    /**
     * The rows of the last build, by the very file object they were built from, and the snapshot they are of: the
     * next build reuses a cached file's row instead of making 10,000 new ones each tick (the garbage of that, 60 ticks
     * a second in a replay at 60x, was collections the FX thread waited for). Only the one build running reads and
     * writes them; one build at a time, each started from the FX thread after the last one's result arrived there.
     */
    private final RowCache rowCache = new RowCache();
    /** Characters of a contract file the details pane shows at most. */
    public static final int DETAILS_LIMIT = 64 * 1024;
    private final javafx.beans.property.ReadOnlyIntegerWrapper changedCount = new javafx.beans.property.ReadOnlyIntegerWrapper(0);
    private final ReadOnlyObjectWrapper<ContractRow> selected = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyStringWrapper details = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper matchCount = new ReadOnlyStringWrapper("");

    public ContractsViewModel(Engine engine, Background background) {
        this.engine = engine;
        this.background = background;
        filter.addListener((o, a, b) -> applyFilter());
        flaggedOnly.addListener((o, a, b) -> applyFilter());
        shown.addListener((javafx.collections.ListChangeListener<ContractRow>) c -> countMatches());
    }

    /** "42 of 10,000 match" while a filter hides rows, else "10,000 rows"; updated with the rows. */
    private void countMatches() {
        boolean filtering = flaggedOnly.get() || (filter.get() != null && !filter.get().isBlank());
        matchCount.set(filtering ? String.format(Locale.ROOT, "%,d of %,d match", shown.size(), all.size())
                : String.format(Locale.ROOT, "%,d row%s", all.size(), all.size() == 1 ? "" : "s"));
    }

    /** How many rows the filter lets through, of how many: "42 of 10,000 match". */
    public ReadOnlyStringProperty matchCountProperty() {
        return matchCount.getReadOnlyProperty();
    }

    /** Runs a manual projection tick in the background and shows its snapshot. */
    public void refresh() {
        loading.set(true);
        background.run(() -> {
            engine.projection().projectNow();
            return engine.projection().snapshot();
        }, this::show, e -> {
            loading.set(false);
            error.set("Projection failed: " + e.getMessage());
        });
    }

    /**
     * Whether the page shows these rows. While it does not, a tick builds nothing: the rows are built from the newest
     * snapshot once it shows again, and the highlights then mark what changed since it last showed. Building 10,000
     * rows for a hidden page took, each tick, CPU the shown page's pulses were waiting for ({@code kiln bench ui}).
     * Starts true, so a model without a page behaves as before.
     */
    public void setShowing(boolean showing) {
        this.showing = showing;
        if (showing) {
            showLatest();
        }
    }

    /** Takes one frame's events: a finished tick means the engine holds a new snapshot. */
    public void accept(List<? extends KilnEvent> batch) {
        if (batch.stream().anyMatch(e -> e instanceof TickFinished)) {
            showLatest();
        }
    }

    /**
     * Shows the projector's latest snapshot, if it is not the one shown already (called after every tick); nothing
     * while the page does not show.
     */
    public void showLatest() {
        if (!showing) {
            summarizeLatest();
            return;
        }
        ContractSnapshot s = engine.projection().snapshot();
        if (s != null && s != shownSnapshot) {
            show(s);
        }
    }

    /** While the page is hidden: the summary line alone (the status bar shows it), counted off the FX thread. */
    private void summarizeLatest() {
        ContractSnapshot s = engine.projection().snapshot();
        if (s == null || s == summarized) {
            return;
        }
        summarized = s;
        Instant now = engine.clock().instant();
        background.run(() -> summaryOf(s, now), line -> {
            if (!showing && summarized == s) {
                summary.set(line);
            }
        }, e -> error.set("Contracts not counted: " + e.getMessage()));
    }

    /**
     * Shows {@code snapshot}. Its rows are built in the background — at 10,000 contracts that took tens of ms per
     * tick, a stall of the FX thread (kiln bench ui) — one build at a time: a snapshot that arrives meanwhile waits,
     * and only the newest waiting one is built next, against the one shown, so change highlights stay right.
     */
    private void show(ContractSnapshot snapshot) {
        if (snapshot == null) {
            shownSnapshot = null;
            pendingSnapshot = null;
            loading.set(false);
            all.clear();
            allVersion++;
            summary.set("No projection yet");
            return;
        }
        if (snapshot == shownSnapshot || snapshot == buildingSnapshot) {
            loading.set(false);
            return;
        }
        if (buildingSnapshot != null) {
            pendingSnapshot = snapshot;
            return;
        }
        buildingSnapshot = snapshot;
        ContractSnapshot previous = shownSnapshot;
        Instant now = engine.clock().instant();
        List<ContractRow> shownRows = List.copyOf(all); // an array copy: the background compares against it
        int version = allVersion;
        background.run(() -> rowsOf(previous, snapshot, now, shownRows, rowCache), built -> {
            buildingSnapshot = null;
            apply(snapshot, built, version);
            ContractSnapshot next = pendingSnapshot;
            pendingSnapshot = null;
            if (next != null) {
                show(next);
            }
        }, e -> {
            buildingSnapshot = null;
            pendingSnapshot = null;
            loading.set(false);
            error.set("Contracts not shown: " + e.getMessage());
        });
    }

    /**
     * A snapshot's rows, sorted, with what the summary line says of them, and the indexes where they differ from the
     * rows shown when the build began (null: other files, or too many to set one by one): built off the FX thread.
     */
    private record Built(List<ContractRow> rows, int changed, String summary, int[] differing) {
    }

    /** The last build's rows by the file object each was built from (identity), and the snapshot they are of. */
    private static final class RowCache {
        private java.util.IdentityHashMap<ContractFile, ContractRow> rows = new java.util.IdentityHashMap<>();
        private ContractSnapshot of;
    }

    private static Built rowsOf(ContractSnapshot previous, ContractSnapshot snapshot, Instant now, List<ContractRow> shown,
            RowCache cache) {
        List<ContractRow> rows = new ArrayList<>(snapshot.contracts().size() + snapshot.failures().size());
        // The snapshot builder hands out the very same ContractFile for a cached parse, so identity says "cached".
        java.util.IdentityHashMap<ContractFile, ContractRow> last = cache.of == previous && previous != null ? cache.rows : null;
        java.util.Set<ContractFile> before = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        java.util.Set<String> failedBefore = new java.util.HashSet<>();
        if (previous != null) {
            if (last == null) {
                before.addAll(previous.contracts());
            }
            previous.failures().forEach(f -> failedBefore.add(f.path() + "\n" + f.reason()));
        }
        java.util.IdentityHashMap<ContractFile, ContractRow> next = new java.util.IdentityHashMap<>(snapshot.contracts().size());
        for (ContractFile f : snapshot.contracts()) {
            ContractRow was = last == null ? null : last.get(f);
            boolean cached = last != null ? was != null : before.contains(f);
            ContractRow r;
            if (was != null && !was.changed() && was.parse().equals("cached") && sameOverdue(was, f, now)) {
                r = was; // the row it had: nothing of it changed, so neither does what the table draws
            } else {
                r = row(f, now, previous == null ? "parsed" : cached ? "cached" : "re-parsed this tick", previous != null && !cached);
            }
            rows.add(r);
            next.put(f, r);
        }
        cache.rows = next;
        cache.of = snapshot;
        for (SnapshotFailure f : snapshot.failures()) {
            String why = f.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ') + ": " + f.reason();
            rows.add(new ContractRow(f.path(), "", f.isDirectory() ? "" : parentOf(f.path()), "unreadable", "", "", "",
                    why, "failed: " + f.reason(), previous != null && !failedBefore.contains(f.path() + "\n" + f.reason())));
        }
        rows.sort(java.util.Comparator.comparing(ContractRow::file));
        return new Built(rows, (int) rows.stream().filter(ContractRow::changed).count(), summaryOf(snapshot, now), differing(shown, rows));
    }

    /** Whether {@code row}'s deadline says "overdue" exactly when {@code f}'s deadline is before {@code now}. */
    private static boolean sameOverdue(ContractRow row, ContractFile f, Instant now) {
        Instant deadline = f.contract().deadline();
        return (deadline != null && deadline.isBefore(now)) == row.deadline().endsWith(" · overdue");
    }

    /** The summary line of {@code snapshot}: files, legacy and misplaced ids, unreadable files, overdue deadlines. */
    static String summaryOf(ContractSnapshot snapshot, Instant now) {
        long legacy = 0;
        long misplaced = 0;
        long overdue = 0;
        for (ContractFile f : snapshot.contracts()) {
            legacy += f.idShape() == LeafIds.Shape.STEM ? 1 : 0;
            misplaced += f.idShape() == LeafIds.Shape.MISPLACED ? 1 : 0;
            Instant deadline = f.contract().deadline();
            overdue += deadline != null && deadline.isBefore(now) ? 1 : 0;
        }
        // an unreadable file counts as a contract file, an unreadable directory does not (as the table shows them)
        long files = snapshot.contracts().size()
                + snapshot.failures().stream().filter(f -> !f.isDirectory() && !parentOf(f.path()).isEmpty()).count();
        return files + " contract files · " + legacy + " legacy ids · " + misplaced + " misplaced · " + snapshot.failures().size()
                + " unreadable · " + overdue + " overdue";
    }

    /** Indexes where {@code now} differs from {@code shown} when both list the same files, at most 64; else null. */
    private static int[] differing(List<ContractRow> shown, List<ContractRow> now) {
        if (shown.size() != now.size() || shown.isEmpty()) {
            return null;
        }
        int[] at = new int[64];
        int n = 0;
        for (int i = 0; i < now.size(); i++) {
            if (!now.get(i).file().equals(shown.get(i).file())) {
                return null;
            }
            if (!now.get(i).equals(shown.get(i))) {
                if (n == at.length) {
                    return null;
                }
                at[n++] = i;
            }
        }
        return java.util.Arrays.copyOf(at, n);
    }

    /**
     * On the FX thread: {@code snapshot}'s rows replace the shown ones. When the same files are listed (an edit, the
     * usual tick) only the rows that differ are set, a few small changes; else all of them in one change. Setting
     * all 10,000 re-filtered and re-drew every row each tick (kiln bench ui).
     */
    private void apply(ContractSnapshot snapshot, Built built, int version) {
        ContractRow sel = selected.get(); // before the rows change: a table clears its selection when its row is replaced
        shownSnapshot = snapshot;
        loading.set(false);
        error.set("");
        List<ContractRow> rows = built.rows();
        if (built.differing() != null && version == allVersion) {
            all.update(built.differing(), rows); // updates in place: the table fills just these rows' cells anew
        } else {
            all.setAll(rows); // other files, many changes, or the rows changed meanwhile (settled): all at once
        }
        allVersion++;
        changedCount.set(built.changed());
        if (sel != null) {
            built.rows().stream().filter(r -> r.file().equals(sel.file())).findFirst().ifPresentOrElse(this::select, () -> select(null));
        }
        summary.set(built.summary());
    }

    private static ContractRow row(ContractFile f, Instant now, String parse, boolean changed) {
        Contract c = f.contract();
        String declared = c.leafId() == null ? "" : c.leafId();
        String state = switch (f.idShape()) {
            case CANONICAL -> "ok";
            case STEM -> "legacy id";
            case MISPLACED -> "misplaced id";
            case MISSING -> "no leaf id";
        };
        String problem = switch (f.idShape()) {
            case STEM -> "heal rewrites it to " + f.leafId();
            case MISPLACED -> "declares " + declared + "; its location says " + f.leafId();
            case MISSING -> "no leaf_id; heal sets " + f.leafId();
            default -> "";
        };
        String deadline = c.deadline() == null ? "" : DAY.format(c.deadline()) + (c.deadline().isBefore(now) ? " · overdue" : "");
        return new ContractRow(f.file(), declared, f.leafId(), state, nz(c.status()), nz(c.title()), deadline, problem, parse, changed);
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }

    private static String parentOf(String file) {
        int i = file.lastIndexOf('/');
        return i < 0 ? "" : file.substring(0, i);
    }

    /** Turns the last tick's change highlights off (the page calls it a moment after they appear). */
    public void settleChanges() {
        if (changedCount.get() == 0) {
            return;
        }
        // Only the changed rows: List.replaceAll on an ObservableList is one change event per row, and each made the
        // filtered list re-index all 10,000 (a 100 ms stall in kiln bench ui).
        if (changedCount.get() <= 64) {
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).changed()) {
                    all.update(i, all.get(i).settled());
                }
            }
        } else {
            all.setAll(all.stream().map(ContractRow::settled).toList());
        }
        allVersion++;
        changedCount.set(0);
    }

    /** Rows that changed in the last tick shown (highlighted until {@link #settleChanges()}). */
    public javafx.beans.property.ReadOnlyIntegerProperty changedCountProperty() {
        return changedCount.getReadOnlyProperty();
    }

    /**
     * Shows {@code row} in the details pane: its parse state, and its contract as the engine read it (the snapshot's
     * parse, written back as JSON, so it shows the same for a remote engine), cut at {@link #DETAILS_LIMIT}
     * characters. A file that failed shows why. {@code null} clears it.
     */
    public void select(ContractRow row) {
        selected.set(row);
        if (row == null || shownSnapshot == null) {
            details.set("");
            return;
        }
        ContractSnapshot s = shownSnapshot;
        String text = s.contracts().stream().filter(f -> f.file().equals(row.file())).findFirst()
                .map(f -> new String(ContractCodec.write(f.contract()), java.nio.charset.StandardCharsets.UTF_8))
                .orElseGet(() -> s.failures().stream().filter(f -> f.path().equals(row.file())).findFirst()
                        .map(f -> "(" + (f.isDirectory() ? "a directory" : "not parsed") + ": " + f.reason() + ")")
                        .orElse("(" + row.file() + " is not in the snapshot any more)"));
        details.set(text.length() > DETAILS_LIMIT ? text.substring(0, DETAILS_LIMIT) + "\n… (" + text.length() + " characters, cut)" : text);
    }

    /** The row in the details pane, or {@code null}. */
    public ReadOnlyObjectProperty<ContractRow> selectedProperty() {
        return selected.getReadOnlyProperty();
    }

    /** The selected contract's file as it is on disk (its JSON, or what failed to parse). */
    public ReadOnlyStringProperty detailsProperty() {
        return details.getReadOnlyProperty();
    }

    /** Plans a heal (a dry run: nothing is written) and shows what it would change. */
    public void previewHeal() {
        notice.set("");
        background.run(() -> engine.projection().heal(false, ""), healPreview::set,
                e -> error.set("Heal preview failed: " + e.getMessage()));
    }

    /** Applies the heal the preview showed, then re-projects. Does nothing without a preview. */
    public void applyHeal() {
        if (healPreview.get() == null) {
            return;
        }
        healPreview.set(null);
        String key = java.util.UUID.randomUUID().toString(); // one per click: a retried request heals once
        background.run(() -> engine.projection().heal(true, key), report -> {
            notice.set("Healed " + report.changes().size() + " leaf ids"
                    + (report.misplaced().isEmpty() ? "" : "; " + report.misplaced().size() + " misplaced ids left for you to decide")
                    + (report.problems().isEmpty() ? "" : "; " + report.problems().size() + " files could not be rewritten"));
            refresh();
        }, e -> error.set("Heal failed: " + e.getMessage()));
    }

    public void cancelHeal() {
        healPreview.set(null);
    }

    private void applyFilter() {
        String needle = filter.get() == null ? "" : filter.get().strip().toLowerCase(Locale.ROOT);
        boolean flagged = flaggedOnly.get();
        shown.setPredicate(r -> (!flagged || r.flagged())
                && (needle.isEmpty() || (r.file() + " " + r.declaredId() + " " + r.state() + " " + r.status() + " " + r.title())
                        .toLowerCase(Locale.ROOT).contains(needle)));
        countMatches();
        ContractRow sel = selected.get();
        if (sel != null && !shown.contains(sel)) {
            select(null); // the filter hid it: the details pane does not keep a row the table no longer shows
        }
    }

    public ObservableList<ContractRow> rows() {
        return all;
    }

    public ObservableList<ContractRow> shownRows() {
        return shown;
    }

    public StringProperty filterProperty() {
        return filter;
    }

    /** Show only rows that need attention (legacy, misplaced, missing ids, unreadable). */
    public BooleanProperty flaggedOnlyProperty() {
        return flaggedOnly;
    }

    public ReadOnlyStringProperty summaryProperty() {
        return summary.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    /** The outcome of the last action, for a person. */
    public ReadOnlyStringProperty noticeProperty() {
        return notice.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty loadingProperty() {
        return loading.getReadOnlyProperty();
    }

    /** The planned heal awaiting confirmation, or {@code null}. */
    public ReadOnlyObjectProperty<HealReport> healPreviewProperty() {
        return healPreview.getReadOnlyProperty();
    }
}
