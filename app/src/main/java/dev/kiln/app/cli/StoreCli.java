package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.core.store.ObjectStore;
import dev.kiln.core.store.StoreConfig;
import dev.kiln.core.store.StoreException;
import dev.kiln.core.store.Transfer;
import dev.kiln.core.workspace.WorkspaceException;
import java.nio.file.Path;

/** What the store's commands share: opening the workspace's store, and printing a transfer. */
final class StoreCli {
    private StoreCli() {
    }

    /** The store the workspace's kiln.json names, with credentials from the AWS chain of this process's environment. */
    static ObjectStore open(Path ws) {
        StoreConfig config;
        try {
            config = StoreConfig.read(ws).orElseThrow(() -> new CliException(ws.resolve("kiln.json") + " names no object"
                    + " store; add \"store\": {\"url\": \"s3://bucket/prefix\", \"endpoint\": \"https://…\", \"region\":"
                    + " \"…\"} (credentials come from the AWS chain: environment, ~/.aws/credentials, web identity)"));
        } catch (WorkspaceException e) {
            throw new CliException(e.getMessage(), e);
        }
        try {
            return ObjectStore.builder(config).build();
        } catch (StoreException e) {
            throw new CliException(e.getMessage(), e);
        }
    }

    /**
     * Mixin: where a push or pull runs, as the first positional argument: a workspace directory (this process's engine,
     * with this host's AWS credentials) or a daemon's URL or NAME (its engine: the daemon moves the seed on its host
     * with its own credentials; {@code --token-file} and {@code --pin} as for {@code kiln attach}).
     */
    static final class EngineArgument {
        @picocli.CommandLine.Parameters(index = "0", paramLabel = "DIR|URL|NAME",
                description = "The workspace directory, or a daemon's URL (as kiln serve prints it) or NAME (daemon list).")
        String where;

        @picocli.CommandLine.Mixin
        DaemonCredentials credentials;

        /** A directory, or what looks like a path (so a mistyped one is told as a workspace, not as a daemon name). */
        boolean local() {
            boolean url = where.contains("://") || where.matches("[^/\\s]+:\\d+/?");
            return !url && (java.nio.file.Files.isDirectory(Path.of(where)) || where.contains("/"));
        }
    }

    /** An engine {@link #engine} opened, and what closing it closes (the local workspace's {@code Kiln} too; null for a daemon). */
    record Opened(dev.kiln.core.engine.Engine engine, dev.kiln.core.Kiln kiln)
            implements AutoCloseable {
        @Override
        public void close() {
            engine.close();
            if (kiln != null) {
                kiln.close();
            }
        }
    }

    /**
     * The engine {@code where} names: this process's over the workspace directory (its kiln.json must name a store,
     * else a clear exit 2 before anything opens), or a daemon's remote engine (its URL or NAME, token file and pin).
     */
    static Opened engine(EngineArgument where) {
        java.time.Clock clock = java.time.Clock.systemUTC();
        if (where.local()) {
            Path ws = dev.kiln.app.common.Workspaces.require(Path.of(where.where));
            requireStore(ws);
            try {
                dev.kiln.core.Kiln kiln = dev.kiln.core.Kiln.open(ws, new dev.kiln.core.telemetry.EventBus(), clock);
                return new Opened(kiln.engine(), kiln);
            } catch (WorkspaceException e) {
                throw new CliException(e.getMessage(), e);
            }
        }
        dev.kiln.core.fleet.DaemonEntry d = where.credentials.resolve(where.where);
        try {
            return new Opened(dev.kiln.core.serve.client.RemoteEngine.connect(d.url(), d.tokenFile().orElse(null),
                    d.pin().orElse(null), clock), null);
        } catch (dev.kiln.core.engine.EngineException e) {
            throw new CliException(e.getMessage(), e);
        }
    }

    /**
     * Pushes or pulls each of {@code names} (targets, or servers with {@code server}) through the engine {@code where}
     * names, one after another, printing one line (or JSON object) per name; a failure of one is reported and the next
     * is moved. Exit 0 when all moved, 1 when one failed, 2 when the engine cannot be had.
     */
    static int move(EngineArgument where, java.util.List<String> names, boolean server, boolean push, boolean asJson) {
        String verb = push ? "push" : "pull";
        boolean ok = true;
        try (Opened opened = engine(where)) {
            dev.kiln.core.engine.Engine engine = opened.engine();
            for (String name : names) {
                try {
                    dev.kiln.core.engine.Action<Transfer> a = server
                            ? (push ? engine.store().pushServer(name, key(verb)) : engine.store().pullServer(name, key(verb)))
                            : (push ? engine.store().push(name, key(verb)) : engine.store().pull(name, key(verb)));
                    Transfer t = await(a);
                    System.out.println(asJson ? Json.compact(json(t).put("target", name)) : line(name, t));
                } catch (RuntimeException e) {
                    ok = false;
                    System.err.println("kiln: seed " + verb + " " + (server ? "--server " : "") + name + ": " + e.getMessage());
                }
            }
        }
        return ok ? 0 : 1;
    }

    /** One idempotency key per request of this run: a retried request of it moves (or warms) once. */
    static String key(String verb) {
        return "cli-" + verb + "-" + java.util.UUID.randomUUID();
    }

    /** The action's transfer; its failure as the exception the engine gave (a store's message, a daemon's refusal). */
    static <T> T await(dev.kiln.core.engine.Action<T> a) {
        try {
            return a.result().get();
        } catch (InterruptedException e) {
            a.cancel();
            Thread.currentThread().interrupt();
            throw new CliException("interrupted; the " + a.id() + " was cancelled", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(String.valueOf(
                    e.getCause() == null ? e : e.getCause().getMessage()), e);
        }
    }

    /** A clear exit 2 before anything opens when the workspace names no store (or names one badly). */
    private static void requireStore(Path ws) {
        try {
            if (StoreConfig.read(ws).isEmpty()) {
                throw new CliException(ws.resolve("kiln.json") + " names no object store; add \"store\": {\"url\":"
                        + " \"s3://bucket/prefix\", \"endpoint\": \"https://…\", \"region\": \"…\"} (credentials come from"
                        + " the AWS chain: environment, ~/.aws/credentials, web identity)");
            }
        } catch (WorkspaceException e) {
            throw new CliException(e.getMessage(), e);
        }
    }

    static ObjectNode json(Transfer t) {
        return Json.object().put("key", t.key().path()).put("outcome", t.outcome().wire())
                .put("sha256", t.manifest().sha256()).put("object_bytes", t.manifest().bytes())
                .put("files", t.manifest().files()).put("bytes_moved", t.bytes())
                .put("duration_ms", t.duration().toMillis()).put("message", t.message());
    }

    static String line(String what, Transfer t) {
        return what + ": " + t.outcome().wire().replace('_', ' ') + " " + t.key() + " in " + t.duration().toMillis()
                + " ms — " + t.message();
    }
}
