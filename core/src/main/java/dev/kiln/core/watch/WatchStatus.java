package dev.kiln.core.watch;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * Whether the workspace is watched, and if not, why. The state document shows it as
 * {@code watch: live | degraded (reason, since)}; a partial watch is live, with a note.
 *
 * @param live whether change events drive the projection
 * @param reason why the watch is degraded; empty when live
 * @param since when the watch entered this state
 * @param roots the directories watched recursively (empty when degraded)
 * @param watchedDirectories inotify watches this watch holds (one per directory)
 * @param inotifyLimit {@code /proc/sys/fs/inotify/max_user_watches} (or the injected limit), or -1 where unknown
 * @param polledDirectories directories not watched because the watch limit is too low, found by a periodic stat
 *     walk instead (0 when everything is watched)
 * @param note for a partial watch: what is polled, how often, and the exact {@code sysctl} that would let
 *     everything be watched; empty otherwise
 */
public record WatchStatus(boolean live, String reason, Instant since, List<Path> roots, int watchedDirectories,
        long inotifyLimit, int polledDirectories, String note) {

    public WatchStatus {
        roots = List.copyOf(roots);
    }

    /** A status without a partial watch. */
    public WatchStatus(boolean live, String reason, Instant since, List<Path> roots, int watchedDirectories,
            long inotifyLimit) {
        this(live, reason, since, roots, watchedDirectories, inotifyLimit, 0, "");
    }

    static WatchStatus degraded(String reason, Instant since, long inotifyLimit) {
        return new WatchStatus(false, reason, since, List.of(), 0, inotifyLimit);
    }

    /** {@code live} or {@code degraded}. */
    public String mode() {
        return live ? "live" : "degraded";
    }

    /** Whether part of the tree is polled instead of watched (the watch limit is too low for all of it). */
    public boolean partial() {
        return live && polledDirectories > 0;
    }

    @Override
    public String toString() {
        if (!live) {
            return "degraded since " + since + ": " + reason;
        }
        String s = "live on " + watchedDirectories + " directories (inotify limit " + inotifyLimit + ")";
        return partial() ? s + "; partial: " + note : s;
    }
}
