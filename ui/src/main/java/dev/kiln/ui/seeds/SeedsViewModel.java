package dev.kiln.ui.seeds;

import dev.kiln.core.Kiln;
import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmPlan;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.util.Background;
import java.util.List;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The Seeds page: every target's seed (current, stale or missing), the warm history, and the actions: plan (a dry
 * run that writes nothing), warm with uv's output streaming live, and cancel.
 */
public final class SeedsViewModel {
    /** uv output lines kept for the running warm. */
    public static final int OUTPUT_LINES = 500;

    private final Kiln kiln;
    private final Background background;
    private final ObservableList<SeedInfo> seeds = FXCollections.observableArrayList();
    private final ObservableList<WarmResult> history = FXCollections.observableArrayList();
    private final ObservableList<String> output = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper warming = new ReadOnlyBooleanWrapper(false);
    private volatile Cancellation cancellation;

    public SeedsViewModel(Kiln kiln, Background background) {
        this.kiln = kiln;
        this.background = background;
    }

    /** Re-reads the seeds and the warm journal in the background. */
    public void refresh() {
        background.run(() -> new Object[] {kiln.seeds().seeds(), kiln.seeds().history()}, r -> {
            @SuppressWarnings("unchecked")
            List<SeedInfo> s = (List<SeedInfo>) r[0];
            @SuppressWarnings("unchecked")
            List<WarmResult> h = (List<WarmResult>) r[1];
            seeds.setAll(s);
            List<WarmResult> newestFirst = new java.util.ArrayList<>(h);
            java.util.Collections.reverse(newestFirst);
            history.setAll(newestFirst);
        }, e -> error.set("Could not read the seeds: " + e.getMessage()));
    }

    /** Takes one frame's events: uv's output of the running warm, and finished warms. */
    public void accept(List<? extends KilnEvent> batch) {
        boolean finished = false;
        for (KilnEvent e : batch) {
            if (e instanceof SeedEvent.WarmStarted s) {
                output.setAll("$ " + String.join(" ", s.command()));
            } else if (e instanceof SeedEvent.WarmOutput o) {
                output.add(o.line());
            } else if (e instanceof SeedEvent.WarmFinished) {
                finished = true;
            }
        }
        if (output.size() > OUTPUT_LINES) {
            output.remove(0, output.size() - OUTPUT_LINES);
        }
        if (finished) {
            refresh();
        }
    }

    /** Reports what a warm of {@code target} would do; writes nothing. */
    public void plan(String target) {
        if (target == null) {
            return;
        }
        error.set("");
        background.run(() -> kiln.seeds().plan(target), p -> message.set(describe(p)), e -> error.set(e.getMessage()));
    }

    static String describe(WarmPlan p) {
        String head = p.warmNeeded()
                ? p.target() + ": a warm is needed (lockfile " + shortHash(p.hash()) + ", seed "
                        + p.seededHash().map(SeedsViewModel::shortHash).orElse("none") + ")"
                : p.target() + ": the seed is current (lockfile " + shortHash(p.hash()) + "); a warm would run nothing";
        return head + (p.uvProblem().isPresent() ? " — " + p.uvProblem().get() : "") + "\n$ " + String.join(" ", p.command());
    }

    /** Warms {@code target} in the background; uv's output arrives as events. */
    public void warm(String target) {
        if (target == null || warming.get()) {
            return;
        }
        Cancellation c = Cancellation.create();
        cancellation = c;
        warming.set(true);
        error.set("");
        message.set("Warming " + target + "…");
        output.clear();
        background.run(() -> kiln.seeds().warm(target, c), r -> {
            warming.set(false);
            message.set(r.target() + ": " + r.outcome().label() + " — " + r.message());
            refresh();
        }, e -> {
            warming.set(false);
            error.set("Warm of " + target + " failed: " + e.getMessage());
            refresh();
        });
    }

    /** Cancels the running warm: uv's process tree is killed, the old seed stays. */
    public void cancel() {
        Cancellation c = cancellation;
        if (c != null) {
            c.cancel();
        }
    }

    static String shortHash(String hash) {
        return hash == null || hash.length() < 12 ? String.valueOf(hash) : hash.substring(0, 12);
    }

    public ObservableList<SeedInfo> seeds() {
        return seeds;
    }

    /** Newest first. */
    public ObservableList<WarmResult> history() {
        return history;
    }

    /** The running (or last) warm's command and output. */
    public ObservableList<String> output() {
        return output;
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty warmingProperty() {
        return warming.getReadOnlyProperty();
    }

    public String seedsDir() {
        return kiln.seeds().seedsDir().toString();
    }
}
