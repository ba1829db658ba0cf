package dev.kiln.core.serve.wire;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.store.SeedPresence;
import dev.kiln.core.store.ServerSeedPresence;
import dev.kiln.core.store.StoreKey;
import dev.kiln.core.store.StoreStats;
import dev.kiln.core.store.StoreStatus;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET store/servers}: where each seedable server's runtime seed is against the store (the server seeds' side of
 * {@link StoreWire.Status}, which lists targets). A file of its own so the store's target routes stay as published.
 */
public final class WireStoreServers {
    private WireStoreServers() {
    }

    /** {@code GET /api/v1/store/servers}. */
    public record Status(@JsonProperty("configured") boolean configured, @JsonProperty("store") @Nullable String store,
            @JsonProperty("problem") @Nullable String problem, @JsonProperty("servers") List<Server> servers,
            @JsonProperty("stats") StoreWire.Stats stats) {

        static Status of(Optional<StoreStatus> s) {
            if (s.isEmpty()) {
                return new Status(false, null, null, List.of(), StoreWire.Stats.of(StoreStats.EMPTY));
            }
            StoreStatus st = s.get();
            return new Status(true, st.store(), st.problem().orElse(null), st.servers().stream().map(Server::of).toList(),
                    StoreWire.Stats.of(st.stats()));
        }

        public Optional<StoreStatus> toCore() {
            if (!configured) {
                return Optional.empty();
            }
            return Optional.of(new StoreStatus(store == null ? "" : store, List.of(), stats.toCore(),
                    Optional.ofNullable(problem), servers.stream().map(Server::toCore).toList()));
        }
    }

    /** One server: its store key and place (both null when the key cannot be known here) and a note for people. */
    public record Server(@JsonProperty("server") String server, @JsonProperty("key") @Nullable String key,
            @JsonProperty("place") @Nullable String place, @JsonProperty("store_object") StoreWire.@Nullable Manifest storeObject,
            @JsonProperty("note") String note) {

        static Server of(ServerSeedPresence p) {
            return new Server(p.server(), p.key().map(StoreKey::path).orElse(null), p.place().map(SeedPresence.Place::wire)
                    .orElse(null), p.store().map(StoreWire.Manifest::of).orElse(null), p.note());
        }

        public ServerSeedPresence toCore() {
            return new ServerSeedPresence(server, Optional.ofNullable(key).map(StoreKey::new),
                    Optional.ofNullable(place).map(x -> WireTypes.constant(SeedPresence.Place.class, x)),
                    Optional.ofNullable(storeObject).map(StoreWire.Manifest::toCore), note);
        }
    }

    public static JsonNode status(Optional<StoreStatus> s) {
        return Wire.JSON.valueToTree(Status.of(s));
    }
}
