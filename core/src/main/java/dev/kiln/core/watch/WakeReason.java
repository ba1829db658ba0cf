package dev.kiln.core.watch;

import java.util.Locale;

/** Why a projection tick ran; every tick records one, and the daemon counts them per reason. */
public enum WakeReason {
    /** The first tick after the daemon started (a full enumeration). */
    STARTUP,
    /** The watcher reported a change to an input. */
    CHANGE,
    /** Nothing changed for a heartbeat; re-evaluates time-derived fields (overdue, stale engine pids). */
    HEARTBEAT,
    /** An operator asked ({@code POST /api/project}). */
    MANUAL,
    /** The watch is down: the fixed interval stands in for change events. */
    DEGRADED,
    /** The watch was (re)established: inotify has no replay, so one full enumeration catches up. */
    RECONCILE;

    /** The lower-case name used in JSON and logs. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
