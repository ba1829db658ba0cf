package dev.kiln.ui.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A card's reason line: short reasons whole; long ones, or ones with a path that could only be cut, by their head. */
class CardLineTest {
    @Test
    void line_shortReasonOfWords_whole() {
        assertThat(HealthCards.line("no projection yet (starting)")).isEqualTo("no projection yet (starting)");
        assertThat(HealthCards.line("1 seed stale: demo (kiln warm)")).isEqualTo("1 seed stale: demo (kiln warm)");
    }

    @Test
    void line_pathInIt_theHead_keepingHowManyMore() {
        assertThat(HealthCards.line("1 contract failed: tasks/area-2/leaf-03/contract.json")).isEqualTo("1 contract failed\u00a0…");
        assertThat(HealthCards.line("2 contracts failed: tasks/a/contract.json, tasks/b/leaf-04/contract.json (+2 more)"))
                .isEqualTo("2 contracts failed\u00a0… (+2 more)");
    }

    @Test
    void line_longWithoutAHead_cutAtAWordWithinTheBound() {
        String reason = "the last projection is 46 s old, more than 3 heartbeats (15 s each), and nothing has moved since then at all";
        String line = HealthCards.line(reason);
        assertThat(line).endsWith("\u00a0…").hasSizeLessThanOrEqualTo(HealthCards.LINE + 2);
        assertThat(reason).startsWith(line.substring(0, line.length() - 2));
    }
}
