package dev.kiln.core.watch;

import dev.kiln.core.telemetry.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker the test moves by hand. */
final class FakeTicker implements Ticker {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long read() {
        return nanos.get();
    }

    FakeTicker advance(Duration d) {
        nanos.addAndGet(d.toNanos());
        return this;
    }

    FakeTicker advanceMillis(long ms) {
        return advance(Duration.ofMillis(ms));
    }
}
