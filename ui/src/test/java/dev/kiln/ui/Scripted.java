package dev.kiln.ui;

import dev.kiln.core.engine.Engine;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.util.Set;

/**
 * A scripted {@link Engine} for tests: {@code script} answers every call by the method's name, the engine's own
 * ({@code location}, {@code close}) and its facets' ({@code seeds().list()} arrives as {@code list}, {@code probes().probe}
 * as {@code probe}). Each facet accessor answers a proxy of that facet over the same script.
 */
public final class Scripted {
    private static final Set<String> FACETS = Set.of("projection", "seeds", "probes", "archives", "store");

    private Scripted() {
    }

    public static Engine engine(InvocationHandler script) {
        return (Engine) Proxy.newProxyInstance(Engine.class.getClassLoader(), new Class<?>[] {Engine.class}, (proxy, m, args) -> {
            if (m.getDeclaringClass() == Engine.class && m.getParameterCount() == 0 && FACETS.contains(m.getName())) {
                return Proxy.newProxyInstance(Engine.class.getClassLoader(), new Class<?>[] {m.getReturnType()}, script);
            }
            return script.invoke(proxy, m, args);
        });
    }
}
