package dev.kiln.core.startup;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The part of a server's startup spent in a fetching launcher ({@code npx}, {@code uvx}, …) before the server's own
 * code ran, from evidence only: the launcher handing off to the server (its child process appeared), the
 * launcher's own output (npm's "will be installed" and {@code http fetch … (cache miss)}, uv's "Downloading /
 * Prepared / Installed"), the growth of its cache. Where Kiln cannot tell, it says so ({@link #fetchMs} null,
 * {@link Downloaded#UNKNOWN}) instead of guessing.
 *
 * @param launcher what started the server
 * @param fetchMs spawn → the launcher handed off to the server, or null when that was not seen
 * @param downloaded whether the launcher downloaded or built something this time
 * @param evidence how Kiln knows, for people
 */
public record FetchPhase(Launcher launcher, @Nullable Double fetchMs, Downloaded downloaded, String evidence) {

    /** Whether this start downloaded (or built) packages. */
    public enum Downloaded {
        YES, NO, UNKNOWN;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One sentence for the report. */
    public String explain() {
        String what = fetchMs == null ? "time in " + launcher.label() + " unknown"
                : String.format(Locale.ROOT, "%.0f ms in %s before the server ran", fetchMs, launcher.label());
        String dl = switch (downloaded) {
            case YES -> "it downloaded packages";
            case NO -> "nothing downloaded (from its cache)";
            case UNKNOWN -> "download unknown";
        };
        return what + "; " + dl + " (" + evidence + ")";
    }
}
