package dev.kiln.core.serve;

import dev.kiln.core.engine.WorkspaceActions;
import dev.kiln.core.serve.wire.Wire;
import java.io.IOException;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The projection's routes: {@code GET state} (the published document, {@code ETag} and 304, 503 before the first
 * tick), {@code POST project}, {@code POST heal[?dry_run=true]} and {@code GET workspace} (the settings a client
 * shows beside it).
 *
 * <p>Concurrency: stateless; the backend's values are safe to read from any request thread.
 */
final class ProjectionRoutes implements Rules.Routes {
    private final ApiServer.Backend backend;
    /** The event stream's last frame id ({@link SseHub#lastId}), read before the revision it goes with. */
    private final LongSupplier lastEventId;

    ProjectionRoutes(ApiServer.Backend backend, LongSupplier lastEventId) {
        this.backend = backend;
        this.lastEventId = lastEventId;
    }

    @Override
    public void routing(Rules rules) {
        rules.get(Wire.STATE, this::state)
                .post(Wire.PROJECT, x -> x.json(200, backend.project()))
                .post(Wire.HEAL, x -> x.json(200, backend.heal(x.dryRun(), x.key())))
                .get(Wire.WORKSPACE, x -> {
                    WorkspaceActions a = backend.actions();
                    x.json(200, Wire.JSON.createObjectNode().put("root", a.layout().root().toString())
                            .put("default_startup_timeout_ms", a.probes().defaultStartupTimeout().toMillis())
                            .put("archive_max_bytes", a.archives().maximumBytes()).put("archive_policy", a.archives().policy()));
                });
    }

    private void state(Exchange x) throws IOException {
        // The event id first, then the revision: every frame up to that id is in this revision (or older), so a
        // client that resumes the stream after it misses nothing; deltas it already holds it skips by revision.
        long eventId = lastEventId.getAsLong();
        Published p = backend.current();
        if (p == null) {
            x.answerHeader("Retry-After", "1");
            x.error(503, "not_ready", "the first projection has not finished yet; retry shortly");
            return;
        }
        x.answerHeader(Wire.EVENT_ID, Long.toString(eventId));
        x.answerHeader("ETag", "W/\"" + p.revision() + "\"");
        x.answerHeader("Cache-Control", "no-cache");
        if (matches(x.header("If-None-Match"), p.revision())) {
            x.raw().sendResponseHeaders(304, -1);
            return;
        }
        x.send(200, "application/json", p.document());
    }

    private static boolean matches(@Nullable String ifNoneMatch, long revision) {
        if (ifNoneMatch == null) {
            return false;
        }
        for (String tag : ifNoneMatch.split(",")) {
            String t = tag.trim();
            if (t.equals("*")) {
                return true;
            }
            if (t.startsWith("W/")) {
                t = t.substring(2);
            }
            if (t.equals("\"" + revision + "\"")) {
                return true;
            }
        }
        return false;
    }
}
