package dev.kiln.core.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.seed.SeedInfo;
import dev.kiln.core.seed.WarmOutcome;
import dev.kiln.core.seed.WarmResult;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Fleet-wide actions without daemons: engines that answer as scripted (the real daemons are in app's
 * {@code FleetActionsTest}), to show what a run does with each answer — a warm of only the stale seeds, the
 * concurrency bound, queued daemons cancelled before they start, a daemon lost while its action runs.
 */
class FleetActionsTest {
    private static final Instant T0 = Instant.parse("2026-12-01T12:00:00Z");

    private static DaemonEntry daemon(String name, int port) {
        return DaemonEntry.of(name, "http://127.0.0.1:" + port, "", "");
    }

    private static SeedInfo seed(String target, boolean current) {
        return new SeedInfo(target, Path.of("/seeds/" + target), true, Optional.of(current ? "h1" : "h0"), Optional.of("h1"),
                Optional.empty(), Optional.empty(), Optional.empty(), 0, 0, 0, Optional.empty());
    }

    /**
     * An engine answered by {@code script} by method name, its own methods' and its facets' ({@code seeds().list()}
     * arrives as {@code list}): each facet accessor answers a proxy of that facet over the same script.
     */
    private static Engine scripted(java.lang.reflect.InvocationHandler script) {
        java.util.Set<String> facets = java.util.Set.of("projection", "seeds", "probes", "archives", "store");
        ClassLoader l = FleetActionsTest.class.getClassLoader();
        return (Engine) java.lang.reflect.Proxy.newProxyInstance(l, new Class<?>[] {Engine.class}, (proxy, m, args) ->
                m.getDeclaringClass() == Engine.class && m.getParameterCount() == 0 && facets.contains(m.getName())
                        ? java.lang.reflect.Proxy.newProxyInstance(l, new Class<?>[] {m.getReturnType()}, script)
                        : script.invoke(proxy, m, args));
    }

    /** An engine over {@code seeds} whose warms end as {@code outcome}, recording each target warmed in {@code warmed}. */
    private static Engine warming(List<SeedInfo> seeds, WarmOutcome outcome, List<String> warmed) {
        return scripted(
                (proxy, m, args) -> switch (m.getName()) {
                    case "list" -> seeds;
                    case "warm" -> {
                        String target = (String) args[0];
                        warmed.add(target);
                        yield done(new WarmResult(target, outcome, "h1", T0, Duration.ofMillis(40), 10, 2, outcome.name(), List.of()));
                    }
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static <T> Action<T> done(T value) {
        return new Action<>() {
            public String id() {
                return "a";
            }

            public CompletableFuture<T> result() {
                return CompletableFuture.completedFuture(value);
            }

            public void cancel() {
            }
        };
    }

    @Test
    void warm_warmsOnlyTheStaleSeeds_andAFailedWarmFailsItsRow() throws Exception {
        Map<String, List<String>> warmed = new ConcurrentHashMap<>();
        FleetActions actions = FleetActions.builder().reachability(d -> Optional.empty()).engines(d -> {
            List<String> w = warmed.computeIfAbsent(d.name(), n -> new CopyOnWriteArrayList<>());
            return switch (d.name()) {
                case "fresh" -> warming(List.of(seed("web", true)), WarmOutcome.WARMED, w);
                case "stale" -> warming(List.of(seed("web", true), seed("api", false), seed("ml", false)), WarmOutcome.WARMED, w);
                default -> warming(List.of(seed("api", false)), WarmOutcome.NEEDS_BUILD, w);
            };
        }).build();
        FleetActions.Run run = actions.start(FleetActions.Kind.WARM, List.of(daemon("fresh", 1), daemon("stale", 2),
                daemon("broken", 3)), r -> { });
        assertThat(run.await(Duration.ofSeconds(30))).isTrue();
        List<FleetActions.Progress> p = run.progress();
        assertThat(p.get(0).state()).isEqualTo(FleetActions.State.DONE);
        assertThat(p.get(0).message()).isEqualTo("no stale seeds");
        assertThat(warmed.get("fresh")).isEmpty();
        assertThat(p.get(1).state()).isEqualTo(FleetActions.State.DONE);
        assertThat(warmed.get("stale")).containsExactly("api", "ml");
        assertThat(p.get(1).warms()).extracting(WarmResult::target).containsExactly("api", "ml");
        assertThat(p.get(1).message()).isEqualTo("2 warmed");
        assertThat(p.get(2).state()).isEqualTo(FleetActions.State.FAILED);
        assertThat(p.get(2).code()).isEqualTo("warm_failed");
        assertThat(p.get(2).message()).contains("api needs_build");
        assertThat(run.failed()).isEqualTo(1);
        assertThat(run.done()).isTrue();
    }

    @Test
    void cancelAll_queuedDaemonsNeverStart_andAtMostConcurrencyRunAtOnce() throws Exception {
        java.util.concurrent.atomic.AtomicInteger opened = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger cancels = new java.util.concurrent.atomic.AtomicInteger();
        FleetActions actions = FleetActions.builder().concurrency(2).reachability(d -> Optional.empty()).engines(d -> {
            opened.incrementAndGet();
            return scripted(
                    (proxy, m, args) -> switch (m.getName()) {
                        case "probe" -> new Action<Object>() {
                            final CompletableFuture<Object> r = new CompletableFuture<>();

                            public String id() {
                                return "p";
                            }

                            public CompletableFuture<Object> result() {
                                return r;
                            }

                            public void cancel() {
                                cancels.incrementAndGet();
                                r.completeExceptionally(new java.util.concurrent.CancellationException());
                            }
                        };
                        case "close" -> null;
                        default -> throw new UnsupportedOperationException(m.getName());
                    });
        }).build();
        List<DaemonEntry> five = List.of(daemon("a", 1), daemon("b", 2), daemon("c", 3), daemon("d", 4), daemon("e", 5));
        FleetActions.Run run = actions.start(FleetActions.Kind.PROBE, five, r -> { });
        dev.kiln.testkit.Await.await("two running", () -> run.progress().stream()
                .filter(x -> x.state() == FleetActions.State.RUNNING && x.message().equals("probing its servers")).count() == 2);
        assertThat(run.progress().stream().filter(x -> x.state() == FleetActions.State.QUEUED)).hasSize(3);
        run.cancelAll();
        assertThat(run.await(Duration.ofSeconds(30))).isTrue();
        assertThat(run.progress()).allMatch(x -> x.state() == FleetActions.State.CANCELLED);
        assertThat(opened.get()).as("queued ones never opened an engine").isEqualTo(2);
        assertThat(cancels.get()).as("each running one cancelled on its host").isEqualTo(2);
    }

    @Test
    void aDaemonLostWhileItsActionRuns_failsAsUnreachable() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean gone = new java.util.concurrent.atomic.AtomicBoolean();
        FleetActions actions = FleetActions.builder()
                .reachability(d -> gone.get() ? Optional.of("nothing listens there") : Optional.empty())
                .engines(d -> scripted(
                        (proxy, m, args) -> switch (m.getName()) {
                            case "probe" -> new Action<Object>() {
                                public String id() {
                                    return "p";
                                }

                                public CompletableFuture<Object> result() {
                                    return new CompletableFuture<>();
                                }

                                public void cancel() {
                                }
                            };
                            case "close" -> null;
                            default -> throw new UnsupportedOperationException(m.getName());
                        })).build();
        FleetActions.Run run = actions.start(FleetActions.Kind.PROBE, List.of(daemon("a", 1)), r -> { });
        dev.kiln.testkit.Await.await("running", () -> run.progress().get(0).message().equals("probing its servers"));
        gone.set(true);
        assertThat(run.await(Duration.ofSeconds(30))).isTrue();
        FleetActions.Progress p = run.progress().get(0);
        assertThat(p.state()).isEqualTo(FleetActions.State.FAILED);
        assertThat(p.code()).isEqualTo("unreachable");
        assertThat(p.message()).startsWith("unreachable while its probe ran (nothing listens there)");
    }

    @Test
    void start_refusesNoDaemonOrOneNamedTwice_andTheBuilderABadConcurrency() {
        FleetActions actions = FleetActions.builder().build();
        assertThatThrownBy(() -> actions.start(FleetActions.Kind.DOCTOR, List.of(), r -> { }))
                .hasMessageContaining("at least one daemon");
        assertThatThrownBy(() -> actions.start(FleetActions.Kind.DOCTOR, List.of(daemon("a", 1), daemon("A", 2)), r -> { }))
                .hasMessageContaining("named twice");
        assertThatThrownBy(() -> FleetActions.builder().concurrency(0)).hasMessageContaining("1 to 256");
    }
}
