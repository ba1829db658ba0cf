package dev.kiln.core.serve.wire;

import static dev.kiln.core.serve.wire.WireTypes.constant;
import static dev.kiln.core.serve.wire.WireTypes.list;
import static dev.kiln.core.serve.wire.WireTypes.name;
import static dev.kiln.core.serve.wire.WireTypes.path;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.kiln.core.seed.ServerSeedInfo;
import dev.kiln.core.seed.ServerSeeds;
import dev.kiln.core.seed.ServerSeedsWarmed;
import dev.kiln.core.serve.wire.WireTypes.Codec;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The server seeds' wire types: {@code GET seeds/servers} answers a list of {@link Seed}; {@code POST
 * seeds/servers/warm} starts an action whose result is a {@link Warmed}. Naming rule: {@link WireTypes}.
 */
public final class WireServerSeeds {
    private WireServerSeeds() {
    }

    /** A paste-ready config entry for one client and form. */
    record Snippet(@JsonProperty("form") String form, @JsonProperty("client") String client,
            @JsonProperty("file") String file, @JsonProperty("text") String text) {
        static Snippet of(ServerSeedInfo.Snippet s) {
            return new Snippet(name(s.form()), s.client(), s.file(), s.text());
        }

        ServerSeedInfo.Snippet core() {
            return new ServerSeedInfo.Snippet(constant(ServerSeeds.Form.class, form), client, file, text);
        }
    }

    /** One server seed ({@code GET /api/v1/seeds/servers}). */
    record Seed(@JsonProperty("server") String server, @JsonProperty("key") String key,
            @JsonProperty("launcher") String launcher, @JsonProperty("package") String pkg,
            @JsonProperty("version") String version, @JsonProperty("requested") String requested,
            @JsonProperty("runtime") String runtime, @JsonProperty("registry") String registry,
            @JsonProperty("seed_dir") @Nullable String seedDir, @JsonProperty("forms") List<String> forms,
            @JsonProperty("bytes") long bytes, @JsonProperty("content_sha256") String contentSha256,
            @JsonProperty("warmed_at") @Nullable Instant warmedAt, @JsonProperty("warm_duration_ms") @Nullable Long warmDurationMs,
            @JsonProperty("state") String state, @JsonProperty("problem") String problem,
            @JsonProperty("snippets") List<Snippet> snippets) {
        static Seed of(ServerSeedInfo s) {
            return new Seed(s.server(), s.key(), s.launcher(), s.pkg(), s.version(), s.requested(), s.runtimeVersion(),
                    s.registry(), path(s.dir()), s.forms().stream().map(WireTypes::name).toList(), s.bytes(), s.contentSha256(),
                    s.warmedAt(), s.warmDuration() == null ? null : s.warmDuration().toMillis(), name(s.state()), s.problem(),
                    s.snippets().stream().map(Snippet::of).toList());
        }

        ServerSeedInfo core() {
            return new ServerSeedInfo(server, key, launcher, pkg, version, requested, runtime, registry, path(seedDir),
                    list(forms).stream().map(f -> constant(ServerSeeds.Form.class, f)).toList(), bytes,
                    contentSha256 == null ? "" : contentSha256, warmedAt, warmDurationMs == null ? null
                            : Duration.ofMillis(warmDurationMs), constant(ServerSeedInfo.State.class, state),
                    problem == null ? "" : problem, list(snippets).stream().map(Snippet::core).toList());
        }
    }

    /** One server's warm. */
    record WarmedServer(@JsonProperty("server") String server, @JsonProperty("outcome") String outcome,
            @JsonProperty("message") String message, @JsonProperty("seed") @Nullable Seed seed) {
        static WarmedServer of(ServerSeedsWarmed.Server s) {
            return new WarmedServer(s.server(), s.outcome(), s.message(), s.seed() == null ? null : Seed.of(s.seed()));
        }

        ServerSeedsWarmed.Server core() {
            return new ServerSeedsWarmed.Server(server, outcome, message == null ? "" : message,
                    seed == null ? null : seed.core());
        }
    }

    /** A server-seed warm action's result. */
    record Warmed(@JsonProperty("servers") List<WarmedServer> servers) {
        static Warmed of(ServerSeedsWarmed w) {
            return new Warmed(w.servers().stream().map(WarmedServer::of).toList());
        }

        ServerSeedsWarmed core() {
            return new ServerSeedsWarmed(list(servers).stream().map(WarmedServer::core).toList());
        }
    }

    /** The servers a warm request names ({@code {"servers": [..]}}; absent or empty: every seedable server). */
    public static List<String> servers(com.fasterxml.jackson.databind.JsonNode body) {
        com.fasterxml.jackson.databind.JsonNode s = body.path("servers");
        if (!s.isMissingNode() && !s.isNull() && !s.isArray()) {
            throw new IllegalArgumentException("\"servers\" must be a list of server names");
        }
        List<String> out = new java.util.ArrayList<>();
        s.forEach(n -> {
            if (!n.isTextual() || n.asText().isBlank()) {
                throw new IllegalArgumentException("\"servers\" must be a list of server names, not " + n);
            }
            out.add(n.asText());
        });
        return out;
    }

    static final List<Codec<?, ?>> CODECS = List.of(
            Codec.of(ServerSeedInfo.class, Seed.class, Seed::of, Seed::core),
            Codec.of(ServerSeedsWarmed.class, Warmed.class, Warmed::of, Warmed::core));
}
