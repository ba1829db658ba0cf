package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The conversation's stderr keeps the end of what a server wrote, bounded, and says when it cut. */
class StderrTailTest {

    @Test
    void text_underTheBound_isAllOfItUncut() {
        StderrTail t = new StderrTail(64);
        byte[] b = "ready\nlistening\n".getBytes(StandardCharsets.UTF_8);
        t.append(b, 0, b.length);
        assertThat(t.text()).isEqualTo("ready\nlistening\n");
        assertThat(t.truncated()).isFalse();
        assertThat(t.total()).isEqualTo(b.length);
    }

    @Test
    void text_overTheBound_keepsTheEndFromALineStartAndCountsEverything() {
        StderrTail t = new StderrTail(32);
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            byte[] line = ("line " + i + "\n").getBytes(StandardCharsets.UTF_8);
            t.append(line, 0, line.length);
            all.append("line ").append(i).append('\n');
        }
        assertThat(t.truncated()).isTrue();
        assertThat(t.total()).isEqualTo(all.length());
        assertThat(t.text()).endsWith("line 39\n").startsWith("line ").hasSizeLessThanOrEqualTo(32);
        assertThat(all.toString()).endsWith(t.text());
    }
}
