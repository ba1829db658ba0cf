package dev.kiln.ui.startup;

/**
 * One server's row of the timeline chart, in milliseconds from the probe's start; {@code null} for a step not
 * (yet) reached.
 *
 * @param server the server's name
 * @param timeoutMs the startup timeout it is held to
 * @param spawnMs started
 * @param firstOutputMs first byte on stdout or stderr
 * @param initializedMs answered {@code initialize}: the number that matters
 * @param toolsMs tools listed
 * @param tools tools listed, or -1
 * @param outcome {@code ok}, {@code timeout}, … once finished; empty while running
 * @param detail the outcome's reason, for the tooltip and the table
 * @param exitMs the process ended (HTTP: the session closed)
 * @param fetchEndMs a fetching launcher ({@code npx}, {@code uvx}) handed off to the server, or null (none, or unseen)
 * @param launcher what started the server ({@link dev.kiln.core.startup.Launcher#OTHER} until known): its advice
 * @param fetchNote the fetch phase's evidence, for the tooltip (empty when none)
 */
public record Lane(String server, double timeoutMs, Double spawnMs, Double firstOutputMs, Double initializedMs, Double toolsMs,
        int tools, String outcome, String detail, Double exitMs, Double fetchEndMs, dev.kiln.core.startup.Launcher launcher,
        String fetchNote) {

    Lane(String server, double timeoutMs, Double spawnMs, Double firstOutputMs, Double initializedMs, Double toolsMs,
            int tools, String outcome, String detail, Double exitMs) {
        this(server, timeoutMs, spawnMs, firstOutputMs, initializedMs, toolsMs, tools, outcome, detail, exitMs, null,
                dev.kiln.core.startup.Launcher.OTHER, "");
    }

    static Lane waiting(String server, double timeoutMs) {
        return new Lane(server, timeoutMs, null, null, null, null, -1, "", "", null);
    }

    /** The lane with what the finished result says about its launcher's fetch phase. */
    Lane fetched(dev.kiln.core.startup.ServerResult r) {
        dev.kiln.core.startup.FetchPhase f = r.fetch();
        if (f == null) {
            return this;
        }
        return new Lane(server, timeoutMs, spawnMs, firstOutputMs, initializedMs, toolsMs, tools, outcome, detail, exitMs,
                r.timeline().fetchEndMs(), f.launcher(), f.launcher().fetches() ? f.explain() : "");
    }

    /**
     * The word inside the fetch segment: "fetch", or "fetch · cached" when the launcher downloaded nothing (a seeded
     * run: its time is the package manager itself), so a cold lane and a seeded one differ in words, not length alone.
     */
    String fetchWord() {
        return fetchNote.contains("downloaded no ") || fetchNote.contains("nothing downloaded") ? "fetch · cached" : "fetch";
    }

    /** A server of a saved run (its representative run). */
    static Lane fromSaved(dev.kiln.core.startup.SavedProbeRun.Server s) {
        dev.kiln.core.startup.SavedProbeRun.Result r = s.representative();
        dev.kiln.core.startup.Timeline t = r.timeline();
        Double out = t.firstStdoutMs();
        Double err = t.firstStderrMs();
        Double first = out == null ? err : err == null ? out : Double.valueOf(Math.min(out, err));
        dev.kiln.core.startup.SavedProbeRun.Fetch f = r.fetch();
        return new Lane(r.name(), r.timeoutMs(), t.spawnMs(), first, t.initializedMs(), t.toolsListedMs(), r.tools(), r.outcome(),
                r.reason(), t.exitMs(), t.fetchEndMs(), f == null ? dev.kiln.core.startup.Launcher.OTHER : f.launcher(),
                f == null ? "" : f.note());
    }

    /** The lane with its server's own timeout (a probe's result says it; a lane made from events alone guessed it). */
    Lane timeout(double ms) {
        return ms == timeoutMs ? this
                : new Lane(server, ms, spawnMs, firstOutputMs, initializedMs, toolsMs, tools, outcome, detail, exitMs, fetchEndMs, launcher, fetchNote);
    }

    Lane spawned(double ms) {
        return new Lane(server, timeoutMs, ms, firstOutputMs, initializedMs, toolsMs, tools, outcome, detail, exitMs, fetchEndMs, launcher, fetchNote);
    }

    /** The earlier of stdout's and stderr's first byte: their events come from two reader threads, in either order. */
    Lane firstOutput(double ms) {
        return firstOutputMs != null && firstOutputMs <= ms ? this
                : new Lane(server, timeoutMs, spawnMs, ms, initializedMs, toolsMs, tools, outcome, detail, exitMs, fetchEndMs, launcher, fetchNote);
    }

    Lane initialized(double ms) {
        return new Lane(server, timeoutMs, spawnMs, firstOutputMs, ms, toolsMs, tools, outcome, detail, exitMs, fetchEndMs, launcher, fetchNote);
    }

    Lane toolsListed(double ms, int count) {
        return new Lane(server, timeoutMs, spawnMs, firstOutputMs, initializedMs, ms, count, outcome, detail, exitMs, fetchEndMs, launcher, fetchNote);
    }

    Lane exited(double ms) {
        return new Lane(server, timeoutMs, spawnMs, firstOutputMs, initializedMs, toolsMs, tools, outcome, detail, ms, fetchEndMs, launcher, fetchNote);
    }

    Lane finished(String how, String why) {
        return new Lane(server, timeoutMs, spawnMs, firstOutputMs, initializedMs, toolsMs, tools, how, why, exitMs, fetchEndMs, launcher, fetchNote);
    }

    /** The lane as a core timeline, for {@link dev.kiln.core.startup.Phase}. */
    dev.kiln.core.startup.Timeline timeline() {
        return new dev.kiln.core.startup.Timeline(spawnMs, firstOutputMs, null, initializedMs, toolsMs, exitMs, fetchEndMs);
    }

    /** The phases drawn as segments of this lane, in order. */
    java.util.List<dev.kiln.core.startup.Phase.Segment> segments() {
        return dev.kiln.core.startup.Phase.segments(timeline()).stream()
                .filter(seg -> seg.phase() != dev.kiln.core.startup.Phase.SHUTDOWN).toList();
    }

    /** Whether the server answered {@code initialize} inside its timeout. */
    public boolean inTime() {
        return initializedMs != null && initializedMs - (spawnMs == null ? 0 : spawnMs) <= timeoutMs;
    }
}
