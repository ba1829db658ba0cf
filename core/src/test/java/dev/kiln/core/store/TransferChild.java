package dev.kiln.core.store;

import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import java.nio.file.Path;

/**
 * A child JVM that pushes or pulls one seed and is killed by {@link KilledTransferTest} while it does:
 * {@code push|pull WORKSPACE TARGET}, credentials from its environment (the AWS chain). Prints {@code moving} as the
 * transfer starts and {@code done} after.
 */
public final class TransferChild {
    private TransferChild() {
    }

    public static void main(String[] args) throws Exception {
        Path ws = Path.of(args[1]);
        SeedCaches seeds = SeedCaches.of(ws);
        try (ObjectStore s = ObjectStore.builder(StoreConfig.read(ws).orElseThrow()).build()) {
            System.out.println("moving");
            System.out.flush();
            Transfer t = args[0].equals("push") ? s.pushSeed(seeds, args[2]) : s.pullSeed(seeds, args[2], Cancellation.create());
            System.out.println("done " + t.outcome().wire());
        }
    }
}
