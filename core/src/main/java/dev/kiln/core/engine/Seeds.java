package dev.kiln.core.engine;

import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.ServerSeedInfo;
import dev.kiln.core.seed.ServerSeedsWarmed;
import dev.kiln.core.seed.WarmPlan;
import dev.kiln.core.seed.WarmResult;
import java.util.List;

/**
 * The seeds on the engine's host: each target's seed (its uv environment, warmed from the target's lockfile) and the
 * runtime seeds of servers launched through npx/uvx. Implemented once in process (shared by the local engine and the
 * daemon's routes), once over {@code /api/v1}.
 *
 * <p>Thread-safety: thread-safe; every method may block on disk, processes or the network. A warm sent twice with one
 * idempotency key (a retry) runs once and answers the first action.
 */
public interface Seeds {
    /** Every target's seed: fresh, stale or never warmed. */
    List<SeedInfo> list();

    /** Finished warms, oldest first. */
    List<WarmResult> history();

    /** What a warm of {@code target} would do; writes nothing. */
    WarmPlan plan(String target);

    /** Warms {@code target}'s seed with uv; its output arrives as {@code SeedEvent.WarmOutput} events. */
    Action<WarmResult> warm(String target, String idempotencyKey);

    /**
     * Every server seed on the engine's host: one per seedable server of {@code servers.json} (its seed, or missing),
     * then the seeds no server uses now; each judged by its hash, with the snippets that make a client use it.
     */
    List<ServerSeedInfo> servers();

    /** Warms the seeds of {@code servers} (every seedable server of {@code servers.json} when empty), one after another. */
    Action<ServerSeedsWarmed> warmServers(List<String> servers, String idempotencyKey);
}
