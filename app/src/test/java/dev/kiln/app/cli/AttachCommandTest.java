package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.HostileDaemon;
import org.junit.jupiter.api.Test;

/**
 * {@code kiln attach}'s refusals, before any window: the same messages as {@code kiln status} (the window itself is
 * FleetPageTest's).
 */
@DaemonTest
class AttachCommandTest {
    @Test
    void attach_nothingListens_exit2() {
        CliRun r = CliRun.kiln("attach", "http://127.0.0.1:1/");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("nothing listens");
    }

    @Test
    void attach_aNameNotInTheList_exit2SayingWhatToGive() {
        CliRun r = CliRun.kiln("attach", "no-such-daemon-here");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("no daemon called no-such-daemon-here").contains("daemons.json").contains("give its URL");
    }

    /** #25 item 9: a gzip bomb printed raw stack traces and binary to the terminal. */
    @Test
    void attach_gzipBombHealth_exit2NamingTheBound_noBinaryNoStackTrace() throws Exception {
        try (HostileDaemon d = HostileDaemon.start().route("/api/v1/health", HostileDaemon.gzipBomb(256))) {
            CliRun r = CliRun.kiln("attach", d.url().toString());
            assertThat(r.exit()).isEqualTo(2);
            assertThat(r.err()).contains("the daemon at " + d.url()).contains("decompresses to more than 1 MiB")
                    .doesNotContain("\tat ").doesNotContain("Exception");
            assertThat(r.err().chars().filter(c -> c < 0x20 && c != '\n' || c == 0xFFFD).count()).as(r.err()).isZero();
        }
    }

    @Test
    void attach_aBadPin_exit2() {
        CliRun r = CliRun.kiln("attach", "https://127.0.0.1:1/", "--pin", "abc");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("64 hex digits");
    }
}
