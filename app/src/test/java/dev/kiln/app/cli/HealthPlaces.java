package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.alert.AlertRules;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.health.HealthReason;
import dev.kiln.core.health.HealthState;
import dev.kiln.core.health.HealthVerdict;
import dev.kiln.core.serve.client.RemoteEngine;
import dev.kiln.testkit.Await;
import dev.kiln.ui.fleet.FleetRow;
import dev.kiln.ui.fleet.FleetViewModel;
import dev.kiln.ui.health.HealthViewModel;
import dev.kiln.ui.util.Background;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

/**
 * The five places a daemon's health verdict shows, each asked for itself, for the tests that provoke a reason for
 * real: the Fleet page's row, {@code kiln status} (exit code and reasons), {@code GET /api/v1/health}, {@code /metrics}
 * ({@code kiln_health{state=…}} and {@code kiln_health_reason{code=…}}) and the console's cards attached to the daemon
 * (their view model over a remote engine). Each place is awaited on its own (a daemon caches its host facts for up to
 * 5 s, the Fleet page asks every 2 s), and a place that disagrees fails with what it showed last.
 */
final class HealthPlaces {
    static final Duration PATIENCE = Duration.ofSeconds(90);
    private static final ObjectMapper M = new ObjectMapper();

    private HealthPlaces() {
    }

    /** What one place shows: the state's word and the reasons' codes. */
    record Seen(String state, List<String> codes) {
        static Seen of(HealthVerdict v) {
            return new Seen(v.state().wireName(), v.reasons().stream().map(HealthReason::code).toList());
        }

        boolean shows(HealthState s, String... want) {
            return state.equals(s.wireName()) && codes.containsAll(List.of(want));
        }
    }

    /** The Fleet page's model over {@code daemons}, polling them for real on its own timer (no window). */
    static FleetViewModel fleet(DaemonEntry... daemons) {
        FleetViewModel vm = new FleetViewModel(null, Background.inline(), FleetViewModel.Scheduler.daemonThread(),
                FleetViewModel.HealthSource.api(), Clock.systemUTC(), d -> { });
        for (DaemonEntry d : daemons) {
            vm.attach(d);
        }
        return vm;
    }

    /** The console's cards attached to a daemon: its remote engine and the cards' model over it. */
    record Cards(Engine engine, HealthViewModel vm) implements AutoCloseable {
        static Cards attach(URI url, Path tokenFile) {
            Engine e = RemoteEngine.connect(url, tokenFile, null, Clock.systemUTC());
            e.projection().start(false);
            return new Cards(e, new HealthViewModel(e, Background.inline(), AlertRules.defaults()));
        }

        /** Asks again (as the page does after an event or every 5 s) and reads the verdict and the Health card. */
        Seen now() {
            vm.refresh();
            Seen s = Seen.of(vm.verdictProperty().get());
            String card = vm.cardProperty(HealthViewModel.Card.HEALTH).get().state().wireName();
            return card.equals(s.state()) ? s : new Seen(s.state() + " (its Health card: " + card + ")", s.codes());
        }

        @Override
        public void close() {
            engine.close();
        }
    }

    /**
     * Every place shows {@code state}, each with {@code codes} among its reasons.
     *
     * @param row the daemon's row on the Fleet page now (empty while it is not listed)
     */
    static void seenEverywhere(String name, URI url, Callable<Optional<FleetRow>> row, Cards cards, HealthState state,
            String... codes) throws Exception {
        String want = state.wireName() + " " + List.of(codes);
        until(name + " on the Fleet page: " + want, () -> row.call().flatMap(FleetRow::verdict).map(Seen::of)
                .map(Seen::toString).orElse("not judged yet"), s -> s.startsWith("Seen[state=" + state.wireName() + ",")
                && List.of(codes).stream().allMatch(s::contains));
        int exit = switch (state) {
            case HEALTHY -> 0;
            case DEGRADED -> 1;
            case FAILING -> 2;
        };
        until("kiln status " + name + ": exit " + exit + ", " + want, () -> {
            CliRun r = CliRun.kiln("status", url.toString());
            return "exit " + r.exit() + "\n" + r.out() + r.err();
        }, s -> s.startsWith("exit " + exit + "\n") && s.contains(url + ": " + state.wireName())
                && List.of(codes).stream().allMatch(c -> s.contains(" " + c + ": ")));
        until("GET /api/v1/health of " + name + ": " + want, () -> {
            JsonNode h = M.readTree(get(url.resolve("/api/v1/health"), Duration.ofSeconds(30)));
            List<String> c = new java.util.ArrayList<>();
            h.path("reasons").forEach(x -> c.add(x.path("code").asText()));
            return new Seen(h.path("verdict").asText(), c).toString();
        }, s -> s.startsWith("Seen[state=" + state.wireName() + ",") && List.of(codes).stream().allMatch(s::contains));
        until("/metrics of " + name + ": " + want, () -> get(url.resolve("/metrics"), Duration.ofSeconds(30)),
                s -> s.contains("kiln_health{state=\"" + state.wireName() + "\"} 1.0")
                        && List.of(codes).stream().allMatch(c -> s.contains("kiln_health_reason{code=\"" + c + "\"} 1.0")));
        until("the console's cards attached to " + name + ": " + want, () -> cards.now().toString(),
                s -> s.startsWith("Seen[state=" + state.wireName() + ",") && List.of(codes).stream().allMatch(s::contains));
    }

    /**
     * Every place says the daemon cannot be asked, within bounds: the Fleet page's row and the cards are failing with
     * the reason {@code unreachable}, {@code kiln status --timeout 2s} exits 2 naming it, and the health answer and
     * {@code /metrics} give none within 3 s.
     */
    static void unreachableEverywhere(String name, URI url, Callable<Optional<FleetRow>> row, Cards cards) throws Exception {
        // the cards ask with the remote engine's own bound (10 s): asked meanwhile, not after the others
        java.util.concurrent.CompletableFuture<Seen> card = java.util.concurrent.CompletableFuture.supplyAsync(cards::now);
        until(name + " on the Fleet page: failing [unreachable]", () -> row.call().flatMap(FleetRow::verdict).map(Seen::of)
                .map(Seen::toString).orElse("not judged yet"), s -> s.equals(new Seen("failing", List.of("unreachable")).toString()));
        long t0 = System.nanoTime();
        CliRun status = CliRun.kiln("status", url.toString(), "--timeout", "2s");
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(status.exit()).as("kiln status of " + name + ": " + status.out() + status.err()).isEqualTo(2);
        assertThat(status.out()).contains(url + ": failing").contains("unreachable: ");
        // generous: only a status that ignored its --timeout (and waited for the daemon) takes longer
        assertThat(tookMs).as("kiln status ended by its --timeout, not by the daemon").isLessThan(30_000);
        for (String route : List.of("/api/v1/health", "/metrics")) {
            assertThat(answers(url.resolve(route), Duration.ofSeconds(3))).as(route + " of " + name + " answers nothing").isFalse();
        }
        Seen seen = card.get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(seen).as("the console's cards attached to " + name).isEqualTo(new Seen("failing", List.of("unreachable")));
    }

    private static void until(String what, Callable<String> look, Predicate<String> ok) throws InterruptedException {
        String[] last = {"nothing yet"};
        try {
            Await.await(what, PATIENCE, () -> {
                try {
                    last[0] = look.call();
                } catch (Exception e) {
                    last[0] = e.toString();
                }
                if (ok.test(last[0])) {
                    return true;
                }
                try {
                    Thread.sleep(200); // not again at once: each look asks a daemon or runs kiln status
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return false;
            });
        } catch (AssertionError e) {
            throw new AssertionError(what + "; it showed last: " + last[0], e);
        }
    }

    /** Holds the workspace's server {@code name} (one of the demo's real MCP servers) to a startup timeout of {@code ms}. */
    static void timeout(Path ws, String name, int ms) throws java.io.IOException {
        Path f = ws.resolve("servers.json");
        com.fasterxml.jackson.databind.node.ObjectNode root = (com.fasterxml.jackson.databind.node.ObjectNode) M.readTree(f.toFile());
        ((com.fasterxml.jackson.databind.node.ObjectNode) root.path("mcpServers").path(name)).put("startup_timeout_ms", ms);
        java.nio.file.Files.writeString(f, M.writerWithDefaultPrettyPrinter().writeValueAsString(root));
    }

    static String get(URI uri, Duration timeout) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(timeout).build();
        return http.send(HttpRequest.newBuilder(uri).timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static boolean answers(URI uri, Duration timeout) {
        try {
            get(uri, timeout);
            return true;
        } catch (java.net.http.HttpTimeoutException e) {
            return false;
        } catch (Exception e) {
            throw new AssertionError("asking " + uri + " failed otherwise than by its timeout", e);
        }
    }
}
