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
 */
public record Lane(String server, double timeoutMs, Double spawnMs, Double firstOutputMs, Double initializedMs, Double toolsMs,
        int tools, String outcome, String detail) {

    static Lane waiting(String server, double timeoutMs) {
        return new Lane(server, timeoutMs, null, null, null, null, -1, "", "");
    }

    Lane spawned(double ms) {
        return new Lane(server, timeoutMs, ms, firstOutputMs, initializedMs, toolsMs, tools, outcome, detail);
    }

    Lane firstOutput(double ms) {
        return firstOutputMs != null ? this : new Lane(server, timeoutMs, spawnMs, ms, initializedMs, toolsMs, tools, outcome, detail);
    }

    Lane initialized(double ms) {
        return new Lane(server, timeoutMs, spawnMs, firstOutputMs, ms, toolsMs, tools, outcome, detail);
    }

    Lane toolsListed(double ms, int count) {
        return new Lane(server, timeoutMs, spawnMs, firstOutputMs, initializedMs, ms, count, outcome, detail);
    }

    Lane finished(String how, String why) {
        return new Lane(server, timeoutMs, spawnMs, firstOutputMs, initializedMs, toolsMs, tools, how, why);
    }

    /** Whether the server answered {@code initialize} inside its timeout. */
    public boolean inTime() {
        return initializedMs != null && initializedMs - (spawnMs == null ? 0 : spawnMs) <= timeoutMs;
    }
}
