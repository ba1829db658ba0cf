package dev.kiln.core.startup;

import dev.kiln.core.telemetry.KilnEvent;
import java.time.Instant;

/**
 * A step of a startup probe, published as it happens so the console can draw timelines live. Offsets are
 * milliseconds after the probe released all servers of the run at once.
 */
public sealed interface ProbeEvent extends KilnEvent {

    /** The server this step belongs to ({@code ""} for probe-wide events). */
    String server();

    /** Which run of the probe (1-based). */
    int run();

    /** A run is starting: {@code servers} are about to be released at once. */
    record RunStarted(Instant at, int run, int runs, int servers) implements ProbeEvent {
        @Override
        public String server() {
            return "";
        }

        @Override
        public String summary() {
            return "probe run " + run + "/" + runs + ": starting " + servers + " servers at once";
        }
    }

    /** The server's process was started (HTTP: its first request was sent). */
    record Spawned(Instant at, String server, int run, double offsetMs, long pid) implements ProbeEvent {
        @Override
        public String summary() {
            return server + ": spawned" + (pid > 0 ? " (pid " + pid + ")" : "") + " at " + ms(offsetMs);
        }
    }

    /** The server's first byte on stdout or stderr. */
    record FirstOutput(Instant at, String server, int run, double offsetMs, boolean stderr) implements ProbeEvent {
        @Override
        public String summary() {
            return server + ": first " + (stderr ? "stderr" : "stdout") + " byte at " + ms(offsetMs);
        }
    }

    /** The server answered {@code initialize}: the moment a client's startup timeout is measured against. */
    record Initialized(Instant at, String server, int run, double offsetMs, double initializeMs, String protocolVersion)
            implements ProbeEvent {
        @Override
        public String summary() {
            return server + ": initialized in " + ms(initializeMs) + " (protocol " + protocolVersion + ")";
        }
    }

    /** The server listed its tools (all pages). */
    record ToolsListed(Instant at, String server, int run, double offsetMs, int tools) implements ProbeEvent {
        @Override
        public String summary() {
            return server + ": " + tools + " tools listed at " + ms(offsetMs);
        }
    }

    /** The server's process ended (by itself or because the probe ended it). */
    record Exited(Instant at, String server, int run, double offsetMs, int exitCode) implements ProbeEvent {
        @Override
        public String summary() {
            return server + ": exited with code " + exitCode + " at " + ms(offsetMs);
        }
    }

    /** The server's startup is decided. */
    record Finished(Instant at, String server, int run, ServerResult result) implements ProbeEvent {
        @Override
        public String summary() {
            return server + ": " + result.outcomeText() + (result.reason().isEmpty() ? "" : " — " + result.reason());
        }
    }

    private static String ms(double v) {
        return String.format(java.util.Locale.ROOT, "%.1f ms", v);
    }
}
