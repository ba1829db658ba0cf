package dev.kiln.core.serve;

import dev.kiln.core.serve.wire.Wire;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The API's route table, filled by one {@link Routes} per capability (Helidon SE's {@code routing(HttpRules)}): each
 * registers its paths with {@link #get} and {@link #post}; {@link ApiServer} only finds the handler of a request,
 * after its one gate (token, Host, Origin) and before its one mapping of failures to statuses.
 *
 * <p>A v1 route is also registered under its unversioned alias of the first API ({@link Wire#legacyPath}); a route
 * with an {@code {id}} segment matches any non-empty segment there, which the handler reads as {@link Exchange#id()}.
 *
 * <p>Concurrency: filled while the server is built, then only read (by every request thread).
 */
final class Rules {
    /** What a route does with one request; throws what {@link ApiServer} maps to a status. */
    @FunctionalInterface
    interface Handler {
        void handle(Exchange x) throws Exception;
    }

    /** The routes of one capability: the paths it registers and their handlers. */
    interface Routes {
        void routing(Rules rules);
    }

    private final Map<String, Map<String, Handler>> routes = new LinkedHashMap<>();
    /** Routes with an {@code {id}} segment, by template. */
    private final Map<String, Map<String, Handler>> templates = new LinkedHashMap<>();

    /** Registers a read. */
    Rules get(String route, Handler h) {
        return route(route, "GET", h);
    }

    /** Registers a mutation: the gate asks every method but GET for the bearer token. */
    Rules post(String route, Handler h) {
        return route(route, "POST", h);
    }

    /** Registers each capability's routes. */
    Rules register(Iterable<? extends Routes> services) {
        for (Routes s : services) {
            s.routing(this);
        }
        return this;
    }

    private Rules route(String route, String method, Handler h) {
        if (route.contains("{id}")) { // one segment of the path is the id: matched in find, no legacy alias
            add(templates, Wire.path(route), method, h);
            return this;
        }
        add(routes, Wire.path(route), method, h);
        String legacy = Wire.legacyPath(route);
        if (legacy != null) {
            add(routes, legacy, method, h);
        }
        return this;
    }

    private static void add(Map<String, Map<String, Handler>> table, String path, String method, Handler h) {
        if (table.computeIfAbsent(path, p -> new LinkedHashMap<>()).putIfAbsent(method, h) != null) {
            throw new IllegalStateException(method + " " + path + " is registered twice");
        }
    }

    /**
     * The handlers by method of the route {@code x} asks for, with a template route's id set on {@code x}; null
     * when no route has that path.
     */
    @Nullable Map<String, Handler> find(Exchange x) {
        Map<String, Handler> exact = routes.get(x.raw().getRequestURI().getPath());
        return exact != null ? exact : template(x, x.raw().getRequestURI().getRawPath());
    }

    private @Nullable Map<String, Handler> template(Exchange x, String rawPath) {
        String[] got = rawPath.split("/", -1);
        for (Map.Entry<String, Map<String, Handler>> t : templates.entrySet()) {
            String[] want = t.getKey().split("/", -1);
            if (want.length != got.length) {
                continue;
            }
            String id = null;
            boolean match = true;
            for (int i = 0; i < want.length && match; i++) {
                if (want[i].equals("{id}")) {
                    id = URLDecoder.decode(got[i], StandardCharsets.UTF_8);
                    match = !id.isEmpty();
                } else {
                    match = want[i].equals(got[i]);
                }
            }
            if (match && id != null) {
                x.id(id);
                return t.getValue();
            }
        }
        return null;
    }

    /** Every registered path (aliases and templates included): what the tests hold against the document. */
    Set<String> paths() {
        Set<String> all = new java.util.LinkedHashSet<>(routes.keySet());
        all.addAll(templates.keySet());
        return Collections.unmodifiableSet(all);
    }
}
