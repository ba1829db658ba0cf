package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code kiln attach}'s refusals, before any window: the same messages as {@code kiln status} (the window itself is
 * FleetPageTest's).
 */
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

    @Test
    void attach_aBadPin_exit2() {
        CliRun r = CliRun.kiln("attach", "https://127.0.0.1:1/", "--pin", "abc");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("64 hex digits");
    }
}
