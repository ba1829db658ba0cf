package dev.kiln.core.store;

import dev.kiln.core.seed.WarmResult;
import java.util.Optional;

/**
 * What {@link ObjectStore#warm} did for one target: took the store's copy, or warmed (and then pushed), or found the
 * seed current. Package-private: {@code kiln warm --pull} chains the same steps through the engine
 * ({@code storeStatus}, {@code pullSeed}, {@code warm}, {@code pushSeed}) so that a daemon runs them on its host.
 *
 * @param target the target
 * @param pulled the pull, when the store had the seed for the target's lockfile
 * @param warm the warm, when the store did not have it (or could not be asked)
 * @param pushed the push after a warm or of a current local seed the store lacked
 * @param storeProblem why the store could not be used, when it could not (the warm went on without it)
 */
record StoreWarm(String target, Optional<Transfer> pulled, Optional<WarmResult> warm, Optional<Transfer> pushed,
        Optional<String> storeProblem) {

    /** Whether the target has a current seed now. */
    boolean ok() {
        return pulled.isPresent() || warm.map(w -> w.outcome().isSuccess())
                .orElse(false);
    }

    /** One line for people. */
    String message() {
        StringBuilder b = new StringBuilder(target).append(": ");
        if (pulled.isPresent()) {
            b.append(pulled.get().outcome() == Transfer.Outcome.UNCHANGED ? "already the store's copy" : "pulled from the store")
                    .append(" (").append(pulled.get().message()).append(")");
        } else if (warm.isPresent()) {
            b.append("warm ").append(warm.get().outcome().label()).append(": ").append(warm.get().message());
        }
        pushed.ifPresent(p -> b.append("; push ").append(p.outcome().wire()).append(" (").append(p.message()).append(")"));
        storeProblem.ifPresent(p -> b.append("; store: ").append(p));
        return b.toString();
    }
}
