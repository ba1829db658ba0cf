package dev.kiln.ui.events;

import dev.kiln.core.archive.ArchiveEvent;
import dev.kiln.core.engine.EngineEvent;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.startup.Outcome;
import dev.kiln.core.startup.ProbeEvent;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.watch.WatchChanged;

/**
 * How much an event needs a person: shown on the Events page as a word and a colour (theme variables), never the
 * colour alone.
 */
public enum Severity {
    INFO("info"),
    WARNING("warning"),
    ERROR("error");

    private final String word;

    Severity(String word) {
        this.word = word;
    }

    /** The word shown: {@code info}, {@code warning}, {@code error}. */
    public String word() {
        return word;
    }

    /** The style class of its word ({@code kiln-severity-warning}…). */
    public String styleClass() {
        return "kiln-severity-" + word;
    }

    /**
     * The severity of {@code e}: a failed warm, archive build, action, probe server or store push / pull, and a tick whose state could
     * not be written, are errors; a cancelled one, a degraded watch, a lost daemon, a tick with unreadable contracts
     * and warm lines on stderr are warnings; the rest is information.
     */
    public static Severity of(KilnEvent e) {
        if (e instanceof TickFinished t) {
            return t.result().writeError() != null ? ERROR : t.result().failures() > 0 ? WARNING : INFO;
        }
        if (e instanceof WatchChanged w) {
            return w.status().live() ? INFO : WARNING;
        }
        if (e instanceof SeedEvent.WarmFinished f) {
            WarmOutcome o = f.result().outcome();
            return o == WarmOutcome.FAILED ? ERROR : o == WarmOutcome.CANCELLED ? WARNING : INFO;
        }
        if (e instanceof SeedEvent.WarmOutput o) {
            return o.stderr() ? WARNING : INFO;
        }
        if (e instanceof ArchiveEvent.BuildFailed) {
            return ERROR;
        }
        if (e instanceof EngineEvent.ActionFinished a) {
            return a.status() == EngineEvent.Status.FAILED ? ERROR : a.status() == EngineEvent.Status.CANCELLED ? WARNING : INFO;
        }
        if (e instanceof EngineEvent.ConnectionChanged c) {
            return c.connected() && !c.reset() ? INFO : WARNING;
        }
        if (e instanceof ProbeEvent.Finished f) {
            return f.result().outcome() == Outcome.OK ? INFO : ERROR;
        }
        if (e instanceof dev.kiln.core.store.StoreEvent s) {
            return s.phase() == dev.kiln.core.store.StoreEvent.Phase.FAILED ? ERROR : INFO; // a push or pull that failed
        }
        return INFO;
    }
}
