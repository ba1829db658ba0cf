package dev.kiln.ui.seeds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.engine.EngineException;
import dev.kiln.core.seed.ServerSeedInfo;
import dev.kiln.core.seed.ServerSeeds;
import dev.kiln.core.seed.ServerSeedsWarmed;
import dev.kiln.ui.util.Background;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The server seeds' view model without a window: rows from the engine's inventory, the snippet for the chosen client
 * and form, copy to the clipboard, no snippet (and why) for a corrupt or missing seed, warm of the ones that need it.
 * The engine answers only the two server-seed calls (the real ones are proven against npm in core's
 * {@code ServerSeedsApiTest}); anything else it is asked fails the test.
 */
class ServerSeedsViewModelTest {
    private final AtomicReference<List<ServerSeedInfo>> inventory = new AtomicReference<>(List.of());
    private final List<List<String>> warmed = new ArrayList<>();

    private Engine engine() {
        return dev.kiln.ui.Scripted.engine((p, m, a) -> {
            switch (m.getName()) {
                case "servers":
                    return inventory.get();
                case "warmServers":
                    @SuppressWarnings("unchecked")
                    List<String> names = (List<String>) a[0];
                    warmed.add(names);
                    inventory.set(List.of(ok("memory"), ok("time")));
                    return action(new ServerSeedsWarmed(names.stream().map(n -> new ServerSeedsWarmed.Server(n, "warmed",
                            "warmed " + n, null)).toList()));
                case "serverStatus":
                    return java.util.Optional.empty(); // kiln.json names no store
                case "location":
                    return "test";
                default:
                    throw new EngineException(EngineException.Kind.REJECTED, "not part of this test: " + m.getName());
            }
        });
    }

    private static Action<ServerSeedsWarmed> action(ServerSeedsWarmed w) {
        return new Action<>() {
            @Override
            public String id() {
                return "warm_servers-1";
            }

            @Override
            public CompletableFuture<ServerSeedsWarmed> result() {
                return CompletableFuture.completedFuture(w);
            }

            @Override
            public void cancel() {
            }
        };
    }

    private static ServerSeedInfo ok(String server) {
        List<ServerSeedInfo.Snippet> snippets = new ArrayList<>();
        for (ServerSeeds.Form f : ServerSeeds.Form.values()) {
            for (String c : ServerSeedsViewModel.CLIENTS) {
                snippets.add(new ServerSeedInfo.Snippet(f, c, c + ".json", f.label() + " entry of " + server + " for " + c));
            }
        }
        return new ServerSeedInfo(server, "npm-" + server + "-1.0.0-abc", "npx", "pkg-" + server, "1.0.0", "1.0.0",
                "node v20.20.2", "https://registry.npmjs.org/", Path.of("/seeds/" + server), List.of(ServerSeeds.Form.values()),
                3 * 1024 * 1024, "ab12", Instant.parse("2026-12-01T10:00:00Z"), Duration.ofMillis(14_200),
                ServerSeedInfo.State.OK, "", snippets);
    }

    private static ServerSeedInfo bad(String server, ServerSeedInfo.State state, String problem) {
        return new ServerSeedInfo(server, "", "uvx", "pkg-" + server, "2.0.0", "2.0.0", "uv 0.13.9", "https://pypi.org/simple",
                null, List.of(), 0, "", null, null, state, problem, List.of());
    }

    @Test
    void okSeed_snippetPerClientAndForm_copiedToTheClipboard() {
        inventory.set(List.of(ok("memory")));
        List<String> clipboard = new ArrayList<>();
        ServerSeedsViewModel vm = new ServerSeedsViewModel(engine(), Background.inline(), clipboard::add);

        vm.refresh();
        assertThat(vm.rows()).singleElement().satisfies(r -> {
            assertThat(r.stateText()).isEqualTo("ok");
            assertThat(r.spec()).isEqualTo("pkg-memory@1.0.0");
            assertThat(r.forms()).isEqualTo("cache + installed");
            assertThat(r.store()).as("kiln.json names no store").isEqualTo(StoreState.NOT_CONFIGURED);
            assertThat(r.offersPush() || r.offersPull()).as("nothing to push to or pull from").isFalse();
            assertThat(r.size()).isEqualTo("3.0 MiB");
        });
        assertThat(vm.selectedProperty().get().server()).as("the first sound seed is selected").isEqualTo("memory");
        assertThat(vm.snippetProperty().get()).isEqualTo("cache entry of memory for claude-desktop");
        assertThat(vm.snippetNoteProperty().get()).contains("Cache form").contains("claude-desktop.json");

        vm.clientProperty().set("codex");
        vm.formProperty().set(ServerSeeds.Form.INSTALLED);
        assertThat(vm.snippetProperty().get()).isEqualTo("installed entry of memory for codex");
        assertThat(vm.snippetNoteProperty().get()).contains("Installed form");
        vm.copy();
        assertThat(clipboard).containsExactly("installed entry of memory for codex");
        assertThat(vm.messageProperty().get()).contains("Copied").contains("codex");
    }

    @Test
    void corruptAndMissingSeeds_noSnippetButWhy_warmMissingWarmsExactlyThem() {
        inventory.set(List.of(bad("time", ServerSeedInfo.State.CORRUPT, "server time: does not match its hash; never used"),
                bad("fetch", ServerSeedInfo.State.MISSING, "server fetch: no seed yet; warm it"), ok("memory")));
        List<String> clipboard = new ArrayList<>();
        ServerSeedsViewModel vm = new ServerSeedsViewModel(engine(), Background.inline(), clipboard::add);
        vm.refresh();
        assertThat(vm.anyNeedsWarmProperty().get()).isTrue();

        vm.selectedProperty().set(vm.rows().get(0));
        assertThat(vm.snippetProperty().get()).isEmpty();
        assertThat(vm.snippetNoteProperty().get()).contains("No snippet for time (corrupt)").contains("never used");
        vm.copy();
        assertThat(clipboard).as("a corrupt seed is never offered").isEmpty();
        assertThat(vm.messageProperty().get()).startsWith("Nothing to copy");

        vm.warmAllNeeded();
        assertThat(warmed).containsExactly(List.of("time", "fetch"));
        assertThat(vm.messageProperty().get()).contains("time: warmed").contains("fetch: warmed");
        assertThat(vm.rows()).extracting(ServerSeedsViewModel.Row::stateText).containsOnly("ok");
        assertThat(vm.anyNeedsWarmProperty().get()).isFalse();
        assertThat(vm.warmingProperty().get()).isFalse();
    }

    @Test
    void noSeedableServer_saysSo() {
        ServerSeedsViewModel vm = new ServerSeedsViewModel(engine(), Background.inline(), s -> { });
        vm.refresh();
        assertThat(vm.rows()).isEmpty();
        assertThat(vm.snippetNoteProperty().get()).contains("No server in servers.json is launched through npx or uvx");
    }
}
