package dev.kiln.core.serve;

import com.sun.net.httpserver.HttpHandler;
import dev.kiln.core.serve.wire.Wire;
import org.jspecify.annotations.Nullable;

/**
 * What describes the daemon rather than a workspace: {@code GET version}, {@code GET openapi.json} (the document,
 * byte for byte), {@code GET metrics} (the projector's instrumentation), {@code GET health} (its summary and
 * verdict) and, outside {@code /api}, {@code GET /metrics} (Prometheus, under the same token rule as every read).
 *
 * <p>Concurrency: stateless.
 */
final class ContractRoutes implements Rules.Routes {
    private final ApiServer.Backend backend;
    private final @Nullable HttpHandler prometheus;

    ContractRoutes(ApiServer.Backend backend, @Nullable HttpHandler prometheus) {
        this.backend = backend;
        this.prometheus = prometheus;
    }

    @Override
    public void routing(Rules rules) {
        rules.get(Wire.VERSION, x -> x.json(200, Wire.version()))
                .get(Wire.OPENAPI, x -> x.send(200, "application/json", Wire.openApiDocument()))
                .get(Wire.METRICS, x -> {
                    x.answerHeader("Cache-Control", "no-cache");
                    x.json(200, backend.metrics());
                })
                .get(Wire.HEALTH, x -> x.json(200, backend.health()));
        HttpHandler p = prometheus;
        if (p != null) {
            rules.get(Wire.PROMETHEUS, x -> p.handle(x.raw()));
        }
    }
}
