package dev.kiln.core.doctor;

import java.util.Locale;

/** Why a published projection differs from the disk: each names what the evidence showed and what usually helps. */
public enum Cause {
    /** No daemon holds the workspace's lock: nothing re-projects after a change. */
    NO_DAEMON("no kiln serve is running", "start the daemon: kiln serve DIR (or project once: kiln project DIR)"),
    /** A process holds {@code observer/serve.lock}, but no daemon API of this workspace answers. */
    LOCK_HELD_ELSEWHERE("another process holds the serve lock",
            "find the process holding observer/serve.lock and stop it, then start kiln serve DIR"),
    /** The daemon's last tick failed, or its write of state.json did. */
    TICK_FAILED("the daemon's last tick failed", "fix what the tick failed on (see the daemon's log), then Project now: kiln project DIR"),
    /** The watch is degraded: the daemon projects on its fixed interval and retries the watch. */
    WATCH_DEGRADED("the watch is degraded", "restart the watch (restart kiln serve DIR); Project now meanwhile: kiln project DIR"),
    /** The watch could not be set up because the inotify watch limit is too low. */
    INOTIFY_LIMIT("the inotify watch limit was reached",
            "raise the limit: sudo sysctl fs.inotify.max_user_watches=N (persist it in /etc/sysctl.d/), then restart kiln serve DIR"),
    /** The changed file's directory has no watch of the daemon: created or replaced after the watch registered it. */
    UNWATCHED_DIRECTORY("its directory is not watched (created or replaced after the watch was registered)",
            "Project now (kiln project DIR), then restart kiln serve DIR so the watch covers the directory again"),
    /** The directory is watched, but no event made the daemon tick after the change. */
    EVENT_LOST("the watch event was lost", "Project now (kiln project DIR); restart kiln serve DIR if it happens again"),
    /** A time-derived field (overdue, engine liveness) flipped; only the heartbeat re-projects it. */
    HEARTBEAT_PENDING("a time-derived field flipped and only the heartbeat refreshes it",
            "wait for the next heartbeat, or Project now: kiln project DIR (a shorter --heartbeat refreshes sooner)"),
    /** The heartbeat was due but did not run. */
    PROJECTOR_STALLED("the daemon's heartbeat did not run when due",
            "restart kiln serve DIR; check the system clock (timedatectl) if it jumped"),
    /** state.json was written by another process than the daemon that owns the workspace. */
    SECOND_WRITER("another process writes state.json",
            "stop the second writer: while kiln serve runs it is the only writer (kiln project asks it to project)"),
    /** The wall clock jumped (the published document is from the future, or the daemon's tick times run backwards). */
    CLOCK_JUMPED("the clock jumped", "check the system clock (timedatectl, NTP), then Project now: kiln project DIR"),
    /** The file was rewritten with its size and mtime pinned; only ctime shows it. Evidence, not a cause by itself. */
    PINNED_REWRITE("it was rewritten with size and mtime pinned (ctime moved)",
            "Project now: kiln project DIR (Kiln keys its cache on ctime too, so a tick sees such a rewrite)"),
    /** The change is moments old; the daemon's next tick covers it. */
    IN_FLIGHT("it changed moments ago and the daemon's next tick is due", "run kiln doctor again in a moment"),
    /** Nothing in the evidence explains it. */
    UNKNOWN("no evidence explains it", "Project now: kiln project DIR; if it stays stale, report kiln doctor --json");

    private final String phrase;
    private final String remedy;

    Cause(String phrase, String remedy) {
        this.phrase = phrase;
        this.remedy = remedy;
    }

    /** What happened, as the end of "stale because …". */
    public String phrase() {
        return phrase;
    }

    /** What usually helps; {@code DIR} stands for the workspace. */
    public String remedy() {
        return remedy;
    }

    /** The lower-case name used in JSON. */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
