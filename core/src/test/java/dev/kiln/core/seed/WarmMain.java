package dev.kiln.core.seed;

import java.nio.file.Path;

/**
 * A warm in a process of its own, through the public API: the tests kill it mid-flight, and run it with a
 * planted secret in its real environment. Prints one line per event, then the outcome.
 */
public final class WarmMain {
    private WarmMain() {
    }

    public static void main(String[] args) {
        SeedCaches seeds = SeedCaches.builder(Path.of(args[0]))
                .events(e -> System.out.println("event " + e.summary()))
                .build();
        WarmResult r = seeds.warm(args[1], Cancellation.create());
        System.out.println("outcome " + r.outcome().label() + " " + r.message());
        System.exit(r.outcome().isSuccess() ? 0 : 1);
    }
}
