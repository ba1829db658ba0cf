package dev.kiln.core.watch;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * Whether the workspace is watched, and if not, why. The state document shows it as
 * {@code watch: live | degraded (reason, since)}.
 *
 * @param live whether change events drive the projection
 * @param reason why the watch is degraded; empty when live
 * @param since when the watch entered this state
 * @param roots the directories watched recursively (empty when degraded)
 * @param watchedDirectories inotify watches this watch holds (one per directory)
 * @param inotifyLimit {@code /proc/sys/fs/inotify/max_user_watches}, or -1 where unknown
 */
public record WatchStatus(boolean live, String reason, Instant since, List<Path> roots, int watchedDirectories,
        long inotifyLimit) {

    public WatchStatus {
        roots = List.copyOf(roots);
    }

    static WatchStatus degraded(String reason, Instant since, long inotifyLimit) {
        return new WatchStatus(false, reason, since, List.of(), 0, inotifyLimit);
    }

    /** {@code live} or {@code degraded}. */
    public String mode() {
        return live ? "live" : "degraded";
    }

    @Override
    public String toString() {
        return live ? "live on " + watchedDirectories + " directories (inotify limit " + inotifyLimit + ")"
                : "degraded since " + since + ": " + reason;
    }
}
