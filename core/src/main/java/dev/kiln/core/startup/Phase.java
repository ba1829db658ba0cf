package dev.kiln.core.startup;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The phases of one server's startup, between the steps its {@link Timeline} records. The first two are where a
 * client's startup timeout goes: {@link #START} (interpreter start and imports — what precompiled bytecode shortens)
 * and {@link #WORK} (what the server does after it first spoke and before it answers: network calls, credential
 * checks, schema building — what bytecode cannot touch).
 */
public enum Phase {
    /** Spawn → a fetching launcher ({@code npx}, {@code uvx}, …) handed off to the server: resolve, download, install. */
    FETCH("fetch (package manager)", t -> t.fetchEndMs() == null ? null : t.spawnMs(), t -> t.fetchEndMs()),
    /** Spawn (or the launcher's hand-off) → the server's first byte on stdout or stderr. */
    START("before first output", t -> t.fetchEndMs() != null ? t.fetchEndMs() : t.spawnMs(), Phase::firstOutput),
    /** First output → the handshake's answer. */
    WORK("first output to answer", Phase::firstOutput, t -> t.initializedMs()),
    /** The answer → {@code tools/list} answered. */
    TOOLS("tools/list", t -> t.initializedMs(), t -> t.toolsListedMs()),
    /** Tools listed (or the last step seen) → exit. */
    SHUTDOWN("to exit", t -> t.toolsListedMs() != null ? t.toolsListedMs() : t.initializedMs(), t -> t.exitMs());

    /** The share of the time to the answer, spent before the first output, above which a server counts as import-bound. */
    static final double IMPORT_BOUND_SHARE = 0.5;

    private final String label;
    private final Function<Timeline, @Nullable Double> from;
    private final Function<Timeline, @Nullable Double> to;

    Phase(String label, Function<Timeline, @Nullable Double> from, Function<Timeline, @Nullable Double> to) {
        this.label = label;
        this.from = from;
        this.to = to;
    }

    /** For people: {@code before first output}, {@code first output to answer}, … */
    public String label() {
        return label;
    }

    /** The phase as an interval of {@code t} (ms after the probe's release), or null when a bound step is missing. */
    public @Nullable Segment in(Timeline t) {
        Double a = from.apply(t);
        Double b = to.apply(t);
        return a == null || b == null || b < a ? null : new Segment(this, a, b);
    }

    /** One phase of one timeline: {@code [fromMs, toMs]} after the probe's release. */
    public record Segment(Phase phase, double fromMs, double toMs) {
        public double ms() {
            return toMs - fromMs;
        }
    }

    /** Every phase of {@code t} that happened, in order. */
    public static List<Segment> segments(Timeline t) {
        List<Segment> out = new ArrayList<>();
        for (Phase p : values()) {
            Segment s = p.in(t);
            if (s != null) {
                out.add(s);
            }
        }
        return out;
    }

    private static @Nullable Double firstOutput(Timeline t) {
        Double o = t.firstStdoutMs();
        Double e = t.firstStderrMs();
        Double first = o == null ? e : e == null ? o : Double.valueOf(Math.min(o, e)); // boxed: no unboxing of a null
        // Output after the answer (a late banner) is not the end of the imports; the answer is.
        if (first != null && t.initializedMs() != null && first > t.initializedMs()) {
            return t.initializedMs();
        }
        return first;
    }

    /** Where a server's time to its answer went. */
    public enum Bound {
        /** Most of it in the launcher before the server ran: a package fetch; a seed removes it. */
        FETCH,
        /** Most of it before the first output: interpreter start and imports; bytecode can help. */
        IMPORTS,
        /** Most of it after the first output: work before answering; bytecode cannot help that part. */
        WORK,
        /** It never answered (or never spoke): nothing to attribute. */
        UNKNOWN;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The attribution of one server's time to its answer.
     *
     * @param startMs spawn (or the launcher's hand-off) → first output, or null
     * @param workMs first output → answer, or null
     * @param bound where most of it went
     * @param fetchMs spawn → a fetching launcher's hand-off, or null (none, or not seen)
     * @param launcher what started the server: its runtime decides the advice
     */
    public record Attribution(@Nullable Double startMs, @Nullable Double workMs, Bound bound, @Nullable Double fetchMs,
            Launcher launcher, FetchPhase.Downloaded downloaded) {
        public Attribution(@Nullable Double startMs, @Nullable Double workMs, Bound bound) {
            this(startMs, workMs, bound, null, Launcher.OTHER, FetchPhase.Downloaded.UNKNOWN);
        }

        /** A seed helps only where something was downloaded; a run from the cache has the package manager left. */
        private String fetchAdvice() {
            return downloaded == FetchPhase.Downloaded.NO && launcher.fetches() ? "nothing was downloaded (it ran from"
                    + " its cache): what is left is the package manager itself, which a seed's installed form skips"
                    + " (node ENTRY or the tool's own executable: kiln warm --servers prints it)" : launcher.fetchAdvice();
        }

        /** One plain sentence for the report. */
        public String explain() {
            String fetchNote = fetchMs == null ? launcher.fetches()
                    ? "; time in " + launcher.label() + " before the server ran: unknown (no hand-off seen)" : ""
                    : String.format(Locale.ROOT, "; %.0f ms of it in %s before the server ran: %s", fetchMs,
                            launcher.label(), fetchAdvice());
            return explainPhases() + (bound == Bound.FETCH ? "" : fetchNote);
        }

        private String explainPhases() {
            Double start = startMs;
            Double work = workMs;
            // attribute() gives a bound other than UNKNOWN only with both phases (and FETCH only with a fetch)
            if (bound == Bound.UNKNOWN || start == null || work == null) {
                return start == null ? "no output and no answer: nothing to attribute"
                        : String.format(Locale.ROOT, "%.0f ms before its first output; no answer to attribute the rest",
                                start);
            }
            double fetch = fetchMs == null ? 0 : fetchMs;
            double total = fetch + start + work; // the whole time to the answer
            if (bound == Bound.FETCH) {
                return String.format(Locale.ROOT, "%.0f of %.0f ms in %s before the server ran (the package manager:"
                        + " resolving, fetching, installing): %s", fetch, total, launcher.label(),
                        fetchAdvice());
            }
            if (bound == Bound.IMPORTS) {
                String advice = launcher.importAdvice();
                return String.format(Locale.ROOT, "%.0f of %.0f ms before its first output (interpreter start and imports)%s",
                        start, total, advice.isEmpty() ? "" : ": " + advice);
            }
            return String.format(Locale.ROOT, "%.0f of %.0f ms after its first output, before answering (network calls,"
                    + " credential checks, schema building): precompiling cannot help, its time is spent after its imports",
                    work, total);
        }
    }

    /** Attributes {@code t}'s time to the answer to the phase before the first output and the one after it. */
    public static Attribution attribute(Timeline t) {
        return attribute(t, Launcher.OTHER);
    }

    /** The same, with the advice of {@code launcher}'s runtime (none invented for one Kiln does not know). */
    public static Attribution attribute(Timeline t, Launcher launcher) {
        return attribute(t, launcher, FetchPhase.Downloaded.UNKNOWN);
    }

    /** The same, knowing whether the launcher downloaded anything (its advice differs when it did not). */
    public static Attribution attribute(Timeline t, Launcher launcher, FetchPhase.Downloaded downloaded) {
        Segment fetch = FETCH.in(t);
        Segment start = START.in(t);
        Segment work = WORK.in(t);
        Double fetchMs = fetch == null ? null : fetch.ms();
        if (start == null || work == null || t.initializedMs() == null) {
            return new Attribution(start == null ? null : start.ms(), null, Bound.UNKNOWN, fetchMs, launcher, downloaded);
        }
        double f = fetchMs == null ? 0 : fetchMs;
        double total = f + start.ms() + work.ms();
        Bound b = f > 0 && f / total >= IMPORT_BOUND_SHARE ? Bound.FETCH
                : total <= 0 || (f + start.ms()) / total >= IMPORT_BOUND_SHARE ? Bound.IMPORTS : Bound.WORK;
        return new Attribution(start.ms(), work.ms(), b, fetchMs, launcher, downloaded);
    }
}
