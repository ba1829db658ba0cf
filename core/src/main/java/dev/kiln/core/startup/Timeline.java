package dev.kiln.core.startup;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * When each step of one server's startup happened, in milliseconds after the probe released all servers at once;
 * null where the step never happened.
 *
 * @param spawnMs the process was started (HTTP: the first request was sent)
 * @param firstStdoutMs its first byte on stdout (HTTP: the first response)
 * @param firstStderrMs its first byte on stderr (HTTP: never)
 * @param initializedMs the {@code initialize} (or {@code server/discover}) answer arrived
 * @param toolsListedMs the last {@code tools/list} page arrived
 * @param exitMs the process was seen to end (HTTP: the session was closed)
 * @param fetchEndMs a fetching launcher ({@link Launcher}) handed off to the server; null when there was none or it
 *     was not seen (then the fetch phase is unknown, never guessed)
 */
public record Timeline(@Nullable Double spawnMs, @Nullable Double firstStdoutMs, @Nullable Double firstStderrMs,
        @Nullable Double initializedMs, @Nullable Double toolsListedMs, @Nullable Double exitMs, @Nullable Double fetchEndMs) {

    /** A timeline without a fetch phase. */
    public Timeline(@Nullable Double spawnMs, @Nullable Double firstStdoutMs, @Nullable Double firstStderrMs,
            @Nullable Double initializedMs, @Nullable Double toolsListedMs, @Nullable Double exitMs) {
        this(spawnMs, firstStdoutMs, firstStderrMs, initializedMs, toolsListedMs, exitMs, null);
    }

    /**
     * True when the steps that happened are in their causal order: spawn ≤ fetch end ≤ first stdout ≤ initialized ≤ tools listed
     * ≤ exit, and spawn ≤ first stderr ≤ exit.
     */
    public boolean isOrdered() {
        return ascending(spawnMs, fetchEndMs, firstStdoutMs, initializedMs, toolsListedMs, exitMs)
                && ascending(spawnMs, fetchEndMs, firstStderrMs, exitMs);
    }

    private static boolean ascending(@Nullable Double... steps) {
        List<Double> seen = new ArrayList<>();
        for (Double s : steps) {
            if (s != null) {
                seen.add(s);
            }
        }
        for (int i = 1; i < seen.size(); i++) {
            if (seen.get(i) < seen.get(i - 1)) {
                return false;
            }
        }
        return true;
    }
}
