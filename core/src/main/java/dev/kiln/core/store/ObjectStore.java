package dev.kiln.core.store;

import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.ServerSeeds;
import dev.kiln.core.telemetry.EventSink;
import dev.kiln.core.telemetry.Ticker;
import dev.kiln.core.workspace.AtomicWrite;
import dev.kiln.core.workspace.FileTrees;
import dev.kiln.core.workspace.WorkspaceException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seeds and archives through an S3-compatible object store (docs/ARCHITECTURE.md, "The object store").
 *
 * <pre>{@code
 * try (ObjectStore store = ObjectStore.builder(StoreConfig.read(ws).orElseThrow()).events(bus).build()) {
 *     store.pushSeed(seeds, "demo");          // seeds/demo/<lockfile hash>/
 *     store.pullSeed(seeds, "demo", cancel);  // download, unpack, check, swap
 * }
 * }</pre>
 *
 * <p>Objects are immutable and content-addressed: the object of a key is {@code <its sha256>.tar.gz}, and the key's
 * {@code manifest.json}, written last and only if absent ({@code If-None-Match: *}), decides which object the key is.
 * So two hosts pushing one key at once both succeed and leave one manifest; a push killed at any point leaves at most
 * an object no manifest names, which no pull takes; a pull checks the object's SHA-256 against the manifest while it
 * unpacks into a staging directory, and only then swaps the seed in.
 *
 * <p>Credentials come from the standard AWS chain, read from the injected environment (never from a workspace file),
 * and appear in no message, event or statistic.
 *
 * <p>Concurrency: thread-safe. Pushes and pulls of different keys run in parallel; two pulls of one seed are
 * serialized by the seed's own lock at the swap. Counters are atomic.
 */
public final class ObjectStore implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ObjectStore.class);
    private static final String MARKER = ".store";

    private final StoreConfig config;
    private final Bucket bucket;
    private final Clock clock;
    private final Ticker ticker;
    private final EventSink events;
    private final int unpackWriters;
    private final String credentialSource;
    private final AtomicLong pushes = new AtomicLong();
    private final AtomicLong pushesSkipped = new AtomicLong();
    private final AtomicLong pulls = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong bytesReceived = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();

    private ObjectStore(Builder b) {
        this.config = b.config;
        Credentials.Found found = Credentials.chain(b.environment);
        this.credentialSource = found.source();
        this.bucket = new Bucket(config, found, new Retry(b.attempts, b.backoff, b.sleeper), b.timeout,
                b.multipartThreshold, b.partSize);
        this.clock = b.clock;
        this.ticker = b.ticker;
        this.events = b.events;
        this.unpackWriters = b.unpackWriters;
    }

    /** Starts configuring a client of the store {@code config} names. */
    public static Builder builder(StoreConfig config) {
        return new Builder(config);
    }

    public StoreConfig config() {
        return config;
    }

    /** Where the credentials came from (a source's name, never a value), for {@code kiln … --verbose} and logs. */
    public String credentialSource() {
        return credentialSource;
    }

    /** The counters since this client was built. */
    public StoreStats stats() {
        return new StoreStats(pushes.get(), pushesSkipped.get(), pulls.get(), bytesSent.get(), bytesReceived.get(),
                failures.get());
    }

    /** Creates the bucket if it does not exist (first-time setup, tests). */
    public void ensureBucket() {
        bucket.createBucket();
    }

    /** The store's manifest of {@code key}; empty when the key was never completely pushed. */
    public Optional<ObjectManifest> manifest(StoreKey key) {
        return bucket.get(key.manifestPath()).map(b -> ObjectManifest.parse(key, b, config.where()));
    }

    // ---- trees (seeds, server seeds) ----

    /** Packs the directory {@code dir} into one object and pushes it under {@code key}, unless the key is stored. */
    public Transfer pushTree(StoreKey key, Path dir) {
        return counted("push", key, () -> {
            long begin = ticker.read();
            Optional<ObjectManifest> existing = manifest(key);
            if (existing.isPresent()) {
                return skipped(key, existing.get(), begin, "already stored");
            }
            Path tmp = java.util.Objects.requireNonNullElse(dir.toAbsolutePath().getParent(), dir).resolve(".kiln-push-" + UUID.randomUUID() + ".tar.gz");
            try {
                TreePack.Packed packed;
                try {
                    packed = TreePack.pack(dir, tmp);
                } catch (IOException e) {
                    throw new StoreException("cannot pack " + dir + " for " + key + ": " + e.getMessage(), e);
                }
                ObjectManifest m = new ObjectManifest(key, packed.sha256() + ".tar.gz", packed.bytes(), packed.files(),
                        packed.sha256(), packed.treeBytes(), kilnVersion(), clock.instant(), ObjectManifest.TREE);
                return publish(key, m, tmp, begin);
            } finally {
                deleteQuietly(tmp);
            }
        });
    }

    /**
     * Downloads the object of {@code key} into the empty directory {@code into}, checking its SHA-256 against the
     * manifest as it arrives. On any failure {@code into} is left empty.
     */
    public Transfer pullTree(StoreKey key, Path into) {
        return counted("pull", key, () -> {
            long begin = ticker.read();
            ObjectManifest m = manifest(key).orElseThrow(() -> new StoreException(config.where() + " has no " + key
                    + " (no manifest: never completely pushed); push it from a host that has it"));
            TreePack.Unpacked u = download(m, into);
            return new Transfer(key, Transfer.Outcome.PULLED, m, u.bytes(), elapsed(begin),
                    u.files() + " files, " + u.bytes() + " bytes, sha256 " + m.sha256().substring(0, 12));
        });
    }

    private TreePack.Unpacked download(ObjectManifest m, Path into) {
        String name = config.where() + " " + m.key().objectPath(m.sha256());
        try {
            TreePack.Unpacked u = bucket.read(m.key().objectPath(m.sha256()), in -> {
                clear(into);
                return TreePack.unpack(in, into, name, m.sha256(), unpackWriters);
            });
            if (u.bytes() != m.bytes()) {
                throw new StoreException(name + " is " + u.bytes() + " bytes, its manifest says " + m.bytes()
                        + "; not installed");
            }
            bytesReceived.addAndGet(u.bytes());
            return u;
        } catch (RuntimeException e) {
            try {
                clear(into);
            } catch (IOException ignored) {
                // the caller deletes the staging directory anyway
            }
            throw e;
        }
    }

    private static void clear(Path dir) throws IOException {
        FileTrees.delete(dir);
        Files.createDirectories(dir);
    }

    // ---- single files (source archives) ----

    /** Pushes {@code file} as is under {@code key} (an archive: {@link StoreKey#archive}), unless the key is stored. */
    public Transfer pushFile(StoreKey key, Path file) {
        return counted("push", key, () -> {
            long begin = ticker.read();
            Optional<ObjectManifest> existing = manifest(key);
            if (existing.isPresent()) {
                return skipped(key, existing.get(), begin, "already stored");
            }
            String sha;
            long size;
            try (InputStream in = Files.newInputStream(file)) {
                var md = TreePack.sha256();
                byte[] buf = new byte[1 << 16];
                long n = 0;
                int r;
                while ((r = in.read(buf)) > 0) {
                    md.update(buf, 0, r);
                    n += r;
                }
                sha = java.util.HexFormat.of().formatHex(md.digest());
                size = n;
            } catch (IOException e) {
                throw new StoreException("cannot read " + file + ": " + e.getMessage(), e);
            }
            if (key.path().startsWith("archives/") && !key.path().equals("archives/" + sha)) {
                throw new StoreException(file + " has SHA-256 " + sha + ", not the " + key + " it is pushed as");
            }
            ObjectManifest m = new ObjectManifest(key, sha + ".tar.gz", size, 1, sha, size, kilnVersion(),
                    clock.instant(), ObjectManifest.FILE);
            return publish(key, m, file, begin);
        });
    }

    /** Downloads the object of {@code key} to {@code out} (atomically: the old file or the checked new one). */
    public Transfer pullFile(StoreKey key, Path out) {
        return counted("pull", key, () -> {
            long begin = ticker.read();
            ObjectManifest m = manifest(key).orElseThrow(() -> new StoreException(config.where() + " has no " + key
                    + " (never completely pushed); push it from a host that has it (kiln archive push)"));
            String name = config.where() + " " + key.objectPath(m.sha256());
            byte[] bytes = bucket.read(key.objectPath(m.sha256()), in -> {
                var md = TreePack.sha256();
                TreePack.HashingInputStream h = new TreePack.HashingInputStream(in, md);
                byte[] b = h.readAllBytes();
                String sha = java.util.HexFormat.of().formatHex(md.digest());
                if (!sha.equals(m.sha256())) {
                    throw TreePack.corrupted(name, sha, m.sha256(), null);
                }
                return b;
            });
            try {
                AtomicWrite.write(out, bytes);
            } catch (IOException e) {
                throw new StoreException("cannot write " + out + ": " + e.getMessage(), e);
            }
            bytesReceived.addAndGet(bytes.length);
            return new Transfer(key, Transfer.Outcome.PULLED, m, bytes.length, elapsed(begin),
                    bytes.length + " bytes to " + out + ", sha256 " + m.sha256().substring(0, 12));
        });
    }

    // ---- seeds of a workspace ----

    /** Pushes the seed of {@code target} (under the lockfile hash it was warmed for). */
    public Transfer pushSeed(SeedCaches seeds, String target) {
        String hash = seeds.seededHash(target).orElseThrow(() -> new StoreException("target " + target
                + " has no seed on this host to push; warm it first (kiln warm)"));
        StoreKey key = StoreKey.seed(target, hash);
        Transfer t = pushTree(key, seeds.seedDir(target));
        if (!seeds.seededHash(target).equals(Optional.of(hash))) {
            LOG.warn("seed {} was re-warmed while it was pushed; the store has the one for {}", target, hash);
        } else if (t.outcome() == Transfer.Outcome.PUSHED) {
            writeMarker(seeds, target, hash, t.manifest().sha256());
        }
        return t;
    }

    /**
     * Pulls the store's seed of {@code target} for its current lockfile and swaps it in (the warm's atomic swap), after
     * the checks a warmed seed passes. A pull that fails or is killed leaves the local seed as it was.
     */
    public Transfer pullSeed(SeedCaches seeds, String target, Cancellation cancel) {
        String hash = currentHash(seeds, target);
        StoreKey key = StoreKey.seed(target, hash);
        return counted("pull", key, () -> {
            long begin = ticker.read();
            ObjectManifest m = manifest(key).orElseThrow(() -> new StoreException(config.where() + " has no seed of "
                    + target + " for lockfile " + hash.substring(0, 12) + "; warm it on a host and push it (kiln seed"
                    + " push, or kiln warm --pull)"));
            if (seeds.seededHash(target).equals(Optional.of(hash))
                    && marker(seeds, target).equals(Optional.of(hash + " " + m.sha256()))) {
                return new Transfer(key, Transfer.Outcome.UNCHANGED, m, 0, elapsed(begin), "the local seed is the store's copy");
            }
            Path stage;
            try {
                stage = seeds.stagingDir(target, hash);
            } catch (IOException e) {
                throw new StoreException("cannot make a staging directory for seed " + target + ": " + e.getMessage(), e);
            }
            TreePack.Unpacked u;
            long fetched;
            long installed;
            try {
                long t0 = ticker.read();
                u = download(m, stage);
                fetched = ticker.read() - t0;
                seeds.install(target, hash, stage, cancel);
                installed = ticker.read() - t0 - fetched;
            } catch (IOException e) {
                throw new StoreException(config.where() + " " + key + ": " + e.getMessage(), e);
            } finally {
                deleteQuietly(stage);
            }
            writeMarker(seeds, target, hash, m.sha256());
            return new Transfer(key, Transfer.Outcome.PULLED, m, u.bytes(), elapsed(begin),
                    u.files() + " files, " + u.bytes() + " bytes, sha256 " + m.sha256().substring(0, 12) + " (download,"
                            + " SHA-256 and unpack " + fetched / 1_000_000 + " ms, checks and swap " + installed / 1_000_000 + " ms)");
        });
    }

    /** Where the seed of {@code target} for its current lockfile is: here, in the store, both, differing, neither. */
    public SeedPresence presence(SeedCaches seeds, String target) {
        String hash = currentHash(seeds, target);
        Optional<ObjectManifest> m = manifest(StoreKey.seed(target, hash));
        boolean local = seeds.seededHash(target).equals(Optional.of(hash));
        SeedPresence.Place place;
        if (local && m.isPresent()) {
            place = marker(seeds, target).equals(Optional.of(hash + " " + m.get().sha256()))
                    ? SeedPresence.Place.BOTH : SeedPresence.Place.DIFFERING;
        } else if (local) {
            place = SeedPresence.Place.LOCAL;
        } else {
            place = m.isPresent() ? SeedPresence.Place.STORE : SeedPresence.Place.NONE;
        }
        return new SeedPresence(target, hash, place, m);
    }

    // ---- server seeds (runtime seeds of servers launched through npx/uvx) ----

    /**
     * Where the runtime seed of {@code plan} lives in the store: {@code servers/<package>@<exact version>/<runtime>/
     * <registry hash>}, the key of the seed on disk (package@exact-version, the runtime's version, the registry).
     */
    public static StoreKey serverKey(ServerSeeds.Plan plan) {
        return serverKey(plan.pkg(), plan.version(), plan.runtimeVersion(), plan.registry());
    }

    private static StoreKey serverKey(String pkg, String version, String runtimeVersion, String registryUrl) {
        String runtime = runtimeVersion.strip().replaceAll("[^A-Za-z0-9._+@-]+", "-");
        String registry = java.util.HexFormat.of().formatHex(TreePack.sha256().digest(
                registryUrl.getBytes(StandardCharsets.UTF_8))).substring(0, 16);
        return StoreKey.server(pkg, version, runtime, registry);
    }

    /** What the operator is told when a uv seed would travel: why it cannot, and what to do instead. */
    static final String UV_STAYS = "a uv tool environment links its interpreter by absolute path (bin/python and"
            + " pyvenv.cfg's home name this host's Python), which another host's seed directory cannot hold: a pulled"
            + " seed would start a different or missing interpreter, and Kiln refuses links that leave a seed. uv's"
            + " --relocatable only makes scripts and activators relative (pyvenv.cfg's home stays absolute, as CPython"
            + " documents it); environments that carry their own interpreter are not in a released uv yet. Warm it on"
            + " each host instead: kiln warm --servers";

    private static boolean uv(String launcher) {
        return launcher.startsWith("uv");
    }

    /**
     * Where the runtime seed {@code seed} (a row of {@link ServerSeeds#inventory}, judged by its hash) is against the
     * store: a sound seed here counts as local (a corrupt one does not), the store's manifest as stored, and the marker
     * a push or pull wrote tells both from differing. A row whose key cannot be known without the registry (unpinned,
     * never warmed here) has no place, and says so.
     */
    public ServerSeedPresence serverPresence(dev.kiln.core.seed.ServerSeedInfo seed) {
        boolean exact = seed.version().matches("\\d+(\\.\\d+)*([-+][0-9A-Za-z.-]+)?");
        if (!exact || seed.runtimeVersion().isBlank()) {
            return new ServerSeedPresence(seed.server(), Optional.empty(), Optional.empty(), Optional.empty(), !exact
                    ? "the config asks for " + seed.requested() + ": its store key needs the exact version (pin it, or"
                            + " warm it here first)"
                    : "the runtime's version cannot be read here, so neither can the seed's store key");
        }
        StoreKey key = serverKey(seed.pkg(), seed.version(), seed.runtimeVersion(), seed.registry());
        Optional<ObjectManifest> m = manifest(key);
        boolean local = seed.state() == dev.kiln.core.seed.ServerSeedInfo.State.OK && seed.dir() != null;
        SeedPresence.Place place;
        if (local && m.isPresent()) {
            place = serverMarker(seed.dir()).equals(Optional.of(m.get().sha256() + " " + seed.contentSha256()))
                    ? SeedPresence.Place.BOTH : SeedPresence.Place.DIFFERING;
        } else if (local) {
            place = SeedPresence.Place.LOCAL;
        } else {
            place = m.isPresent() ? SeedPresence.Place.STORE : SeedPresence.Place.NONE;
        }
        String note = uv(seed.launcher()) ? "uv seeds stay on their host: " + UV_STAYS
                : seed.state() == dev.kiln.core.seed.ServerSeedInfo.State.CORRUPT ? "the seed here is corrupt and does not count"
                : "";
        return new ServerSeedPresence(seed.server(), Optional.of(key), Optional.of(place), m, note);
    }

    /** Pushes the runtime seed of {@code plan}, when a sound one is here (its files hash to what its warm recorded). */
    public Transfer pushServerSeed(ServerSeeds seeds, ServerSeeds.Plan plan) {
        if (uv(plan.launcher().label())) {
            throw new StoreException("server " + plan.server() + "'s seed is not pushed: " + UV_STAYS);
        }
        Optional<ServerSeeds.Seed> sound = seeds.find(plan);
        if (sound.isEmpty()) {
            throw new StoreException("server " + plan.server() + " has no sound seed on this host to push ("
                    + plan.pinnedSpec() + ", " + plan.runtimeVersion() + "); warm it first (kiln warm --servers)");
        }
        Transfer t = pushTree(serverKey(plan), plan.dir());
        if (t.outcome() == Transfer.Outcome.PUSHED) {
            writeServerMarker(plan.dir(), t.manifest().sha256(), sound.get().contentSha256());
        }
        return t;
    }

    /**
     * Pulls the store's runtime seed of {@code plan} and swaps it in after the checks a warmed one passes
     * ({@link ServerSeeds#install}); a sound seed already here is kept ({@link Transfer.Outcome#UNCHANGED}: the key
     * names one exact package, runtime and registry). A pull that fails or is killed leaves the local seed as it was.
     */
    public Transfer pullServerSeed(ServerSeeds seeds, ServerSeeds.Plan plan, Cancellation cancel) {
        StoreKey key = serverKey(plan);
        return counted("pull", key, () -> {
            long begin = ticker.read();
            ObjectManifest m = manifest(key).orElseThrow(() -> new StoreException(config.where() + " has no seed of server "
                    + plan.server() + " (" + key + "); warm it on a host and push it (kiln seed push --server)"));
            Optional<ServerSeeds.Seed> here = seeds.find(plan);
            if (here.isPresent() && serverMarker(plan.dir()).equals(Optional.of(m.sha256() + " " + here.get().contentSha256()))) {
                return new Transfer(key, Transfer.Outcome.UNCHANGED, m, 0, elapsed(begin), "the local seed is the store's copy");
            }
            Path stage;
            try {
                stage = seeds.stagingDir(plan);
            } catch (IOException e) {
                throw new StoreException("cannot make a staging directory for server " + plan.server() + "'s seed: "
                        + e.getMessage(), e);
            }
            TreePack.Unpacked u;
            String content;
            try {
                u = download(m, stage);
                content = seeds.install(plan, stage, cancel);
            } catch (IOException e) {
                throw new StoreException(config.where() + " " + key + ": " + e.getMessage(), e);
            } finally {
                deleteQuietly(stage);
            }
            writeServerMarker(plan.dir(), m.sha256(), content);
            return new Transfer(key, Transfer.Outcome.PULLED, m, u.bytes(), elapsed(begin),
                    u.files() + " files, " + u.bytes() + " bytes, sha256 " + m.sha256().substring(0, 12));
        });
    }

    private static String currentHash(SeedCaches seeds, String target) {
        try {
            return seeds.plan(target).hash();
        } catch (WorkspaceException e) {
            throw new StoreException(String.valueOf(e.getMessage()), e);
        }
    }

    // ---- machinery ----

    private Transfer publish(StoreKey key, ObjectManifest m, Path file, long begin) {
        bucket.putFile(key.objectPath(m.sha256()), file, m.bytes());
        bytesSent.addAndGet(m.bytes());
        if (bucket.putIfAbsent(key.manifestPath(), m.toJson())) {
            return new Transfer(key, Transfer.Outcome.PUSHED, m, m.bytes(), elapsed(begin),
                    (ObjectManifest.FILE.equals(m.packing()) ? "" : m.files() + " files, ") + m.bytes() + " bytes, sha256 "
                            + m.sha256().substring(0, 12));
        }
        // Another writer completed the key first: theirs is the key's object; ours is named by no manifest.
        ObjectManifest winner = manifest(key).orElseThrow(() -> new StoreException(config.where() + ": " + key
                + "'s manifest exists (the conditional put said so) but cannot be read"));
        if (!winner.sha256().equals(m.sha256())) {
            bucket.delete(key.objectPath(m.sha256()));
        }
        return skipped(key, winner, begin, "another push stored it first");
    }

    private Transfer skipped(StoreKey key, ObjectManifest m, long begin, String why) {
        return new Transfer(key, Transfer.Outcome.ALREADY_STORED, m, 0, elapsed(begin),
                why + " (sha256 " + m.sha256().substring(0, 12) + ", pushed " + m.pushedAt() + ")");
    }

    private Transfer counted(String op, StoreKey key, Supplier<Transfer> run) {
        StoreEvent.Operation operation = op.equals("push") ? StoreEvent.Operation.PUSH : StoreEvent.Operation.PULL;
        long begin = ticker.read();
        events.publish(StoreEvent.started(clock.instant(), operation, key));
        try {
            Transfer t = run.get();
            switch (t.outcome()) {
                case PUSHED -> pushes.incrementAndGet();
                case ALREADY_STORED -> pushesSkipped.incrementAndGet();
                case PULLED -> pulls.incrementAndGet();
                case UNCHANGED -> { }
            }
            events.publish(StoreEvent.done(clock.instant(), operation, t));
            LOG.info("store {} {}: {} {}", op, key, t.outcome().wire(), t.message());
            return t;
        } catch (RuntimeException e) {
            failures.incrementAndGet();
            String msg = e instanceof StoreException ? String.valueOf(e.getMessage()) : config.where() + ": " + op + " " + key
                    + " failed: " + Retry.rootMessage(e);
            events.publish(StoreEvent.failed(clock.instant(), operation, key, elapsed(begin), msg));
            LOG.warn("store {} {} failed: {}", op, key, msg);
            throw e instanceof StoreException s ? s : new StoreException(msg, e);
        }
    }

    /**
     * Asks the store one cheap question (the manifest of a key that need not exist), with the usual bounded retries: how
     * health learns whether a configured store answers.
     *
     * @throws StoreException when it does not ({@link StoreException#unreachable()}) or refuses
     */
    public void check() {
        manifest(new StoreKey("health/check"));
    }

    private Duration elapsed(long begin) {
        return Duration.ofNanos(ticker.read() - begin);
    }

    private static Path markerFile(SeedCaches seeds, String target) {
        return seeds.seedsDir().resolve("." + target + MARKER);
    }

    private static Optional<String> marker(SeedCaches seeds, String target) {
        try {
            return Optional.of(Files.readString(markerFile(seeds, target), StandardCharsets.US_ASCII).strip());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Which store object the local seed is (after a push or pull): how BOTH is told from DIFFERING. */
    private static void writeMarker(SeedCaches seeds, String target, String hash, String sha) {
        try {
            AtomicWrite.write(markerFile(seeds, target), (hash + " " + sha + "\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            LOG.warn("cannot record which store object seed {} is: {}", target, e.toString());
        }
    }

    /** Beside a server seed's directory: which store object it is (after a push or pull), as for a target. */
    private static Path serverMarkerFile(Path seedDir) {
        return seedDir.resolveSibling("." + seedDir.getFileName() + MARKER);
    }

    private static Optional<String> serverMarker(@org.jspecify.annotations.Nullable Path seedDir) {
        if (seedDir == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(Files.readString(serverMarkerFile(seedDir), StandardCharsets.US_ASCII).strip());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The marker names the object and the seed's content digest: a re-warm since (a new content) is not the object. */
    private static void writeServerMarker(Path seedDir, String sha, String contentSha) {
        try {
            AtomicWrite.write(serverMarkerFile(seedDir), (sha + " " + contentSha + "\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            LOG.warn("cannot record which store object server seed {} is: {}", seedDir.getFileName(), e.toString());
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            if (Files.isDirectory(p)) {
                FileTrees.delete(p);
            } else {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.debug("cannot delete {}: {}", p, e.toString());
        }
    }

    /** The core jar's {@code Implementation-Version}, or {@code unknown} when run from classes. */
    static String kilnVersion() {
        Module m = ObjectStore.class.getModule();
        if (m.isNamed()) {
            try (InputStream in = m.getResourceAsStream("META-INF/MANIFEST.MF")) {
                if (in != null) {
                    String v = new java.util.jar.Manifest(in).getMainAttributes().getValue("Implementation-Version");
                    if (v != null) {
                        return v;
                    }
                }
            } catch (IOException e) {
                // fall through
            }
        }
        String v = ObjectStore.class.getPackage().getImplementationVersion();
        return v == null ? "unknown" : v;
    }

    @Override
    public void close() {
        bucket.close();
    }

    /** Configures an {@link ObjectStore}. Bad values are refused when set. */
    public static final class Builder {
        /**
         * Creating a file is a wait in the kernel (the inode, the directory entry, the journal), not CPU: on the 2-core
         * CI kind 16 writers made the bench seed's 3,208 files faster than the 2 that "the CPUs, at most 4" gave.
         */
        static final int DEFAULT_UNPACK_WRITERS = 16;
        private final StoreConfig config;
        private Map<String, String> environment = System.getenv();
        private Clock clock = Clock.systemUTC();
        private Ticker ticker = Ticker.systemTicker();
        private EventSink events = EventSink.none();
        private int attempts = 4;
        private Duration backoff = Duration.ofMillis(250);
        private Duration timeout = Duration.ofSeconds(30);
        private long multipartThreshold = 64L << 20;
        private int partSize = 16 << 20;
        private Retry.Sleeper sleeper = d -> Thread.sleep(d.toMillis());
        private int unpackWriters = DEFAULT_UNPACK_WRITERS;

        private Builder(StoreConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        /** The environment the AWS credential chain is read from (default: this process's). */
        public Builder environment(Map<String, String> environment) {
            this.environment = Map.copyOf(environment);
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        public Builder events(EventSink events) {
            this.events = Objects.requireNonNull(events, "events");
            return this;
        }

        /** Tries per request (default 4) and the first backoff, doubled each retry (default 250 ms). */
        public Builder retries(int attempts, Duration backoff) {
            if (attempts < 1 || attempts > 20) {
                throw new IllegalArgumentException("attempts must be 1..20, got " + attempts);
            }
            if (backoff.isNegative()) {
                throw new IllegalArgumentException("backoff must not be negative");
            }
            this.attempts = attempts;
            this.backoff = backoff;
            return this;
        }

        /** Connect and read timeout of each request (default 30 s): a store slower than that is retried. */
        public Builder timeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive");
            }
            this.timeout = timeout;
            return this;
        }

        /** Objects of at least this many bytes go up in parts (default 64 MiB, parts of 16 MiB; S3's minimum 5 MiB). */
        public Builder multipart(long threshold, int partSize) {
            if (partSize < 5 << 20) {
                throw new IllegalArgumentException("a part must be at least 5 MiB (S3's minimum), got " + partSize);
            }
            this.multipartThreshold = threshold;
            this.partSize = partSize;
            return this;
        }

        /**
         * Threads that create a pulled tree's files while the object is still arriving and unpacking (default
         * {@value #DEFAULT_UNPACK_WRITERS}, whatever the CPUs); 0 has the downloading thread write each file itself.
         */
        public Builder unpackWriters(int writers) {
            if (writers < 0 || writers > 32) {
                throw new IllegalArgumentException("unpack writers must be 0..32, got " + writers);
            }
            this.unpackWriters = writers;
            return this;
        }

        Builder sleeper(Retry.Sleeper sleeper) {
            this.sleeper = sleeper;
            return this;
        }

        /** @throws StoreException when the AWS chain has no credentials (saying how to give them) */
        public ObjectStore build() {
            return new ObjectStore(this);
        }
    }
}
