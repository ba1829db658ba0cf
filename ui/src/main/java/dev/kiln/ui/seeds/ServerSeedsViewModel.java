package dev.kiln.ui.seeds;

import dev.kiln.core.engine.Action;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.seed.ServerSeedInfo;
import dev.kiln.core.seed.ServerSeeds;
import dev.kiln.core.seed.ServerSeedsWarmed;
import dev.kiln.ui.util.Background;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The server seeds beside the target seeds: one row per runtime seed of a server launched through npx/uvx (its state
 * judged by its hash on the engine's host, and its place against the object store as the target seeds show theirs),
 * a warm of one or of every server that needs one, push / pull of the selected one through the engine, and for the selected
 * seed the paste-ready entry for the chosen client and form, with a copy to the clipboard. A corrupt, stale or
 * missing seed offers no snippet: the page says why and what to do instead.
 *
 * <p>Concurrency: FX thread only; the engine is asked in {@link Background} work. {@code running} is set by the
 * background work and read by {@link #cancel()}, hence volatile.
 */
public final class ServerSeedsViewModel {
    /** The clients a snippet is offered for, in the order the chooser lists them. */
    public static final List<String> CLIENTS = List.of("claude-desktop", "claude-code", "cursor", "vscode", "codex",
            "gemini", "cline");
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("MM-dd HH:mm").withZone(ZoneId.systemDefault());

    /**
     * One server seed as the table shows it.
     *
     * @param server the server
     * @param state ok / stale / corrupt / missing
     * @param spec {@code pkg@version}
     * @param forms the forms it can be launched in
     * @param runtime the runtime it was warmed with
     * @param size its size
     * @param warmed when it was warmed
     * @param problem what is wrong and what to do, empty when ok
     * @param seed the seed behind the row
     * @param store where the seed is against the object store (local only, in the store, both, differing…)
     * @param storeReason the store's object, or why it could not be compared
     * @param progress how a push or pull of it stands or just ended, empty otherwise
     */
    public record Row(String server, ServerSeedInfo.State state, String spec, String forms, String runtime, String size,
            String warmed, String problem, ServerSeedInfo seed, StoreState store, String storeReason, String progress) {
        /** The state as a word (never colour alone). */
        public String stateText() {
            return state.label();
        }

        /** Whether Push has something to send: a sound seed here of a runtime whose seeds travel (npm; uv's do not). */
        public boolean offersPush() {
            return store.offersPush() && state == ServerSeedInfo.State.OK && !seed.launcher().startsWith("uv");
        }

        /** Whether Pull has something to take: the store has this server's seed. */
        public boolean offersPull() {
            return store.offersPull() && !seed.launcher().startsWith("uv");
        }

        /** The store column: its glyph and word, then how a transfer of it stands. */
        public String storeText() {
            return store.label() + (progress.isEmpty() ? "" : " · " + progress);
        }
    }

    private final Engine engine;
    private final Background background;
    private final Consumer<String> clipboard;
    private final ObservableList<Row> rows = FXCollections.observableArrayList();
    private final ObjectProperty<Row> selected = new SimpleObjectProperty<>();
    private final StringProperty client = new SimpleStringProperty(CLIENTS.get(0));
    private final ObjectProperty<ServerSeeds.Form> form = new SimpleObjectProperty<>(ServerSeeds.Form.CACHE);
    private final ReadOnlyStringWrapper snippet = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper snippetNote = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper placeholder = new ReadOnlyStringWrapper("Reading the server seeds (each is hashed)…");
    private final ReadOnlyStringWrapper message = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
    private final ReadOnlyBooleanWrapper warming = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyBooleanWrapper anyNeedsWarm = new ReadOnlyBooleanWrapper(false);
    private volatile Action<ServerSeedsWarmed> running;
    // --- the object store: each seed's place there (read after the seeds: it hashes them and asks the store)
    private List<ServerSeedInfo> seeds = List.of();
    private Optional<dev.kiln.core.store.StoreStatus> store = Optional.empty();
    private String storeReadError = "";
    private boolean storeRead;
    private final java.util.Map<String, String> progress = new java.util.HashMap<>();
    private final ReadOnlyBooleanWrapper transferring = new ReadOnlyBooleanWrapper(false);
    private final ReadOnlyBooleanWrapper storeConfigured = new ReadOnlyBooleanWrapper(false);

    /**
     * @param clipboard where {@link #copy()} puts the snippet (the view passes the system clipboard; a test, a list)
     */
    public ServerSeedsViewModel(Engine engine, Background background, Consumer<String> clipboard) {
        this.engine = engine;
        this.background = background;
        this.clipboard = clipboard;
        selected.addListener((o, a, b) -> updateSnippet());
        client.addListener((o, a, b) -> updateSnippet());
        form.addListener((o, a, b) -> updateSnippet());
    }

    /** Re-reads the server seeds (each is hashed on the engine's host), then their place against the store. */
    public void refresh() {
        background.run(engine.seeds()::servers, s -> {
            show(s);
            refreshStore();
        }, e -> error.set("Could not read the server seeds: " + e.getMessage()));
    }

    /** Asks the engine where each server seed is against the store (it hashes them and asks the store per server). */
    public void refreshStore() {
        background.run(engine.store()::serverStatus, s -> {
            store = s;
            storeReadError = "";
            storeRead = true;
            storeConfigured.set(s.isPresent());
            rebuild();
        }, e -> {
            storeReadError = "the store's state could not be read: " + e.getMessage();
            storeRead = true;
            rebuild();
        });
    }

    private void show(List<ServerSeedInfo> seeds) {
        this.seeds = List.copyOf(seeds);
        placeholder.set("No server in servers.json is launched through npx or uvx");
        error.set("");
        rebuild();
    }

    /** The rows from the seeds and the store's answer, the selection kept on the same server. */
    private void rebuild() {
        String keep = selected.get() == null ? null : selected.get().server();
        rows.setAll(seeds.stream().map(s -> {
            Row r = row(s);
            StoreState.Status st = storeRead ? StoreState.ofServer(s.server(), store, storeReadError)
                    : new StoreState.Status(StoreState.UNKNOWN, "");
            return new Row(r.server(), r.state(), r.spec(), r.forms(), r.runtime(), r.size(), r.warmed(), r.problem(), s,
                    st.state(), st.reason(), progress.getOrDefault(s.server(), ""));
        }).toList());
        anyNeedsWarm.set(rows.stream().anyMatch(r -> needsWarm(r.state())));
        selected.set(rows.stream().filter(r -> r.server().equals(keep)).findFirst()
                .orElse(rows.stream().filter(r -> r.state() == ServerSeedInfo.State.OK).findFirst()
                        .orElse(rows.isEmpty() ? null : rows.get(0))));
        updateSnippet();
    }

    private static boolean needsWarm(ServerSeedInfo.State s) {
        return s == ServerSeedInfo.State.MISSING || s == ServerSeedInfo.State.CORRUPT;
    }

    static Row row(ServerSeedInfo s) {
        String forms = s.forms().isEmpty() ? "-" : String.join(" + ", s.forms().stream().map(ServerSeeds.Form::label).toList());
        String size = s.bytes() <= 0 ? "-" : s.bytes() >= 1 << 20 ? String.format(Locale.ROOT, "%.1f MiB", s.bytes() / 1048576.0)
                : String.format(Locale.ROOT, "%d KiB", s.bytes() / 1024);
        String when = s.warmedAt() == null ? "never" : TIME.format(s.warmedAt())
                + (s.warmDuration() == null ? "" : String.format(Locale.ROOT, " (%.1f s)", s.warmDuration().toMillis() / 1000.0));
        return new Row(s.server(), s.state(), s.pkg().isEmpty() ? "-" : s.spec(), forms,
                s.runtimeVersion().isEmpty() ? "-" : s.runtimeVersion(), size, when, s.problem(), s, StoreState.UNKNOWN, "", "");
    }

    private void updateSnippet() {
        Row r = selected.get();
        if (r == null) {
            snippet.set("");
            snippetNote.set(rows.isEmpty() ? "No server in servers.json is launched through npx or uvx: nothing to seed." : "");
            return;
        }
        Optional<ServerSeedInfo.Snippet> s = r.seed().snippet(form.get(), client.get());
        if (s.isPresent()) {
            snippet.set(s.get().text());
            snippetNote.set((form.get() == ServerSeeds.Form.CACHE
                    ? "Cache form: the client keeps launching " + r.seed().launcher() + ", pointed at the seed, offline."
                    : "Installed form: the client runs the installed package directly, no package manager at start.")
                    + " Merge into " + s.get().file() + " (keep the server's own env).");
        } else {
            snippet.set("");
            snippetNote.set(r.state() == ServerSeedInfo.State.OK
                    ? "No " + form.get().label() + " form for " + r.server() + ": " + r.problem()
                    : "No snippet for " + r.server() + " (" + r.state().label() + "): " + r.problem());
        }
    }

    /** Copies the snippet shown to the clipboard; says so, or why there is nothing to copy. */
    public void copy() {
        if (snippet.get().isEmpty()) {
            message.set("Nothing to copy: " + snippetNote.get());
            return;
        }
        clipboard.accept(snippet.get());
        message.set("Copied the " + form.get().label() + " form's entry of " + selected.get().server() + " for " + client.get()
                + ".");
    }

    /** Warms the selected server's seed. */
    public void warmSelected() {
        Row r = selected.get();
        if (r != null) {
            warm(List.of(r.server()));
        }
    }

    /** Warms every server whose seed is missing or corrupt. */
    public void warmAllNeeded() {
        List<String> names = rows.stream().filter(r -> needsWarm(r.state())).map(Row::server).toList();
        if (!names.isEmpty()) {
            warm(names);
        }
    }

    private void warm(List<String> names) {
        if (warming.get()) {
            return;
        }
        warming.set(true);
        error.set("");
        message.set("Warming " + String.join(", ", names) + " (npm/uv download the packages once)…");
        background.run(() -> {
            Action<ServerSeedsWarmed> a = engine.seeds().warmServers(names, "console-" + UUID.randomUUID());
            running = a;
            return a.result().get();
        }, w -> {
            running = null;
            warming.set(false);
            message.set(String.join("; ", w.servers().stream().map(s -> s.server() + ": " + s.outcome()
                    + (s.outcome().equals("warmed") || s.outcome().equals("unchanged") ? "" : " — " + s.message())).toList()));
            refresh();
        }, e -> {
            running = null;
            warming.set(false);
            error.set("The warm did not finish: " + (e.getCause() != null && e instanceof java.util.concurrent.ExecutionException
                    ? e.getCause().getMessage() : e.getMessage()));
            refresh();
        });
    }

    // --- push / pull of the selected server's seed, through the engine (a daemon moves it on its own host)

    /** Pushes the selected server's seed from the engine's host to the store. */
    public void pushSelected() {
        transfer(true);
    }

    /** Pulls the store's seed of the selected server onto the engine's host (checked, then swapped in whole). */
    public void pullSelected() {
        transfer(false);
    }

    private void transfer(boolean push) {
        Row r = selected.get();
        if (r == null || warming.get() || transferring.get()) {
            return;
        }
        String server = r.server();
        String verb = push ? "push" : "pull";
        transferring.set(true);
        error.set("");
        progress.put(server, push ? "pushing…" : "pulling…");
        message.set((push ? "Pushing " : "Pulling ") + server + "'s seed " + (push ? "to" : "from") + " the store…");
        rebuild();
        String key = "console-" + UUID.randomUUID(); // one per press: a retried request moves the seed once
        background.run(() -> {
            Action<dev.kiln.core.store.Transfer> a = push ? engine.store().pushServer(server, key) : engine.store().pullServer(server, key);
            try {
                return a.result().get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw e.getCause() instanceof Exception x ? x : e;
            }
        }, t -> {
            transferring.set(false);
            progress.put(server, SeedsViewModel.describeProgress(t));
            message.set(SeedsViewModel.describe(server, t));
            refresh();
        }, e -> {
            transferring.set(false);
            progress.put(server, verb + " failed");
            message.set("");
            error.set(Character.toUpperCase(verb.charAt(0)) + verb.substring(1) + " of " + server + "'s seed failed: "
                    + e.getMessage());
            refresh();
        });
    }

    /** Cancels the running warm. */
    public void cancel() {
        Action<ServerSeedsWarmed> a = running;
        if (a != null) {
            a.cancel();
        }
    }

    public ObservableList<Row> rows() {
        return rows;
    }

    public ObjectProperty<Row> selectedProperty() {
        return selected;
    }

    public StringProperty clientProperty() {
        return client;
    }

    public ObjectProperty<ServerSeeds.Form> formProperty() {
        return form;
    }

    public ReadOnlyStringProperty snippetProperty() {
        return snippet.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty snippetNoteProperty() {
        return snippetNote.getReadOnlyProperty();
    }

    /** What the table shows while it has no row: reading, or that no server is seedable. */
    public ReadOnlyStringProperty placeholderProperty() {
        return placeholder.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty messageProperty() {
        return message.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty errorProperty() {
        return error.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty warmingProperty() {
        return warming.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty anyNeedsWarmProperty() {
        return anyNeedsWarm.getReadOnlyProperty();
    }

    /** A push or pull this pane started is running. */
    public ReadOnlyBooleanProperty transferringProperty() {
        return transferring.getReadOnlyProperty();
    }

    /** Whether kiln.json names a store (Push / Pull have somewhere to go). */
    public ReadOnlyBooleanProperty storeConfiguredProperty() {
        return storeConfigured.getReadOnlyProperty();
    }
}
