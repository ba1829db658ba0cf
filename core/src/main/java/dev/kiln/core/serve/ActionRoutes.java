package dev.kiln.core.serve;

import dev.kiln.core.engine.Action;
import dev.kiln.core.serve.wire.Wire;
import java.util.Optional;

/**
 * The long actions' routes: {@code GET actions/{id}} ({@code {id, kind, state, result, error}}) and {@code POST
 * actions/{id}/cancel} (202 with it); 404 {@code no_action} for an id the daemon does not remember.
 *
 * <p>Concurrency: stateless; the engine's actions are safe for concurrent use.
 */
final class ActionRoutes implements Rules.Routes {
    private final ApiServer.Backend backend;

    ActionRoutes(ApiServer.Backend backend) {
        this.backend = backend;
    }

    @Override
    public void routing(Rules rules) {
        rules.get(Wire.ACTION, x -> {
            Optional<Action<?>> a = backend.actions().action(x.id());
            if (a.isEmpty()) {
                x.error(404, "no_action", "no action " + Exchange.shown(x.id()) + " on this daemon (it restarted, or the"
                        + " action ended more than 6 hours ago)");
            } else {
                x.json(200, Wire.action(a.get()));
            }
        }).post(Wire.ACTION_CANCEL, x -> {
            if (!backend.actions().cancel(x.id())) {
                x.error(404, "no_action", "no action " + Exchange.shown(x.id()) + " on this daemon to cancel");
            } else {
                x.json(202, Wire.action(backend.actions().action(x.id()).orElseThrow()));
            }
        });
    }
}
