package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import dev.kiln.app.common.WorkspaceArgument;
import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.seed.WarmPlan;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.workspace.WorkspaceException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln warm DIR [TARGET…|--all] [--dry-run] [--json]}: warms seed caches, one target after another. */
@Command(name = "warm", mixinStandardHelpOptions = true,
        header = "Warm targets' seed caches with uv, wheels-only.",
        description = {"Warm the seed cache of targets: uv sync wheels-only into a fresh cache, swapped in whole,",
            "only when the lockfile hash changed. Exit 0 when every target is warmed or unchanged, 1 otherwise.",
            "Ctrl-C cancels the running warm (uv's process tree is killed, the previous seed is kept).",
            "With --json, one object per target: target, outcome, hash, seconds, bytes, message."})
final class WarmCommand implements Callable<Integer> {

    @Mixin
    WorkspaceArgument workspace;

    @Parameters(index = "1..*", paramLabel = "TARGET", description = "Targets to warm (names under targets/).")
    List<String> targets = new ArrayList<>();

    @Option(names = "--all", description = "Warm every target of the workspace.")
    boolean all;

    @Option(names = "--dry-run", description = "Report the hash, whether a warm is needed and the exact command; write nothing.")
    boolean dryRun;

    @Option(names = "--pull", description = {"Use the workspace's object store (kiln.json \"store\"): take the store's seed",
        "when it has one for the lockfile hash, else warm and push what was warmed."})
    boolean pull;

    @Mixin
    JsonOption json;

    @Option(names = "--servers", description = {"Warm a runtime seed per MCP server launched through npx/npm exec/uvx/uv"
            + " tool run: DIR is then the servers config (servers.json, Codex config.toml, or its workspace) and TARGETs"
            + " the server names (default: all); prints a paste-ready snippet per client format."})
    boolean servers;

    @Override
    public Integer call() throws Exception {
        if (servers) {
            if (all) {
                throw new CliException("--servers warms every server of the config unless names are given: drop --all");
            }
            return ServerWarm.run(workspace.given(), targets, dryRun, json.enabled());
        }
        Path ws = workspace.require();
        if (pull && !dryRun) {
            return warmThroughStore(ws);
        }
        boolean json = this.json.enabled();
        PrintStream out = System.out;
        PrintStream err = System.err;
        SeedCaches seeds = SeedCaches.builder(ws).events(e -> {
            if (!json && e instanceof SeedEvent.WarmOutput o) {
                err.println("  [" + o.target() + "] " + o.line());
            }
        }).build();
        List<String> names = selected(seeds);
        boolean ok = true;
        if (dryRun) {
            for (String name : names) {
                ObjectNode o = Json.object().put("target", name).put("dry_run", true);
                try {
                    WarmPlan p = seeds.plan(name);
                    o.put("outcome", p.warmNeeded() ? "would-warm" : "unchanged").put("hash", p.hash())
                            .put("warm_needed", p.warmNeeded()).put("seeded_hash", p.seededHash().orElse(null))
                            .put("seed_dir", p.seedDir().toString())
                            .put("message", p.warmNeeded() ? "a warm would run uv" : "seed is current; a warm would run nothing");
                    p.command().forEach(o.putArray("command")::add);
                    p.environment().forEach(o.putArray("environment")::add);
                    p.uvProblem().ifPresent(u -> o.put("uv_problem", u));
                    if (!json) {
                        out.println(name + ": " + (p.warmNeeded() ? "warm needed" : "unchanged") + " (hash " + p.hash() + ")");
                        p.seededHash().ifPresent(h -> out.println("  seeded:  " + h));
                        out.println("  command: " + String.join(" ", p.command()));
                        out.println("  env:     " + String.join(" ", p.environment()) + " + allowlisted caller variables");
                        p.uvProblem().ifPresent(u -> out.println("  problem: " + u));
                    }
                    ok &= p.uvProblem().isEmpty() || !p.warmNeeded();
                } catch (WorkspaceException e) {
                    ok = false;
                    o.put("outcome", "failed").put("message", e.getMessage());
                    if (!json) {
                        out.println(name + ": cannot plan: " + e.getMessage());
                    }
                }
                if (json) {
                    out.println(Json.compact(o));
                }
            }
            return ok ? 0 : 1;
        }
        Cancellation cancel = Cancellation.create();
        CountDownLatch done = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            cancel.cancel();
            try {
                // Let the warm kill uv's tree and remove its fresh cache before the JVM goes.
                done.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "kiln-warm-cancel");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            for (String name : names) {
                if (!json) {
                    err.println("kiln: warming " + name + "…");
                }
                WarmResult r = seeds.warm(name, cancel);
                ok &= r.outcome().isSuccess();
                if (json) {
                    ObjectNode o = Json.object().put("target", r.target()).put("outcome", r.outcome().label())
                            .put("hash", r.hash()).put("seconds", r.duration().toMillis() / 1000.0)
                            .put("bytes", r.bytes()).put("files", r.files()).put("message", r.message());
                    r.stderrTail().forEach(o.putArray("stderr_tail")::add);
                    out.println(Json.compact(o));
                } else {
                    out.printf("%s: %s in %.1fs — %s%n", r.target(), r.outcome().label(), r.duration().toMillis() / 1000.0,
                            r.message());
                    if (!r.outcome().isSuccess() && !r.stderrTail().isEmpty()) {
                        r.stderrTail().forEach(l -> out.println("  | " + l));
                    }
                }
                if (cancel.isCancelled()) {
                    break;
                }
            }
        } finally {
            done.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: it was a Ctrl-C.
            }
        }
        return ok ? 0 : 1;
    }

    /** {@code --pull}: per target, the store's copy when it has the lockfile's hash; else a warm, then a push. */
    private int warmThroughStore(Path ws) {
        PrintStream out = System.out;
        SeedCaches seeds = SeedCaches.builder(ws).events(e -> {
            if (!json.enabled() && e instanceof SeedEvent.WarmOutput o) {
                System.err.println("  [" + o.target() + "] " + o.line());
            }
        }).build();
        boolean ok = true;
        try (dev.kiln.core.store.ObjectStore store = StoreCli.open(ws)) {
            for (String name : selected(seeds)) {
                dev.kiln.core.store.StoreWarm w = store.warm(seeds, name, Cancellation.create());
                ok &= w.ok();
                if (json.enabled()) {
                    ObjectNode o = Json.object().put("target", name).put("ok", w.ok())
                            .put("source", w.pulled().isPresent() ? "store" : "warm").put("message", w.message());
                    w.pulled().ifPresent(t -> o.set("pull", StoreCli.json(t)));
                    w.warm().ifPresent(r -> o.put("outcome", r.outcome().label()).put("hash", r.hash()));
                    w.pushed().ifPresent(t -> o.set("push", StoreCli.json(t)));
                    w.storeProblem().ifPresent(p -> o.put("store_problem", p));
                    out.println(Json.compact(o));
                } else {
                    out.println(w.message());
                }
            }
        }
        return ok ? 0 : 1;
    }

    private List<String> selected(SeedCaches seeds) {
        List<String> known = seeds.targets();
        if (all && !targets.isEmpty()) {
            throw new CliException("pass target names or --all, not both");
        }
        if (all) {
            if (known.isEmpty()) {
                throw new CliException("no targets in " + workspace.given().toAbsolutePath().resolve("targets")
                        + " (each is targets/<name>/target.json)");
            }
            return known;
        }
        if (targets.isEmpty()) {
            throw new CliException("name the targets to warm, or pass --all. Targets here: "
                    + (known.isEmpty() ? "none" : String.join(", ", known)));
        }
        return targets;
    }
}
