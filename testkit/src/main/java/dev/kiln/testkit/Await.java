package dev.kiln.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Waits for something a test caused on another thread. The patience is generous (machines are noisy) and only
 * bounds a failing test: a passing one returns as soon as the condition holds, and nothing asserts how long it took.
 */
public final class Await {
    /** How long a test waits for a condition before it fails. */
    public static final Duration PATIENCE = Duration.ofSeconds(20);
    /** The longest pause between two polls: what a passing test may lose to the polling, per wait. */
    private static final long MAX_PAUSE_MS = 16;

    private Await() {
    }

    /** Polls {@code condition} until it holds; fails naming {@code what} after {@link #PATIENCE}. */
    public static void await(String what, BooleanSupplier condition) throws InterruptedException {
        await(what, PATIENCE, condition);
    }

    /** Polls {@code condition} until it holds; fails naming {@code what} after {@code patience}. */
    public static void await(String what, Duration patience, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        long pause = 1;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("waited " + patience.toSeconds() + " s for: " + what);
            }
            Thread.sleep(pause);
            // Quick for what is nearly there, then at most every MAX_PAUSE: a condition that asks a daemon or runs a
            // kiln command polled every 2 ms for a minute kept a core busy while the thing it waited for needed it.
            pause = Math.min(pause * 2, MAX_PAUSE_MS);
        }
    }
}
