package dev.kiln.core.engine;

import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.ServerSeedInfo;
import dev.kiln.core.seed.ServerSeeds;
import dev.kiln.core.seed.ServerSeedsWarmed;
import dev.kiln.core.seed.WarmPlan;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.time.Clock;
import java.util.List;

/**
 * The {@link Seeds} of this process: the workspace's {@link SeedCaches} and its server seeds, warms started through
 * the shared action table of {@link WorkspaceActions}.
 *
 * <p>Thread-safety: thread-safe, as the seed caches and the action table are; it holds no state of its own.
 */
final class LocalSeeds implements Seeds {
    private final WorkspaceActions actions;
    private final WorkspaceLayout layout;
    private final SeedCaches seeds;
    private final LocalProbes probes;
    private final Clock clock;

    LocalSeeds(WorkspaceActions actions, WorkspaceLayout layout, SeedCaches seeds, LocalProbes probes, Clock clock) {
        this.actions = actions;
        this.layout = layout;
        this.seeds = seeds;
        this.probes = probes;
        this.clock = clock;
    }

    @Override
    public List<SeedInfo> list() {
        return seeds.seeds();
    }

    @Override
    public List<WarmResult> history() {
        return seeds.history();
    }

    @Override
    public WarmPlan plan(String target) {
        requireTarget(target);
        return seeds.plan(target);
    }

    @Override
    public Action<WarmResult> warm(String target, String idempotencyKey) {
        requireTarget(target);
        return actions.start("warm", target, "a warm of target '" + target + "'", idempotencyKey, () -> {
            Cancellation c = Cancellation.create();
            return new WorkspaceActions.Job<>(c::cancel, () -> seeds.warm(target, c));
        });
    }

    /** The seed caches themselves, for the store's transfers. */
    SeedCaches caches() {
        return seeds;
    }

    void requireTarget(String target) {
        if (!seeds.targets().contains(target)) {
            throw new EngineException(EngineException.Kind.REJECTED, "No target '" + target + "' in " + layout.root().resolve("targets")
                    + " (targets: " + String.join(", ", seeds.targets()) + ")");
        }
    }

    // --- server seeds (runtime seeds of npx/uvx-launched servers), in this workspace's seeds directory

    ServerSeeds serverSeedStore() {
        return ServerSeeds.of(seeds, System.getenv(), clock);
    }

    @Override
    public List<ServerSeedInfo> servers() {
        return serverSeedStore().inventory(probes.servers());
    }

    @Override
    public Action<ServerSeedsWarmed> warmServers(List<String> names, String idempotencyKey) {
        List<ServerConfig> all = probes.servers();
        for (String name : names) {
            if (all.stream().noneMatch(s -> s.name().equals(name))) {
                throw new EngineException(EngineException.Kind.REJECTED, "No server '" + name + "' in " + layout.serversFile());
            }
        }
        List<ServerConfig> chosen = all.stream().filter(s -> names.isEmpty() ? ServerSeeds.seedable(s)
                : names.contains(s.name())).toList();
        if (chosen.isEmpty()) {
            throw new EngineException(EngineException.Kind.REJECTED, "No server in " + layout.serversFile()
                    + " is launched through npx, npm exec, uvx or uv tool run: nothing to seed");
        }
        return actions.start("warm_servers", List.copyOf(names), "a warm of the seeds of " + (names.isEmpty() ? "every server"
                : String.join(", ", names)), idempotencyKey, () -> {
                    Cancellation c = Cancellation.create();
                    return new WorkspaceActions.Job<>(c::cancel, () -> serverSeedStore().warmAll(chosen, c, false));
                });
    }
}
