package dev.kiln.ui.seeds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmResult;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A target's state from its seed and its last warm: the pure derivation behind the Seeds table. */
class SeedStateTest {
    private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");
    private static final String NOW = "a".repeat(64);
    private static final String OLD = "b".repeat(64);

    private static SeedInfo seed(Optional<String> seededFor, Optional<String> lockNow, Optional<String> problem) {
        return new SeedInfo("api", Path.of("/ws/seeds/api"), seededFor.isPresent(), seededFor, lockNow, Optional.of("uv 0.13"),
                seededFor.map(h -> T), seededFor.map(h -> Duration.ofSeconds(2)), 1 << 20, 10, 3, problem);
    }

    private static Optional<WarmResult> last(WarmOutcome outcome, String hash, String message) {
        return Optional.of(new WarmResult("api", outcome, hash, T, Duration.ofSeconds(1), 0, 0, message, List.of()));
    }

    @Test
    void seededForTheLockfileNow_isFresh() {
        assertThat(SeedState.of(seed(Optional.of(NOW), Optional.of(NOW), Optional.empty()), Optional.empty()))
                .isEqualTo(new SeedState.Status(SeedState.FRESH, ""));
    }

    @Test
    void seededForAnotherLockfile_isStale_sayingBothHashes() {
        SeedState.Status s = SeedState.of(seed(Optional.of(OLD), Optional.of(NOW), Optional.empty()), Optional.empty());
        assertThat(s.state()).isEqualTo(SeedState.STALE);
        assertThat(s.reason()).isEqualTo("seed for lockfile bbbbbbbbbbbb, lockfile now aaaaaaaaaaaa");
        assertThat(s.state().wantsWarm()).isTrue();
    }

    @Test
    void noSeed_isNeverWarmed() {
        SeedState.Status s = SeedState.of(seed(Optional.empty(), Optional.of(NOW), Optional.empty()), Optional.empty());
        assertThat(s.state()).isEqualTo(SeedState.NEVER);
        assertThat(s.state().label()).isEqualTo("never warmed");
        assertThat(s.state().wantsWarm()).isTrue();
    }

    @Test
    void lastWarmFailedForThisLockfile_isFailedWithItsMessage() {
        SeedState.Status s = SeedState.of(seed(Optional.of(OLD), Optional.of(NOW), Optional.empty()),
                last(WarmOutcome.FAILED, NOW, "uv was not found on PATH. Install it"));
        assertThat(s).isEqualTo(new SeedState.Status(SeedState.FAILED, "uv was not found on PATH. Install it"));
        assertThat(s.state().wantsWarm()).isFalse();
        assertThat(SeedState.of(seed(Optional.empty(), Optional.of(NOW), Optional.empty()),
                last(WarmOutcome.NEEDS_BUILD, NOW, "needs a build")).state()).isEqualTo(SeedState.FAILED);
    }

    @Test
    void failureForAnEarlierLockfile_isNoLongerTheState() {
        assertThat(SeedState.of(seed(Optional.of(OLD), Optional.of(NOW), Optional.empty()), last(WarmOutcome.FAILED, OLD, "x")).state())
                .isEqualTo(SeedState.STALE);
    }

    @Test
    void failureThenASuccessfulWarm_isFresh() {
        assertThat(SeedState.of(seed(Optional.of(NOW), Optional.of(NOW), Optional.empty()), last(WarmOutcome.FAILED, NOW, "x")).state())
                .isEqualTo(SeedState.FRESH);
    }

    @Test
    void cancelledWarm_leavesTheStateItFound_andSaysSo() {
        SeedState.Status s = SeedState.of(seed(Optional.empty(), Optional.of(NOW), Optional.empty()), last(WarmOutcome.CANCELLED, NOW, "cancelled"));
        assertThat(s.state()).isEqualTo(SeedState.NEVER);
        assertThat(s.reason()).endsWith("the last warm was cancelled");
    }

    @Test
    void unreadableTarget_isFailedWithTheProblem() {
        SeedState.Status s = SeedState.of(seed(Optional.of(OLD), Optional.empty(), Optional.of("targets/api/uv.lock is missing")), Optional.empty());
        assertThat(s).isEqualTo(new SeedState.Status(SeedState.FAILED, "target unreadable: targets/api/uv.lock is missing"));
    }

    @Test
    void bars_lastWarmsOldestFirst_labelsMadeUnique() {
        List<WarmResult> journal = List.of(
                last(WarmOutcome.WARMED, NOW, "a").orElseThrow(),
                last(WarmOutcome.FAILED, NOW, "b").orElseThrow(),
                last(WarmOutcome.UNCHANGED, NOW, "c").orElseThrow());
        List<SeedsViewModel.WarmBar> bars = SeedsViewModel.bars(journal, 2);
        assertThat(bars).extracting(SeedsViewModel.WarmBar::outcome).containsExactly(WarmOutcome.FAILED, WarmOutcome.UNCHANGED);
        assertThat(bars.get(1).label()).isEqualTo(bars.get(0).label() + " (2)");
        assertThat(bars.get(0).seconds()).isEqualTo(1.0);
    }
}
