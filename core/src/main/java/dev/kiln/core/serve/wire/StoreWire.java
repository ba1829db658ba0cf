package dev.kiln.core.serve.wire;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.kiln.core.store.ObjectManifest;
import dev.kiln.core.store.SeedPresence;
import dev.kiln.core.store.StoreEvent;
import dev.kiln.core.store.StoreKey;
import dev.kiln.core.store.StoreStats;
import dev.kiln.core.store.StoreStatus;
import dev.kiln.core.store.Transfer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The object store's wire shapes (API v1 rules: snake_case, durations in ms, times RFC 3339, enums lower_snake):
 * {@code GET store} answers a {@link Status}; {@code POST store/push} and {@code store/pull} start actions whose
 * result is a {@link TransferWire}. Both sides use these records, so they cannot drift apart.
 */
public final class StoreWire {
    private StoreWire() {
    }

    /** {@code GET /api/v1/store}. */
    public record Status(@JsonProperty("configured") boolean configured, @JsonProperty("store") @Nullable String store,
            @JsonProperty("problem") @Nullable String problem, @JsonProperty("seeds") List<Seed> seeds,
            @JsonProperty("stats") Stats stats) {

        static Status of(Optional<StoreStatus> s) {
            if (s.isEmpty()) {
                return new Status(false, null, null, List.of(), Stats.of(StoreStats.EMPTY));
            }
            StoreStatus st = s.get();
            return new Status(true, st.store(), st.problem().orElse(null), st.seeds().stream().map(Seed::of).toList(),
                    Stats.of(st.stats()));
        }

        public Optional<StoreStatus> toCore() {
            if (!configured) {
                return Optional.empty();
            }
            return Optional.of(new StoreStatus(store == null ? "" : store, seeds.stream().map(Seed::toCore).toList(),
                    stats.toCore(), Optional.ofNullable(problem)));
        }
    }

    public record Seed(@JsonProperty("target") String target, @JsonProperty("lock_hash") String lockHash,
            @JsonProperty("place") String place, @JsonProperty("store_object") @Nullable Manifest storeObject) {

        static Seed of(SeedPresence p) {
            return new Seed(p.target(), p.lockHash(), p.place().wire(), p.store().map(Manifest::of).orElse(null));
        }

        public SeedPresence toCore() {
            return new SeedPresence(target, lockHash, SeedPresence.Place.valueOf(place.toUpperCase(Locale.ROOT)),
                    Optional.ofNullable(storeObject).map(Manifest::toCore));
        }
    }

    public record Manifest(@JsonProperty("key") String key, @JsonProperty("sha256") String sha256,
            @JsonProperty("object_bytes") long objectBytes, @JsonProperty("files") long files,
            @JsonProperty("tree_bytes") long treeBytes, @JsonProperty("kiln_version") String kilnVersion,
            @JsonProperty("pushed_at") String pushedAt, @JsonProperty("packing") String packing) {

        static Manifest of(ObjectManifest m) {
            return new Manifest(m.key().path(), m.sha256(), m.bytes(), m.files(), m.treeBytes(), m.kilnVersion(),
                    m.pushedAt().toString(), m.packing());
        }

        public ObjectManifest toCore() {
            return new ObjectManifest(new StoreKey(key), sha256 + ".tar.gz", objectBytes, files, sha256, treeBytes,
                    kilnVersion, Instant.parse(pushedAt), packing);
        }
    }

    public record Stats(@JsonProperty("pushes") long pushes, @JsonProperty("pushes_skipped") long pushesSkipped,
            @JsonProperty("pulls") long pulls, @JsonProperty("bytes_sent") long bytesSent,
            @JsonProperty("bytes_received") long bytesReceived, @JsonProperty("failures") long failures) {

        static Stats of(StoreStats s) {
            return new Stats(s.pushes(), s.pushesSkipped(), s.pulls(), s.bytesSent(), s.bytesReceived(), s.failures());
        }

        public StoreStats toCore() {
            return new StoreStats(pushes, pushesSkipped, pulls, bytesSent, bytesReceived, failures);
        }
    }

    /** Whether the store holds the archive {@code sha256}: its manifest, or null. */
    public record Archive(@JsonProperty("sha256") String sha256, @JsonProperty("object") @Nullable Manifest object) {

        static Archive of(String sha256, Optional<ObjectManifest> m) {
            return new Archive(sha256, m.map(Manifest::of).orElse(null));
        }

        public Optional<ObjectManifest> toCore() {
            return Optional.ofNullable(object).map(Manifest::toCore);
        }
    }

    /** The result of a push or pull action. */
    public record TransferWire(@JsonProperty("key") String key, @JsonProperty("outcome") String outcome,
            @JsonProperty("object") Manifest object, @JsonProperty("bytes_moved") long bytesMoved,
            @JsonProperty("duration_ms") long durationMs, @JsonProperty("message") String message) {

        static TransferWire of(Transfer t) {
            return new TransferWire(t.key().path(), t.outcome().wire(), Manifest.of(t.manifest()), t.bytes(),
                    t.duration().toMillis(), t.message());
        }

        public Transfer toCore() {
            return new Transfer(new StoreKey(key), Transfer.Outcome.valueOf(outcome.toUpperCase(Locale.ROOT)),
                    object.toCore(), bytesMoved, Duration.ofMillis(durationMs), message);
        }
    }

    /** The answer of {@code GET store/archives?sha256=S}. */
    public static JsonNode archive(String sha256, Optional<ObjectManifest> m) {
        return Wire.JSON.valueToTree(Archive.of(sha256, m));
    }

    public static JsonNode status(Optional<StoreStatus> s) {
        return Wire.JSON.valueToTree(Status.of(s));
    }

    /** An action's result on the wire: a transfer as {@link TransferWire}, anything else as before. */
    static @Nullable TransferWire transfer(@Nullable Object v) {
        return v instanceof Transfer t ? TransferWire.of(t) : null;
    }

    /**
     * SSE {@code store}: a push or pull started, was done or failed ({@code phase}); {@code outcome} only when done.
     */
    public record Event(@JsonProperty("at") Instant at, @JsonProperty("operation") String operation,
            @JsonProperty("phase") String phase, @JsonProperty("key") String key, @JsonProperty("outcome") @Nullable String outcome,
            @JsonProperty("bytes_moved") long bytesMoved, @JsonProperty("duration_ms") long durationMs,
            @JsonProperty("message") String message) {

        static Event of(StoreEvent e) {
            return new Event(e.at(), e.operation().wire(), e.phase().wire(), e.key().path(),
                    e.outcome().map(Transfer.Outcome::wire).orElse(null), e.bytes(), e.duration().toMillis(), e.message());
        }

        public StoreEvent toCore() {
            return new StoreEvent(at, StoreEvent.Operation.valueOf(operation.toUpperCase(Locale.ROOT)),
                    StoreEvent.Phase.valueOf(phase.toUpperCase(Locale.ROOT)), new StoreKey(key),
                    Optional.ofNullable(outcome).map(o -> Transfer.Outcome.valueOf(o.toUpperCase(Locale.ROOT))), bytesMoved,
                    Duration.ofMillis(durationMs), message);
        }
    }

    /** The store's codecs in {@link WireTypes}: its event and its counters (the status and transfers are read as themselves). */
    static final List<WireTypes.Codec<?, ?>> CODECS = List.of(
            WireTypes.Codec.of(StoreEvent.class, Event.class, Event::of, Event::toCore),
            WireTypes.Codec.of(StoreStats.class, Stats.class, Stats::of, Stats::toCore));
}
