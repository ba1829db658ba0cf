package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.Json;
import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.ServerSeeds;
import dev.kiln.core.startup.Launcher;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.workspace.WorkspaceException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code kiln warm --servers CONFIG [NAME…]}: a runtime seed per server launched through npx/npm exec/uvx/uv tool
 * run, in the seeds directory of the config's workspace, with the paste-ready snippets that make a client's child use
 * it. Other servers are listed as skipped with the reason.
 */
final class ServerWarm {
    /** Variable names whose value must never be echoed: a server's env is its own business. */
    private static final Set<String> SECRET_WORDS = Set.of("TOKEN", "SECRET", "PASSWORD", "KEY", "CREDENTIAL", "AUTH");

    private ServerWarm() {
    }

    /** The server seeds of the workspace {@code config} belongs to (its directory). */
    static ServerSeeds seeds(Path config) {
        return ServerSeeds.of(SeedCaches.of(config.toAbsolutePath().getParent()), System.getenv(), Clock.systemUTC());
    }

    static int run(Path given, List<String> names, boolean dryRun, boolean json) {
        Path file = ServerArgs.configFile(given);
        List<ServerConfig> chosen = ServerArgs.select(ServerArgs.read(file), names, file);
        ServerSeeds seeds = seeds(file);
        PrintStream out = System.out;
        boolean ok = true;
        Cancellation cancel = Cancellation.create();
        Thread hook = new Thread(cancel::cancel, "kiln-warm-servers-cancel");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            for (ServerConfig s : chosen) {
                ObjectNode o = Json.object().put("server", s.name()).put("dry_run", dryRun);
                Launcher l = Launcher.of(s);
                if (!l.fetches() || l == Launcher.PIPX_RUN || l == Launcher.BUNX || l == Launcher.PNPM_DLX
                        || l == Launcher.YARN_DLX) {
                    String why = l.fetches() ? l.label() + " is recognised but not seeded yet (npx, npm exec, uvx, uv tool run are)"
                            : "it is not launched through a package manager (" + l.label() + "): nothing to fetch, nothing to seed";
                    o.put("outcome", "skipped").put("message", why);
                    emit(out, json, o, s.name() + ": skipped: " + why);
                    continue;
                }
                List<String> secrets = s.env().keySet().stream()
                        .filter(k -> SECRET_WORDS.stream().anyMatch(w -> k.toUpperCase(java.util.Locale.ROOT).contains(w))).toList();
                try {
                    ServerSeeds.Plan p = seeds.plan(s);
                    ServerSeeds.Seed seed = seeds.warm(p, cancel, dryRun);
                    ok &= seed.outcome().isSuccess();
                    o.put("outcome", dryRun && seed.contentSha256().isEmpty() ? "would-warm" : seed.outcome().label())
                            .put("package", p.pkg()).put("requested", p.requested()).put("version", p.version())
                            .put("pinned", p.pinned()).put("runtime", p.runtimeVersion()).put("registry", p.registry())
                            .put("seed_dir", p.dir().toString()).put("content_sha256", seed.contentSha256())
                            .put("bytes", seed.bytes()).put("message", seed.message());
                    if (!p.pinned()) {
                        o.put("suggested_spec", p.pinnedSpec());
                    }
                    if (!secrets.isEmpty()) {
                        // Named, never shown: the warm ran without them.
                        secrets.forEach(o.putArray("env_withheld")::add);
                    }
                    StringBuilder text = new StringBuilder(s.name() + ": " + (dryRun && seed.contentSha256().isEmpty()
                            ? "would warm" : seed.outcome().label()) + " — " + seed.message());
                    if (!p.pinned()) {
                        text.append("\n  unpinned: the config asks for ").append(p.requested()).append("; pin it as ")
                                .append(p.pinnedSpec());
                    }
                    if (!secrets.isEmpty()) {
                        text.append("\n  its env holds ").append(String.join(", ", secrets))
                                .append(": withheld from the warm (the warm sees an allow-listed environment only)");
                    }
                    if (!dryRun && seed.outcome().isSuccess()) {
                        ObjectNode snippets = o.putObject("snippets");
                        for (ServerSeeds.Form form : ServerSeeds.Form.values()) {
                            ObjectNode f = snippets.putObject(form.label());
                            for (String fmt : List.of("json", "vscode", "codex")) {
                                String snip = seeds.snippet(s, seed, form, fmt);
                                f.put(fmt, snip);
                                if (fmt.equals("json") || fmt.equals("codex")) {
                                    text.append("\n  ").append(form.label()).append(" form (").append(fmt.equals("json")
                                            ? "mcpServers: Claude Desktop/Code, Cursor, Cline, Gemini" : "Codex config.toml")
                                            .append("):\n").append(indent(snip));
                                }
                            }
                        }
                    }
                    emit(out, json, o, text.toString());
                } catch (WorkspaceException e) {
                    ok = false;
                    o.put("outcome", "failed").put("message", e.getMessage());
                    emit(out, json, o, s.name() + ": failed — " + e.getMessage());
                }
                if (cancel.isCancelled()) {
                    break;
                }
            }
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook cancelled the warm
            }
        }
        return ok ? 0 : 1;
    }

    private static String indent(String s) {
        return "    " + s.strip().replace("\n", "\n    ") + "\n";
    }

    private static void emit(PrintStream out, boolean json, ObjectNode o, String text) {
        out.println(json ? Json.compact(o) : text);
    }

    /** {@code servers} with every server that has a sound seed pointed at it in {@code form}; the rest as they are. */
    static List<ServerConfig> seeded(Path file, List<ServerConfig> servers, ServerSeeds.Form form, Map<String, String> notes) {
        ServerSeeds seeds = seeds(file);
        return servers.stream().map(s -> {
            Launcher l = Launcher.of(s);
            if (!(l == Launcher.NPX || l == Launcher.NPM_EXEC || l == Launcher.UVX || l == Launcher.UV_TOOL_RUN)) {
                notes.put(s.name(), "not launched through npx/uvx: run as configured");
                return s;
            }
            try {
                ServerSeeds.Plan p = seeds.plan(s);
                var seed = seeds.find(p);
                if (seed.isEmpty()) {
                    notes.put(s.name(), (ServerSeeds.manifest(p.dir()).isPresent()
                            ? "its seed does not match its hash (corrupted or half-written): not used; re-warm it with"
                            : "no seed yet: warm it with") + " kiln warm --servers " + file + " " + s.name());
                    return s;
                }
                notes.put(s.name(), "seeded (" + form.label() + " form) from " + p.dir());
                return seeds.seeded(s, seed.get(), form);
            } catch (WorkspaceException e) {
                notes.put(s.name(), e.getMessage());
                return s;
            }
        }).toList();
    }
}
