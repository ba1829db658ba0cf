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

    /** The workspace's server seeds, asking runtimes with this process's environment. */
    static dev.kiln.core.seed.ServerSeeds serverSeeds(dev.kiln.core.seed.SeedCaches seeds) {
        return dev.kiln.core.seed.ServerSeeds.of(seeds, System.getenv(), java.time.Clock.systemUTC());
    }

    /**
     * What server {@code name} of servers.json seeds as now (its exact version, the runtime's, the registry).
     *
     * @throws WorkspaceException naming the server when servers.json has none of that name or it is not seeded
     */
    static dev.kiln.core.seed.ServerSeeds.Plan serverPlan(dev.kiln.core.workspace.WorkspaceLayout layout,
            dev.kiln.core.seed.SeedCaches seeds, String name) {
        java.util.List<dev.kiln.core.startup.ServerConfig> servers = java.nio.file.Files.exists(layout.serversFile())
                ? dev.kiln.core.startup.ServerConfigs.read(layout.serversFile()) : java.util.List.of();
        dev.kiln.core.startup.ServerConfig s = servers.stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new WorkspaceException("no server '" + name + "' in " + layout.serversFile() + " (servers: "
                        + String.join(", ", servers.stream().map(dev.kiln.core.startup.ServerConfig::name).toList()) + ")"));
        return serverSeeds(seeds).plan(s);
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
