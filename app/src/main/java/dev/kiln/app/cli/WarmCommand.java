package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import dev.kiln.app.common.Workspaces;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmPlan;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.store.SeedPresence;
import dev.kiln.core.store.StoreStatus;
import dev.kiln.core.store.Transfer;
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

/**
 * {@code kiln warm DIR [TARGET…|--all] [--dry-run] [--json]}: warms seed caches, one target after another; with
 * {@code --pull}, through an engine (DIR here, or a daemon's URL or NAME on its host) and the workspace's store.
 */
@Command(name = "warm", mixinStandardHelpOptions = true,
        header = "Warm targets' seed caches with uv, wheels-only.",
        description = {"Warm the seed cache of targets: uv sync wheels-only into a fresh cache, swapped in whole,",
            "only when the lockfile hash changed. Exit 0 when every target is warmed or unchanged, 1 otherwise.",
            "Ctrl-C cancels the running warm (uv's process tree is killed, the previous seed is kept).",
            "With --json, one object per target: target, outcome, hash, seconds, bytes, message.",
            "With --pull, DIR may be a daemon's URL or NAME (--token-file, --pin as for kiln attach): the daemon takes the",
            "store's seed or warms and pushes on its own host, with its own credentials. Exit 1 when a target's seed is not",
            "current, or the store could not be used for it."})
final class WarmCommand implements Callable<Integer> {

    /** DIR (every form), or a daemon's URL or NAME (--pull only); its --token-file and --pin. */
    @Mixin
    StoreCli.EngineArgument where;

    @Parameters(index = "1..*", paramLabel = "TARGET", description = "Targets to warm (names under targets/).")
    List<String> targets = new ArrayList<>();

    @Option(names = "--all", description = "Warm every target of the workspace.")
    boolean all;

    @Option(names = "--dry-run", description = "Report the hash, whether a warm is needed and the exact command; write nothing.")
    boolean dryRun;

    @Option(names = "--pull", description = "Use the workspace's object store (kiln.json \"store\") through the engine: take"
        + " the store's seed when it has one for the lockfile hash, else warm and push what was warmed.")
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
            return ServerWarm.run(Path.of(where.where), targets, dryRun, json.enabled());
        }
        if (pull && !dryRun) {
            return warmThroughStore();
        }
        Path ws = Workspaces.require(Path.of(where.where));
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

    /**
     * {@code --pull}, through the engine {@link #where} names: asks the store where each target's seed for its current
     * lockfile is ({@code engine.store().status()}); pulls it when the store has it, else warms and pushes what was warmed.
     * A failed pull falls back to a warm (nothing is lost here); a store that cannot be asked does not stop the warm.
     */
    private int warmThroughStore() {
        boolean asJson = json.enabled();
        PrintStream out = System.out;
        try (StoreCli.Opened opened = StoreCli.engine(where)) {
            Engine engine = opened.engine();
            List<String> names = selected(engine.seeds().list().stream().map(SeedInfo::target).toList());
            AutoCloseable lines = engine.events().subscribe(e -> {
                if (!asJson && e instanceof SeedEvent.WarmOutput o && names.contains(o.target())) {
                    System.err.println("  [" + o.target() + "] " + o.line());
                }
            });
            StoreStatus status = engine.store().status().orElseThrow(() -> new CliException(engine.location()
                    + ": its kiln.json names no object store; add \"store\": {\"url\": \"s3://bucket/prefix\", \"endpoint\":"
                    + " \"https://…\", \"region\": \"…\"} there"));
            boolean ok = true;
            for (String name : names) {
                StoreWarmed w = warmThroughStore(engine, status, name);
                ok &= w.ok();
                out.println(asJson ? Json.compact(w.json()) : w.line());
            }
            try {
                lines.close();
            } catch (Exception ignored) {
                // unsubscribing cannot fail in a way that matters here
            }
            return ok ? 0 : 1;
        }
    }

    /** One target of {@code --pull}: the store's copy, or a warm and a push, or why not. */
    private static StoreWarmed warmThroughStore(Engine engine, StoreStatus status, String name) {
        SeedPresence row = status.seeds().stream().filter(s -> s.target().equals(name)).findFirst().orElse(null);
        String pullError = null;
        if (row != null && row.store().isPresent()) { // the store holds the seed of the current lockfile: take it
            try {
                Transfer t = StoreCli.await(engine.store().pull(name, StoreCli.key("pull")));
                return new StoreWarmed(name, t.outcome() == Transfer.Outcome.UNCHANGED ? "unchanged" : "pulled", row.lockHash(),
                        t, null, null, null);
            } catch (RuntimeException e) {
                pullError = "pull failed: " + e.getMessage();
            }
        }
        WarmResult w;
        try {
            w = StoreCli.await(engine.seeds().warm(name, StoreCli.key("warm")));
        } catch (RuntimeException e) {
            return new StoreWarmed(name, "failed", row == null ? null : row.lockHash(), null, null, null,
                    String.valueOf(e.getMessage()));
        }
        if (!w.outcome().isSuccess()) {
            return new StoreWarmed(name, "failed", w.hash(), null, w, null, pullError);
        }
        if (pullError != null) { // the store has the key (its copy would not come): no push; the seed here is current
            return new StoreWarmed(name, "warmed", w.hash(), null, w, null, pullError);
        }
        if (row == null) { // the store could not be asked about this target: the seed is current here, not pushed
            return new StoreWarmed(name, "warmed", w.hash(), null, w, null, status.problem()
                    .orElse(status.store() + " did not say where the seed of " + name + " is"));
        }
        try {
            Transfer p = StoreCli.await(engine.store().push(name, StoreCli.key("push")));
            return new StoreWarmed(name, "warmed_pushed", w.hash(), null, w, p, null);
        } catch (RuntimeException e) {
            return new StoreWarmed(name, "warmed", w.hash(), null, w, null, "push failed: " + e.getMessage());
        }
    }

    /**
     * What {@code --pull} did for one target.
     *
     * @param result {@code pulled}, {@code unchanged} (the store's copy was already here), {@code warmed_pushed},
     *     {@code warmed} (current here, but the store was not used: see {@code problem}) or {@code failed}
     * @param problem why the store was not used, or why the target failed
     */
    private record StoreWarmed(String target, String result, String hash, Transfer pull, WarmResult warm, Transfer push,
            String problem) {
        boolean ok() {
            return problem == null && !result.equals("failed");
        }

        ObjectNode json() {
            ObjectNode o = Json.object().put("target", target).put("ok", ok()).put("result", result)
                    .put("source", pull != null ? "store" : warm != null ? "warm" : null).put("hash", hash)
                    .put("outcome", warm == null ? null : warm.outcome().label());
            o.set("pull", pull == null ? null : StoreCli.json(pull));
            o.set("warm", warm == null ? null : Json.object().put("outcome", warm.outcome().label()).put("hash", warm.hash())
                    .put("seconds", warm.duration().toMillis() / 1000.0).put("bytes", warm.bytes()).put("files", warm.files())
                    .put("message", warm.message()));
            o.set("push", push == null ? null : StoreCli.json(push));
            return o.put("store_problem", problem).put("message", line());
        }

        String line() {
            String w = warm == null ? "" : "warm " + warm.outcome().label() + " in " + warm.duration().toMillis() / 1000.0
                    + "s: " + warm.message();
            String what = switch (result) {
                case "pulled" -> "pulled from the store (" + pull.message() + ")";
                case "unchanged" -> "already the store's copy (" + pull.message() + ")";
                case "warmed_pushed" -> w + "; pushed: " + push.outcome().wire().replace('_', ' ') + " (" + push.message() + ")";
                case "warmed" -> w + "; not pushed";
                default -> "failed" + (warm == null ? "" : " (" + w + ")");
            };
            return target + ": " + what + (problem == null ? "" : " — " + problem);
        }
    }

    private List<String> selected(SeedCaches seeds) {
        return selected(seeds.targets());
    }

    private List<String> selected(List<String> known) {
        if (all && !targets.isEmpty()) {
            throw new CliException("pass target names or --all, not both");
        }
        if (all) {
            if (known.isEmpty()) {
                throw new CliException("no targets in " + (where.local() ? Path.of(where.where).toAbsolutePath().resolve("targets")
                        : where.where + "'s workspace")
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
