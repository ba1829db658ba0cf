package dev.kiln.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock the test moves by hand; its {@link #nanos()} moves with it, so one object serves as the wall clock and,
 * as {@code clock::nanos}, as the monotonic ticker of the code under test.
 *
 * <p>Concurrency: safe to read and move from any thread.
 */
public final class MutableClock extends Clock {
    private final AtomicReference<Instant> now;
    private final Instant origin;

    public MutableClock(Instant start) {
        now = new AtomicReference<>(start);
        origin = start;
    }

    /** Moves the clock forward (or back, with a negative duration). */
    public void advance(Duration d) {
        now.updateAndGet(i -> i.plus(d));
    }

    /** Sets the clock to {@code t}. */
    public void set(Instant t) {
        now.set(t);
    }

    /** Nanoseconds since the start instant: a ticker reading that follows {@link #advance}. */
    public long nanos() {
        return Duration.between(origin, now.get()).toNanos();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now.get();
    }
}
