package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import dev.kiln.app.common.WorkspaceArgument;
import dev.kiln.core.seed.CopyReport;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmResult;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln seed copy|ls|history}: use and inspect seed caches. */
@Command(name = "seed", mixinStandardHelpOptions = true,
        description = "Copy a seed into a job's cache, list seeds, show the warm history, push or pull seeds through the object store.",
        subcommands = {SeedCommand.Copy.class, SeedCommand.Ls.class, SeedCommand.History.class, SeedCommand.Push.class,
            SeedCommand.Pull.class, CommandLine.HelpCommand.class})
final class SeedCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a sub-command: copy, ls, history, push or pull");
    }

    @Command(name = "copy", mixinStandardHelpOptions = true,
            description = {"Copy TARGET's seed into SCRATCH (a job's uv cache dir): real copies, never links.",
                "Best-effort: when there is no seed or the copy fails it says so on stderr and exits 0,",
                "so the job proceeds and uv downloads what is missing.",
                "Exits 2 (copying nothing) when SCRATCH and the seed overlap, compared by real path.",
                "Links found in SCRATCH are replaced, never followed."})
    static final class Copy implements Callable<Integer> {
        @Mixin
        WorkspaceArgument workspace;

        @Parameters(index = "1", paramLabel = "TARGET", description = "The target whose seed to copy.")
        String target;

        @Parameters(index = "2", paramLabel = "SCRATCH", description = "The job's cache directory (created if missing).")
        Path scratch;

        @Mixin
        JsonOption json;

        @Option(names = "--server", description = "TARGET names a server of servers.json launched through npx/uvx:"
            + " copy the cache form of its runtime seed (point the job's NPM_CONFIG_CACHE or UV_CACHE_DIR at SCRATCH)."
            + " A seed that no longer matches its hash, or is not the seed of the server's config, is not copied.")
        boolean server;

        @Override
        public Integer call() throws Exception {
            SeedCaches seeds = SeedCaches.of(workspace.require());
            CopyReport r = server ? copyServerSeed(workspace.layout(), target, scratch.toAbsolutePath())
                    : seeds.copyInto(target, scratch.toAbsolutePath());
            if (json.enabled()) {
                ObjectNode o = Json.object().put("target", target).put("copied", r.copied())
                        .put("files", r.files()).put("bytes", r.bytes()).put("links", r.links())
                        .put("ms", r.duration().toMillis()).put("problem", r.problem().orElse(null))
                        .put("refused", r.refused()).put("copy_mode", r.mode().label());
                System.out.println(Json.compact(o));
            } else if (r.copied()) {
                System.out.printf("copied seed %s into %s: %d files, %d bytes, %d links in %d ms (%s copy)%n", target,
                        scratch.toAbsolutePath(), r.files(), r.bytes(), r.links(), r.duration().toMillis(),
                        r.mode().label());
            }
            r.problem().ifPresent(p -> System.err.println("kiln: seed " + target + " not fully copied: " + p));
            // Best-effort means exit 0 when the seed is missing or partly copied; overlapping paths are the
            // caller's mistake (the copy would write into the seed), so they fail loudly.
            return r.refused() ? 2 : 0;
        }

        /** The cache form of server {@code name}'s runtime seed into {@code scratch} (see {@code --server}). */
        private static CopyReport copyServerSeed(dev.kiln.core.workspace.WorkspaceLayout layout, String name, Path scratch) {
            List<dev.kiln.core.startup.ServerConfig> servers = java.nio.file.Files.exists(layout.serversFile())
                    ? dev.kiln.core.startup.ServerConfigs.read(layout.serversFile()) : List.of();
            dev.kiln.core.startup.ServerConfig s = servers.stream().filter(c -> c.name().equals(name)).findFirst()
                    .orElseThrow(() -> new CommandLine.ParameterException(new CommandLine(new Copy()), "no server '" + name
                            + "' in " + layout.serversFile() + " (servers: " + String.join(", ", servers.stream()
                                    .map(dev.kiln.core.startup.ServerConfig::name).toList()) + ")"));
            CopyReport r = dev.kiln.core.seed.ServerSeeds.of(SeedCaches.of(layout.root()), System.getenv(),
                    java.time.Clock.systemUTC()).copyInto(s, scratch, dev.kiln.core.seed.CopyMode.KERNEL);
            if (r.copied()) {
                System.err.println("kiln: point the job's " + dev.kiln.core.seed.ServerSeeds.cacheVariable(s) + " at " + scratch);
            }
            return r;
        }
    }

    @Command(name = "ls", mixinStandardHelpOptions = true, description = "List targets and their seeds.")
    static final class Ls implements Callable<Integer> {
        @Mixin
        WorkspaceArgument workspace;

        @Mixin
        JsonOption json;

        @Override
        public Integer call() throws Exception {
            SeedCaches seeds = SeedCaches.of(workspace.require());
            List<SeedInfo> all = seeds.seeds();
            if (!json.enabled()) {
                System.out.printf("%-20s %-9s %-12s %7s %8s %12s  %-20s %s%n", "TARGET", "STATE", "HASH", "WHEELS",
                        "FILES", "BYTES", "WARMED", "UV");
            }
            for (SeedInfo s : all) {
                String state = !s.seeded() ? "none" : s.current() ? "current" : s.currentHash().isEmpty() ? "unknown" : "stale";
                if (json.enabled()) {
                    ObjectNode o = Json.object().put("target", s.target()).put("state", state)
                            .put("seed_dir", s.seedDir().toString()).put("hash", s.hash().orElse(null))
                            .put("current_hash", s.currentHash().orElse(null)).put("wheels", s.wheels())
                            .put("files", s.files()).put("bytes", s.bytes())
                            .put("warmed_at", s.warmedAt().map(Object::toString).orElse(null))
                            .put("uv_version", s.uvVersion().orElse(null)).put("problem", s.problem().orElse(null));
                    System.out.println(Json.compact(o));
                } else {
                    System.out.printf("%-20s %-9s %-12s %7d %8d %12d  %-20s %s%n", s.target(), state,
                            s.hash().map(h -> h.substring(0, Math.min(12, h.length()))).orElse("-"), s.wheels(), s.files(),
                            s.bytes(), s.warmedAt().map(i -> i.toString().substring(0, 19)).orElse("-"),
                            s.uvVersion().orElse("-"));
                    s.problem().ifPresent(p -> System.out.println("    problem: " + p));
                }
            }
            return 0;
        }
    }

    @Command(name = "history", mixinStandardHelpOptions = true, description = "Show the workspace's warm journal.")
    static final class History implements Callable<Integer> {
        @Mixin
        WorkspaceArgument workspace;

        @Mixin
        JsonOption json;

        @Override
        public Integer call() throws Exception {
            SeedCaches seeds = SeedCaches.of(workspace.require());
            for (WarmResult r : seeds.history()) {
                if (json.enabled()) {
                    System.out.println(Json.compact(Json.object().put("at", r.at().toString())
                            .put("target", r.target()).put("outcome", r.outcome().label()).put("hash", r.hash())
                            .put("seconds", r.duration().toMillis() / 1000.0).put("bytes", r.bytes())
                            .put("message", r.message())));
                } else {
                    System.out.printf("%s  %-12s %-11s %6.1fs  %s%n", r.at().toString().substring(0, 19), r.target(),
                            r.outcome().label(), r.duration().toMillis() / 1000.0, r.message());
                }
            }
            return 0;
        }
    }

    // ---- the object store (kiln.json's "store"; credentials from the AWS chain) ----

    @Command(name = "push", mixinStandardHelpOptions = true,
            description = {"Push TARGETs' seeds to the workspace's object store (kiln.json \"store\"), keyed by target and",
                "lockfile hash, through the engine: a workspace DIR here, or a daemon (URL or NAME, as kiln attach) that",
                "pushes from its own host with its own credentials. A key already stored is left as it is (objects are",
                "immutable). Exit 0 when every seed is stored, 1 otherwise."})
    static final class Push implements Callable<Integer> {
        @Mixin
        StoreCli.EngineArgument where;

        @Parameters(index = "1..*", arity = "1..*", paramLabel = "TARGET", description = "Targets whose seeds to push.")
        List<String> targets;

        @Option(names = "--server", description = "TARGETs name servers of servers.json launched through npx/uvx: push"
            + " their runtime seeds (keyed package@exact-version, runtime version, registry; warm them with kiln warm --servers).")
        boolean server;

        @Mixin
        JsonOption json;

        @Override
        public Integer call() {
            return StoreCli.move(where, targets, server, true, json.enabled());
        }
    }

    @Command(name = "pull", mixinStandardHelpOptions = true,
            description = {"Pull TARGETs' seeds for their current lockfiles from the object store: download, check the",
                "SHA-256 and what it holds, then swap it in whole (as a warm does), through the engine: a workspace DIR",
                "here, or a daemon (URL or NAME) onto its own host. A failed pull keeps the local seed.",
                "Exit 0 when every seed was pulled or already the store's copy, 1 otherwise."})
    static final class Pull implements Callable<Integer> {
        @Mixin
        StoreCli.EngineArgument where;

        @Parameters(index = "1..*", arity = "1..*", paramLabel = "TARGET", description = "Targets whose seeds to pull.")
        List<String> targets;

        @Option(names = "--server", description = "TARGETs name servers of servers.json launched through npx/uvx: pull"
            + " their runtime seeds for the config as it is now (the store's copy already here is kept).")
        boolean server;

        @Mixin
        JsonOption json;

        @Override
        public Integer call() {
            return StoreCli.move(where, targets, server, false, json.enabled());
        }
    }
}
