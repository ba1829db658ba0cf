package dev.kiln.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.serve.wire.Wire;
import java.util.ArrayList;
import java.util.List;

/**
 * The source archive cache's routes: {@code GET archive/stats}, {@code archive/entries}, {@code POST archive/build
 * {directory, members}} (403 {@code outside_workspace}, 413 {@code too_large}) and {@code POST archive/invalidate}
 * (answers the counters after).
 *
 * <p>Concurrency: stateless; the archive cache is safe for concurrent use.
 */
final class ArchiveRoutes implements Rules.Routes {
    private final ApiServer.Backend backend;

    ArchiveRoutes(ApiServer.Backend backend) {
        this.backend = backend;
    }

    @Override
    public void routing(Rules rules) {
        rules.get(Wire.ARCHIVE_STATS, x -> x.json(200, Wire.value(backend.actions().archives().stats())))
                .get(Wire.ARCHIVE_ENTRIES, x -> x.json(200, Wire.value(backend.actions().archives().entries())))
                .post(Wire.ARCHIVE_BUILD, x -> {
                    JsonNode req = x.body();
                    List<String> members = new ArrayList<>();
                    req.path("members").forEach(m -> members.add(m.asText()));
                    x.json(200, Wire.value(backend.actions().archives().archive(Exchange.field(req, "directory"), members)));
                })
                .post(Wire.ARCHIVE_INVALIDATE, x -> {
                    backend.actions().archives().invalidate();
                    x.json(200, Wire.value(backend.actions().archives().stats()));
                });
    }
}
