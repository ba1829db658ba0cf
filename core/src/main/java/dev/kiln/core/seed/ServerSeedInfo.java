package dev.kiln.core.seed;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One server's runtime seed as it is on disk ({@link ServerSeeds#inventory}), for the console and
 * {@code GET /api/v1/seeds/servers}: what it is for, whether it can be used, and the snippets that make a client's
 * child use it.
 *
 * @param server the server's name ({@code servers.json}), or the name its warm recorded when no server uses it now
 * @param key the seed's key (its directory name): package, version and a digest of runtime and registry; empty when
 *     never warmed
 * @param launcher {@code npx}, {@code uvx}, …
 * @param pkg the package
 * @param version the exact version the seed holds (or, never warmed, the one the config asks for)
 * @param requested what the config asks for ({@code latest}, a range, the exact version)
 * @param runtimeVersion the runtime it was warmed with ({@code node v20.20.2}, {@code uv 0.13.9})
 * @param registry the registry it came from
 * @param dir where it lives, when it exists
 * @param forms the forms it can be launched in (both when sound, none otherwise)
 * @param bytes its size
 * @param contentSha256 the digest of its files at warm time, or empty
 * @param warmedAt when it was warmed
 * @param warmDuration how long that warm took
 * @param state whether it can be used
 * @param problem for people, when not {@link State#OK}: what is wrong and what to do (names the server)
 * @param snippets paste-ready config entries per form and client, when sound
 */
public record ServerSeedInfo(String server, String key, String launcher, String pkg, String version, String requested,
        String runtimeVersion, String registry, @Nullable Path dir, List<ServerSeeds.Form> forms, long bytes,
        String contentSha256, @Nullable Instant warmedAt, @Nullable Duration warmDuration, State state, String problem,
        List<Snippet> snippets) {

    public ServerSeedInfo {
        forms = List.copyOf(forms);
        snippets = List.copyOf(snippets);
    }

    /** Whether a seed can be used. */
    public enum State {
        /** Complete, its files hash to what was warmed, and it is the seed of the server's current config. */
        OK,
        /** Sound, but not what the server's config (or this runtime) would warm now: another version, runtime or registry. */
        STALE,
        /** Half-written or changed since its warm (its files do not hash to what was recorded): never used. */
        CORRUPT,
        /** The server is seedable and has no seed yet. */
        MISSING;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A config entry that makes one client's child use the seed.
     *
     * @param form cache (the env) or installed (the rewritten command)
     * @param client the client's name ({@code claude-desktop}, {@code vscode}, {@code codex}, …)
     * @param file the client's config file it goes into, for people
     * @param text the entry, in that client's format
     */
    public record Snippet(ServerSeeds.Form form, String client, String file, String text) {
    }

    /** The snippet for {@code form} and {@code client}, when there is one. */
    public Optional<Snippet> snippet(ServerSeeds.Form form, String client) {
        return snippets.stream().filter(s -> s.form() == form && s.client().equals(client)).findFirst();
    }

    /** {@code pkg@1.2.3} (npm) or {@code pkg==1.2.3} (uv), for people. */
    public String spec() {
        return launcher.startsWith("u") || launcher.startsWith("pipx") ? pkg + "==" + version : pkg + "@" + version;
    }
}
