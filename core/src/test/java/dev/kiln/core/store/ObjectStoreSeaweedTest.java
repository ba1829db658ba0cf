package dev.kiln.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.seed.Cancellation;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.seed.SeedFixtures;
import dev.kiln.core.seed.ServerSeeds;
import dev.kiln.core.seed.WarmResult;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.testkit.ProcessTest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeds through a real SeaweedFS on loopback (the test JVM's, signed requests checked against its identity file):
 * round trip, the store's state per target, two hosts pushing one key at once, a push that never completed, a
 * corrupted volume, multipart, refused credentials.
 */
@ProcessTest
// Two at a time: each test has its own prefix and directories, and corruptedVolume waits about 13 s on SeaweedFS
// retrying a needle whose CRC fails before it answers 500.
@org.junit.jupiter.api.parallel.Execution(org.junit.jupiter.api.parallel.ExecutionMode.CONCURRENT)
class ObjectStoreSeaweedTest {
    private static SeaweedFs fs;
    private static final java.util.concurrent.atomic.AtomicInteger buckets = new java.util.concurrent.atomic.AtomicInteger();

    @TempDir
    Path tmp;

    @BeforeAll
    static void startStore() throws Exception {
        fs = SeaweedFs.shared();
    }

    private static StoreConfig freshBucket() {
        return fs.config("t" + buckets.incrementAndGet());
    }

    @Test
    void pushThenPull_onAnotherHost_installsTheSameSeed_andStateFollows() throws Exception {
        StoreConfig cfg = freshBucket();
        SeedCaches a = StoreFixtures.workspace(tmp.resolve("a"), "app", cfg);
        SeedCaches b = StoreFixtures.workspace(tmp.resolve("b"), "app", cfg);
        StoreFixtures.seed(a, "app", 300, 0, "host-a");
        List<StoreEvent> events = new CopyOnWriteArrayList<>();
        EventBus bus = new EventBus();
        bus.subscribe(e -> {
            if (e instanceof StoreEvent s) {
                events.add(s);
            }
        });
        try (ObjectStore sa = ObjectStore.builder(StoreConfig.read(tmp.resolve("a")).orElseThrow())
                .environment(SeaweedFs.env()).events(bus).build();
             ObjectStore sb = StoreFixtures.store(fs, cfg)) {
            sa.ensureBucket();
            assertThat(sa.presence(a, "app").place()).isEqualTo(SeedPresence.Place.LOCAL);
            assertThat(sb.presence(b, "app").place()).isEqualTo(SeedPresence.Place.NONE);

            Transfer pushed = sa.pushSeed(a, "app");
            assertThat(pushed.outcome()).isEqualTo(Transfer.Outcome.PUSHED);
            assertThat(pushed.manifest().files()).isEqualTo(303); // 300 modules, the tool, kiln-seed.json, the hash file
            assertThat(sa.presence(a, "app").place()).isEqualTo(SeedPresence.Place.BOTH);
            assertThat(sb.presence(b, "app").place()).isEqualTo(SeedPresence.Place.STORE);
            assertThat(sa.pushSeed(a, "app").outcome()).isEqualTo(Transfer.Outcome.ALREADY_STORED);

            Transfer pulled = sb.pullSeed(b, "app", Cancellation.create());
            assertThat(pulled.outcome()).isEqualTo(Transfer.Outcome.PULLED);
            assertThat(pulled.bytes()).isEqualTo(pushed.manifest().bytes());
            assertThat(SeedFixtures.digest(b.seedDir("app"))).isEqualTo(SeedFixtures.digest(a.seedDir("app")));
            assertThat(Files.isExecutable(b.seedDir("app").resolve("archive-v0/pkg1/bin-tool"))).isTrue();
            assertThat(b.seeds().get(0).current()).isTrue();
            assertThat(sb.presence(b, "app").place()).isEqualTo(SeedPresence.Place.BOTH);
            assertThat(sb.pullSeed(b, "app", Cancellation.create()).outcome()).isEqualTo(Transfer.Outcome.UNCHANGED);
            assertThat(Files.list(b.seedsDir()).map(p -> p.getFileName().toString()))
                    .allMatch(n -> n.equals("app") || n.equals(".app.lock") || n.equals(".app.store"));
            assertThat(sa.stats()).extracting(StoreStats::pushes, StoreStats::pushesSkipped).containsExactly(1L, 1L);
            assertThat(sb.stats().pulls()).isEqualTo(1);
            assertThat(sb.stats().bytesReceived()).isEqualTo(pushed.manifest().bytes());
            assertThat(events).anyMatch(e -> e.phase() == StoreEvent.Phase.STARTED && e.operation() == StoreEvent.Operation.PUSH);
            assertThat(events).anyMatch(e -> e.phase() == StoreEvent.Phase.DONE && e.outcome().equals(Optional.of(Transfer.Outcome.PUSHED))
                    && e.bytes() > 0);
        }
    }

    /**
     * A server's runtime seed (keyed package@exact-version, runtime, registry) goes up from one host and comes down on
     * another, where it passes a warmed seed's checks before it is swapped in; one whose files do not hash to what its
     * warm recorded is refused on pull, named, and the seed there is kept.
     */
    @Test
    void serverSeed_pushThenPull_onAnotherHost_checkedAndSwappedIn_aTamperedOneRefused() throws Exception {
        StoreConfig cfg = freshBucket();
        SeedCaches a = StoreFixtures.workspace(tmp.resolve("a"), "app", cfg);
        SeedCaches b = StoreFixtures.workspace(tmp.resolve("b"), "app", cfg);
        ServerSeeds serversA = ServerSeeds.of(a, Map.of(), java.time.Clock.systemUTC());
        ServerSeeds serversB = ServerSeeds.of(b, Map.of(), java.time.Clock.systemUTC());
        String pkg = "@modelcontextprotocol/server-memory";
        ServerSeeds.Plan planA = SeedFixtures.npmServerPlan(a, "memory", pkg, "2026.8.31");
        ServerSeeds.Plan planB = SeedFixtures.npmServerPlan(b, "memory", pkg, "2026.8.31");
        SeedFixtures.serverSeed(serversA, planA, 120, "host-a");
        try (ObjectStore sa = StoreFixtures.store(fs, cfg); ObjectStore sb = StoreFixtures.store(fs, cfg)) {
            StoreKey key = ObjectStore.serverKey(planA);
            assertThat(key.path()).matches("servers/modelcontextprotocol\\+server-memory@2026\\.8\\.31/node-v20\\.20\\.2/[0-9a-f]{16}");
            assertThatThrownBy(() -> sb.pushServerSeed(serversB, planB)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("server memory has no sound seed on this host");

            assertThat(sa.serverPresence(row(serversA, planA)).place()).hasValue(SeedPresence.Place.LOCAL);
            assertThat(sb.serverPresence(row(serversB, planB)).place()).hasValue(SeedPresence.Place.NONE);
            Transfer pushed = sa.pushServerSeed(serversA, planA);
            assertThat(pushed.outcome()).isEqualTo(Transfer.Outcome.PUSHED);
            assertThat(sa.pushServerSeed(serversA, planA).outcome()).isEqualTo(Transfer.Outcome.ALREADY_STORED);
            assertThat(sa.serverPresence(row(serversA, planA)).place()).as("the pusher's seed is the store's copy")
                    .hasValue(SeedPresence.Place.BOTH);
            assertThat(sb.serverPresence(row(serversB, planB))).satisfies(p -> {
                assertThat(p.place()).hasValue(SeedPresence.Place.STORE);
                assertThat(p.key()).hasValue(key);
                assertThat(p.store()).hasValueSatisfying(m -> assertThat(m.sha256()).isEqualTo(pushed.manifest().sha256()));
            });
            Transfer pulled = sb.pullServerSeed(serversB, planB, Cancellation.create());
            assertThat(pulled.outcome()).isEqualTo(Transfer.Outcome.PULLED);
            assertThat(sb.serverPresence(row(serversB, planB)).place()).hasValue(SeedPresence.Place.BOTH);
            assertThat(serversB.find(planB)).as("the pulled seed is sound where it landed").isPresent();
            assertThat(SeedFixtures.digest(planB.dir())).isEqualTo(SeedFixtures.digest(planA.dir()));
            Path bin = planB.dir().resolve("prefix/node_modules/.bin/server-memory");
            assertThat(Files.isSymbolicLink(bin) && Files.isExecutable(bin)).as("the .bin link and its executable came back").isTrue();
            assertThat(sb.pullServerSeed(serversB, planB, Cancellation.create()).outcome()).isEqualTo(Transfer.Outcome.UNCHANGED);
            assertThat(serversB.list()).containsExactly(planB.dir());
            assertThat(Files.list(planB.dir().getParent()).map(p -> p.getFileName().toString()))
                    .noneMatch(n -> n.endsWith(".pull")); // no staging directory left beside it

            // A seed of another version, pushed whole but with a file changed after its warm recorded the hash.
            ServerSeeds.Plan badA = SeedFixtures.npmServerPlan(a, "memory", pkg, "2026.9.1");
            ServerSeeds.Plan badB = SeedFixtures.npmServerPlan(b, "memory", pkg, "2026.9.1");
            SeedFixtures.serverSeed(serversA, badA, 5, "tampered");
            SeedFixtures.serverSeed(serversB, badB, 3, "b-own");
            Files.writeString(badA.dir().resolve("prefix/node_modules/" + pkg + "/dist/index.js"), "tampered after the warm\n");
            assertThat(sa.pushTree(ObjectStore.serverKey(badA), badA.dir()).outcome()).isEqualTo(Transfer.Outcome.PUSHED);
            // b's own seed of that version is damaged too (so the pull does not keep it as sound): it must stay as it is.
            Files.writeString(badB.dir().resolve("npm-cache/_cacache/content-v2/sha512/00/blob0"), "half-written\n");
            Map<String, String> before = SeedFixtures.digest(badB.dir());
            assertThatThrownBy(() -> sb.pullServerSeed(serversB, badB, Cancellation.create())).isInstanceOf(StoreException.class)
                    .hasMessageContaining("the arrived seed of memory hashes to").hasMessageContaining("not installed");
            assertThat(SeedFixtures.digest(badB.dir())).as("the seed there is kept as it was").isEqualTo(before);
            assertThat(serversB.list()).containsExactlyInAnyOrder(planB.dir(), badB.dir()); // no staging directory left

            // Warmed separately on both hosts: differing, and a pull replaces this host's with the store's copy.
            ServerSeeds.Plan ownA = SeedFixtures.npmServerPlan(a, "memory", pkg, "2026.9.2");
            ServerSeeds.Plan ownB = SeedFixtures.npmServerPlan(b, "memory", pkg, "2026.9.2");
            SeedFixtures.serverSeed(serversA, ownA, 4, "a-own");
            SeedFixtures.serverSeed(serversB, ownB, 6, "b-own");
            assertThat(sa.pushServerSeed(serversA, ownA).outcome()).isEqualTo(Transfer.Outcome.PUSHED);
            assertThat(sb.serverPresence(row(serversB, ownB)).place()).hasValue(SeedPresence.Place.DIFFERING);
            assertThat(sb.pullServerSeed(serversB, ownB, Cancellation.create()).outcome()).isEqualTo(Transfer.Outcome.PULLED);
            assertThat(SeedFixtures.digest(ownB.dir())).isEqualTo(SeedFixtures.digest(ownA.dir()));
            assertThat(sb.serverPresence(row(serversB, ownB)).place()).hasValue(SeedPresence.Place.BOTH);

            // A uv seed does not travel: its push is refused, saying why and what to do.
            ServerSeeds.Plan uv = new ServerSeeds.Plan("time", dev.kiln.core.startup.Launcher.UVX, "mcp-server-time",
                    "2026.1.26", "2026.1.26", "mcp-server-time", List.of(), "uv 0.13.9", "https://pypi.org/simple", "uv-time",
                    planA.dir().resolveSibling("uv-time"));
            assertThatThrownBy(() -> sa.pushServerSeed(serversA, uv)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("server time's seed is not pushed").hasMessageContaining("absolute path")
                    .hasMessageContaining("kiln warm --servers");
        }
    }

    /** The inventory row of {@code plan}'s seed as a sound one (what {@code ServerSeeds.inventory} gives for it). */
    private static dev.kiln.core.seed.ServerSeedInfo row(ServerSeeds seeds, ServerSeeds.Plan plan) {
        Optional<ServerSeeds.Seed> sound = seeds.find(plan);
        return new dev.kiln.core.seed.ServerSeedInfo(plan.server(), plan.key(), "npx", plan.pkg(), plan.version(),
                plan.version(), plan.runtimeVersion(), plan.registry(), sound.isPresent() ? plan.dir() : null, List.of(), 0,
                sound.map(ServerSeeds.Seed::contentSha256).orElse(""), null, null, sound.isPresent()
                        ? dev.kiln.core.seed.ServerSeedInfo.State.OK : dev.kiln.core.seed.ServerSeedInfo.State.MISSING, "",
                List.of());
    }

    @Test
    void seedWarmedSeparatelyOnTwoHosts_isDiffering_untilPulled() throws Exception {
        StoreConfig cfg = freshBucket();
        SeedCaches a = StoreFixtures.workspace(tmp.resolve("a"), "app", cfg);
        SeedCaches b = StoreFixtures.workspace(tmp.resolve("b"), "app", cfg);
        StoreFixtures.seed(a, "app", 20, 0, "host-a");
        StoreFixtures.seed(b, "app", 20, 0, "host-b");
        try (ObjectStore sa = StoreFixtures.store(fs, cfg); ObjectStore sb = StoreFixtures.store(fs, cfg)) {
            sa.pushSeed(a, "app");
            assertThat(sb.presence(b, "app").place()).isEqualTo(SeedPresence.Place.DIFFERING);
            assertThat(sb.pushSeed(b, "app").outcome()).isEqualTo(Transfer.Outcome.ALREADY_STORED);
            assertThat(sb.presence(b, "app").place()).isEqualTo(SeedPresence.Place.DIFFERING);
            sb.pullSeed(b, "app", Cancellation.create());
            assertThat(sb.presence(b, "app").place()).isEqualTo(SeedPresence.Place.BOTH);
            assertThat(SeedFixtures.digest(b.seedDir("app"))).isEqualTo(SeedFixtures.digest(a.seedDir("app")));
        }
    }

    /**
     * Two hosts push different seeds of one key at the same moment (released by one barrier, each with its own
     * client): SeaweedFS honours {@code If-None-Match: *} on the manifest through the SDK, so exactly one push wins,
     * the other reports the key already stored, and the key's object is the winner's, whole.
     */
    @Test
    void twoHostsPushingOneKeyAtOnce_bothSucceed_oneObjectWins_noneTorn() throws Exception {
        for (int round = 0; round < 2; round++) {
            StoreConfig cfg = freshBucket();
            List<SeedCaches> hosts = new ArrayList<>();
            List<ObjectStore> stores = new ArrayList<>();
            for (int h = 0; h < 2; h++) {
                SeedCaches s = StoreFixtures.workspace(tmp.resolve("r" + round + "h" + h), "app", cfg);
                StoreFixtures.seed(s, "app", 200, 256 * 1024, "round" + round + "host" + h);
                hosts.add(s);
                stores.add(StoreFixtures.store(fs, cfg));
            }
            CyclicBarrier go = new CyclicBarrier(2);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<Transfer>> f = new ArrayList<>();
                for (int h = 0; h < 2; h++) {
                    int i = h;
                    f.add(pool.submit(() -> {
                        go.await();
                        return stores.get(i).pushSeed(hosts.get(i), "app");
                    }));
                }
                Transfer t0 = f.get(0).get();
                Transfer t1 = f.get(1).get();
                assertThat(Set.of(t0.outcome(), t1.outcome()))
                        .isEqualTo(Set.of(Transfer.Outcome.PUSHED, Transfer.Outcome.ALREADY_STORED));
                assertThat(t0.manifest().sha256()).isEqualTo(t1.manifest().sha256());
                int winner = t0.outcome() == Transfer.Outcome.PUSHED ? 0 : 1;
                SeedCaches reader = StoreFixtures.workspace(tmp.resolve("r" + round + "reader"), "app", cfg);
                try (ObjectStore sr = StoreFixtures.store(fs, cfg)) {
                    sr.pullSeed(reader, "app", Cancellation.create());
                }
                assertThat(SeedFixtures.digest(reader.seedDir("app")))
                        .isEqualTo(SeedFixtures.digest(hosts.get(winner).seedDir("app")));
            } finally {
                pool.shutdownNow();
                stores.forEach(ObjectStore::close);
            }
        }
    }

    /**
     * What a push killed halfway leaves (an object uploaded but no manifest, and a multipart upload never completed)
     * is nothing a pull takes: the pull says the store has no seed, and the local seed is as it was.
     */
    @Test
    void pushKilledBeforeItsManifest_leavesNothingAPullTakes() throws Exception {
        StoreConfig cfg = freshBucket();
        SeedCaches a = StoreFixtures.workspace(tmp.resolve("a"), "app", cfg);
        SeedCaches b = StoreFixtures.workspace(tmp.resolve("b"), "app", cfg);
        StoreFixtures.seed(a, "app", 50, 0, "a");
        StoreFixtures.seed(b, "app", 10, 0, "b-old");
        Map<String, String> before = SeedFixtures.digest(b.seedDir("app"));
        StoreKey key = StoreKey.seed("app", a.seededHash("app").orElseThrow());
        Path tar = tmp.resolve("seed.tar.gz");
        TreePack.Packed packed = TreePack.pack(a.seedDir("app"), tar);
        try (Bucket bucket = new Bucket(cfg, Credentials.chain(SeaweedFs.env()), new Retry(1, java.time.Duration.ZERO,
                d -> { }), java.time.Duration.ofSeconds(10), 64L << 20, 5 << 20);
             ObjectStore sb = StoreFixtures.store(fs, cfg)) {
            bucket.putFile(key.objectPath(packed.sha256()), tar, packed.bytes()); // the object, then the kill
            // A second push, of a big seed, killed after its first part: the multipart upload is never completed.
            String partKey = cfg.objectKey(key.objectPath("f".repeat(64)));
            String upload = bucket.s3().createMultipartUpload(r -> r.bucket(cfg.bucket()).key(partKey)).uploadId();
            bucket.s3().uploadPart(r -> r.bucket(cfg.bucket()).key(partKey).uploadId(upload).partNumber(1),
                    software.amazon.awssdk.core.sync.RequestBody.fromBytes(new byte[5 << 20]));
            assertThat(sb.presence(b, "app").place()).isEqualTo(SeedPresence.Place.LOCAL);
            assertThatThrownBy(() -> sb.pullSeed(b, "app", Cancellation.create()))
                    .isInstanceOf(StoreException.class).hasMessageContaining("has no seed of app");
            assertThat(SeedFixtures.digest(b.seedDir("app"))).isEqualTo(before);
            assertThat(sb.stats().failures()).isEqualTo(1);
        }
    }

    /**
     * A byte flipped in SeaweedFS's volume file on disk: the pull refuses the object, names it, installs nothing,
     * and the local seed stays as it was.
     */
    @Test
    void corruptedVolume_pullRefusedBySha256_named_localSeedKept() throws Exception {
        StoreConfig cfg = freshBucket();
        SeedCaches a = StoreFixtures.workspace(tmp.resolve("a"), "app", cfg);
        SeedCaches b = StoreFixtures.workspace(tmp.resolve("b"), "app", cfg);
        // Random bytes do not compress: the object holds them as they are, so they can be found in the volume.
        StoreFixtures.seed(a, "app", 5, 1 << 20, "to-corrupt");
        StoreFixtures.seed(b, "app", 10, 0, "b-before");
        Map<String, String> before = SeedFixtures.digest(b.seedDir("app"));
        byte[] big = Files.readAllBytes(a.seedDir("app").resolve("archive-v0/big.bin"));
        byte[] needle = java.util.Arrays.copyOfRange(big, 500_000, 500_064);
        try (ObjectStore sa = StoreFixtures.store(fs, cfg);
             ObjectStore sb = ObjectStore.builder(cfg).environment(SeaweedFs.env()).retries(1, java.time.Duration.ZERO).build()) {
            Transfer pushed = sa.pushSeed(a, "app");
            Path dat = flipByteOf(needle);
            assertThat(dat).as("the object's bytes were found in a volume file").isNotNull();
            assertThatThrownBy(() -> sb.pullSeed(b, "app", Cancellation.create()))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining(pushed.manifest().sha256() + ".tar.gz")
                    // SeaweedFS checks its own needle CRC first and answers 500; had it served the bytes, the SHA-256
                    // below would refuse them: either way nothing is installed.
                    .satisfies(e -> assertThat(e.getMessage()).containsAnyOf("is corrupted", "HTTP 500"));
            assertThat(SeedFixtures.digest(b.seedDir("app"))).isEqualTo(before);

            // A store that serves other bytes under the manifest's object (bit rot it did not catch, a rogue
            // writer): refused by Kiln's SHA-256, named, not installed.
            String objectKey = cfg.objectKey(pushed.key().objectPath(pushed.manifest().sha256()));
            byte[] other = Files.readAllBytes(a.seedDir("app").resolve("kiln-seed.json"));
            try (Bucket raw = new Bucket(cfg, Credentials.chain(SeaweedFs.env()), new Retry(1, java.time.Duration.ZERO,
                    d -> { }), java.time.Duration.ofSeconds(10), 64L << 20, 5 << 20)) {
                raw.s3().putObject(r -> r.bucket(cfg.bucket()).key(objectKey),
                        software.amazon.awssdk.core.sync.RequestBody.fromBytes(other));
            }
            assertThatThrownBy(() -> sb.pullSeed(b, "app", Cancellation.create()))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining(pushed.manifest().sha256() + ".tar.gz is corrupted")
                    .hasMessageContaining("its manifest says " + pushed.manifest().sha256());
            assertThat(SeedFixtures.digest(b.seedDir("app"))).isEqualTo(before);
            try (Stream<Path> s = Files.list(b.seedsDir())) {
                assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".pull-"));
            }
        }
    }

    /** Finds {@code needle} in a volume {@code .dat} file and flips one byte of it there; returns the file. */
    private static Path flipByteOf(byte[] needle) throws IOException {
        try (Stream<Path> s = Files.walk(fs.dataDir())) {
            for (Path dat : s.filter(p -> p.toString().endsWith(".dat")).toList()) {
                byte[] all = Files.readAllBytes(dat);
                int at = indexOf(all, needle);
                if (at >= 0) {
                    try (RandomAccessFile f = new RandomAccessFile(dat.toFile(), "rw")) {
                        f.seek(at + 10);
                        int b = f.read();
                        f.seek(at + 10);
                        f.write(b ^ 0x5a);
                        f.getFD().sync();
                    }
                    return dat;
                }
            }
        }
        return null;
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    void largeSeed_goesUpInParts_andComesBackWhole() throws Exception {
        StoreConfig cfg = freshBucket();
        SeedCaches a = StoreFixtures.workspace(tmp.resolve("a"), "app", cfg);
        SeedCaches b = StoreFixtures.workspace(tmp.resolve("b"), "app", cfg);
        StoreFixtures.seed(a, "app", 10, 12 << 20, "big");
        try (ObjectStore sa = ObjectStore.builder(cfg).environment(SeaweedFs.env()).multipart(5 << 20, 5 << 20).build();
             ObjectStore sb = StoreFixtures.store(fs, cfg)) {
            sa.ensureBucket();
            Transfer t = sa.pushSeed(a, "app");
            assertThat(t.manifest().bytes()).isGreaterThan(10L << 20); // three parts
            sb.pullSeed(b, "app", Cancellation.create());
            assertThat(SeedFixtures.digest(b.seedDir("app"))).isEqualTo(SeedFixtures.digest(a.seedDir("app")));
        }
    }

    @Test
    void wrongSecret_refusedAtOnce_messageSaysHow_neverTheSecret() throws Exception {
        StoreConfig cfg = freshBucket();
        SeedCaches a = StoreFixtures.workspace(tmp.resolve("a"), "app", cfg);
        StoreFixtures.seed(a, "app", 5, 0, "x");
        String wrong = "not-the-secret-9f8e7d";
        Map<String, String> env = new HashMap<>(SeaweedFs.env());
        env.put("AWS_SECRET_ACCESS_KEY", wrong);
        try (ObjectStore s = ObjectStore.builder(cfg).environment(env).build()) {
            assertThatThrownBy(() -> s.pushSeed(a, "app"))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("refused")
                    .hasMessageContaining("AWS_ACCESS_KEY_ID")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(wrong).doesNotContain(SeaweedFs.SECRET_KEY));
        }
    }

    /**
     * Two workspaces ("hosts") share one bucket. The first warms for real (uv against the package index) and pushes;
     * its uv never sees the AWS variables of its caller. The second finds the seed in the store and pulls it with the
     * index unreachable (every proxy points at a closed loopback port, which the control warm shows fails): uv is never
     * started there, and a job installs offline from the pulled seed.
     */
    @Test
    void secondHost_pull_downloadsNothingFromTheIndex_andTheSeedWorks() throws Exception {
        StoreConfig cfg = freshBucket();
        int dead;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            dead = s.getLocalPort();
        }
        String proxy = "http://127.0.0.1:" + dead;
        // This host's own environment (it may need a proxy and CA bundle to reach the index), every proxy replaced.
        Map<String, String> offline = new HashMap<>(System.getenv());
        offline.keySet().removeIf(k -> k.toLowerCase(java.util.Locale.ROOT).endsWith("_proxy"));
        for (String k : List.of("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy")) {
            offline.put(k, proxy);
        }
        Map<String, String> withAws = new HashMap<>(System.getenv());
        withAws.putAll(Map.of("AWS_ACCESS_KEY_ID", SeaweedFs.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY", SeaweedFs.SECRET_KEY,
                "AWS_SESSION_TOKEN", "tok", "AWS_PROFILE", "x"));

        Path envDump = tmp.resolve("a-uv-env");
        SeedCaches a = hostWith(tmp.resolve("a"), cfg, SeedFixtures.uvWrapper(tmp.resolve("bin-a"), tmp.resolve("a-uv.log"), envDump),
                withAws);
        Path uvLogB = tmp.resolve("b-uv.log");
        SeedCaches b = hostWith(tmp.resolve("b"), cfg, SeedFixtures.uvWrapper(tmp.resolve("bin-b"), uvLogB, null), offline);
        try (ObjectStore sa = StoreFixtures.store(fs, cfg); ObjectStore sb = StoreFixtures.store(fs, cfg)) {
            WarmResult warmed = a.warm("app", Cancellation.create());
            assertThat(warmed.outcome()).as(warmed.message() + " " + warmed.stderrTail()).isEqualTo(dev.kiln.core.seed.WarmOutcome.WARMED);
            assertThat(sa.pushSeed(a, "app").outcome()).isEqualTo(Transfer.Outcome.PUSHED);
            assertThat(Files.readAllLines(envDump)).isNotEmpty().noneMatch(l -> l.startsWith("AWS_"));

            // kiln warm --pull's steps on the second host (the engine chains them; StoreCommandsTest runs the command)
            assertThat(sb.presence(b, "app").place()).isEqualTo(SeedPresence.Place.STORE);
            assertThat(sb.pullSeed(b, "app", Cancellation.create()).outcome()).isEqualTo(Transfer.Outcome.PULLED);
            assertThat(uvLogB).as("uv never ran on the second host").doesNotExist();
            assertThat(b.seeds().get(0).current()).isTrue();
            SeedFixtures.Exit job = SeedFixtures.jobSyncOffline(tmp.resolve("b/targets/app"), b.seedDir("app"),
                    tmp.resolve("job"));
            assertThat(job.code()).as(job.output()).isZero();
        }
        // The control: with that environment a warm must reach the index, and cannot.
        SeedCaches c = hostWith(tmp.resolve("c"), cfg, SeedFixtures.uvWrapper(tmp.resolve("bin-c"), tmp.resolve("c-uv.log"), null),
                offline);
        assertThat(c.warm("app", Cancellation.create()).outcome()).isEqualTo(dev.kiln.core.seed.WarmOutcome.FAILED);
    }

    private static SeedCaches hostWith(Path ws, StoreConfig cfg, Path uv, Map<String, String> env) throws IOException {
        StoreFixtures.workspace(ws, "app", cfg);
        Files.writeString(ws.resolve("kiln.json"), "{\"uv\": \"" + uv + "\", \"store\": {\"url\": \"" + cfg.url()
                + "\", \"endpoint\": \"" + cfg.endpoint().orElseThrow() + "\"}}\n");
        return SeedCaches.builder(ws).environment(env).build();
    }
}
