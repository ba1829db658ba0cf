package dev.kiln.core.projection;

import java.util.Locale;

/** Why a tick ran; recorded with every tick so an operator can see what drives the projection. */
public enum WakeReason {
    /** The first tick of a projector's life. */
    STARTUP,
    /** The watcher saw a change under the projection's inputs. */
    CHANGE,
    /** Nothing changed for a while; refresh time-derived fields (overdue, engine liveness). */
    HEARTBEAT,
    /** Someone asked (CLI, console, API). */
    MANUAL,
    /** The watcher is down; ticking on the fixed interval. */
    DEGRADED,
    /** The watch was (re)established or events may have been lost: a full enumeration catches up. */
    RECONCILE;

    /** The lower-case name used in JSON and logs. */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
