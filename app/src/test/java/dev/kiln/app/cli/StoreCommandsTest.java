package dev.kiln.app.cli;

import static dev.kiln.app.cli.SeedCommandsTest.kiln;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.app.cli.SeedCommandsTest.Ran;
import dev.kiln.core.Kiln;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.seed.SeedCaches;
import dev.kiln.core.store.ObjectStore;
import dev.kiln.core.store.StoreConfig;
import dev.kiln.core.store.StoreKey;
import dev.kiln.core.telemetry.EventBus;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.ProcessTest;
import dev.kiln.testkit.WeedServer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln warm --pull} and {@code kiln archive push|pull} through the engine (issue #28): against daemons ("hosts")
 * that move seeds and archives through a real SeaweedFS on their own hosts with their own credentials (this JVM has
 * none), and against a workspace directory in a child {@code kiln} that has them; and the store unreachable.
 */
@ProcessTest
@DaemonTest
class StoreCommandsTest {
    private static final String ACCESS = "KILNAPPSTOREACCESSKEY";
    private static final String SECRET = "kiln-app-store-secret-not-for-production";
    private static final Map<String, String> CREDS = Map.of("AWS_ACCESS_KEY_ID", ACCESS, "AWS_SECRET_ACCESS_KEY", SECRET);

    @TempDir
    Path tmp;
    private final ObjectMapper json = new ObjectMapper();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private WeedServer weed() throws Exception {
        WeedServer w = WeedServer.start(tmp.resolve("weed"), ACCESS, SECRET, 64, endpoint -> {
            try (ObjectStore c = ObjectStore.builder(StoreConfig.of("s3://kiln-app/probe", endpoint.toString(), "us-east-1"))
                    .environment(CREDS).retries(1, Duration.ZERO).timeout(Duration.ofSeconds(5)).build()) {
                c.ensureBucket();
                Path probe = Files.writeString(Files.createTempFile(tmp, "probe", ".bin"), "probe " + System.nanoTime());
                c.pushFile(new StoreKey("probe/" + System.nanoTime()), probe); // a real write: filer and volume are up
            }
        });
        open.add(w);
        return w;
    }

    /** A demo workspace ("host") whose kiln.json names the store at {@code endpoint}. */
    private Path host(String name, String endpoint) throws Exception {
        Path h = tmp.resolve(name);
        new DemoWorkspace().write(h, 1, 1, false);
        Files.writeString(h.resolve("kiln.json"), "{\"store\": {\"url\": \"s3://kiln-app/cli\", \"endpoint\": \"" + endpoint
                + "\", \"region\": \"us-east-1\"}}\n");
        return h;
    }

    /** A daemon serving {@code host} with the store's credentials of its own; its URL. */
    private Engine daemon(Path host) {
        Engine d = Kiln.open(host, new EventBus(), Clock.systemUTC()).storeEnvironment(CREDS).engine();
        open.add(d);
        d.projection().start(true);
        return d;
    }

    private static String url(Engine daemon) {
        return daemon.projection().apiUrl().orElseThrow();
    }

    private static String token(Engine daemon) {
        return daemon.layout().apiTokenFile().toString();
    }

    /** {@code kiln ARGS} in a child JVM whose environment holds the store's credentials (a workspace DIR: this host). */
    private static Ran child(String... args) throws Exception {
        return child(Map.of(), args);
    }

    /** {@code kiln ARGS} in a child JVM as {@link #child(String...)}, its environment changed by {@code env}. */
    private static Ran child(Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), "dev.kiln.app.Main"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(CREDS);
        pb.environment().putAll(env);
        Path out = Files.createTempFile("kiln-child-", ".out");
        Path err = Files.createTempFile("kiln-child-", ".err");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("kiln " + String.join(" ", args) + " did not finish within 300 s");
        }
        try {
            return new Ran(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Every HTTPS proxy variable uv reads, pointed at a loopback port nothing listens on. */
    private static Map<String, String> noIndex() throws Exception {
        int dead;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            dead = s.getLocalPort();
        }
        String proxy = "http://127.0.0.1:" + dead;
        Map<String, String> env = new HashMap<>();
        for (String k : List.of("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")) {
            env.put(k, proxy);
        }
        return env;
    }

    private static String sha256(Path f) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f)));
    }

    private static String metrics(Engine daemon) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url(daemon)).resolve("/metrics"))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        return r.body();
    }

    private static Map<String, String> tree(Path root) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                out.put(root.relativize(p).toString(), Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                        ? sha256(p) : Files.isSymbolicLink(p) ? "link " + Files.readSymbolicLink(p) : "dir");
            }
        }
        return out;
    }

    /**
     * The store lacks the seed: the daemon warms it with uv and pushes it. The store has it: a second daemon pulls it
     * and warms nothing, and a workspace directory (a child kiln with credentials) does the same with the package index
     * unreachable (issue #28's proof that the second host downloads nothing from it; a control warm shows the index
     * really is cut). Asked again, the first host's seed already is the store's copy.
     */
    @Test
    void warmPull_throughDaemons_warmsAndPushesWhatTheStoreLacks_pullsWhatItHas_andForADirectory() throws Exception {
        assertThat(System.getenv("AWS_ACCESS_KEY_ID")).as("the CLI itself holds no store credentials").isNull();
        WeedServer weed = weed();
        Path a = host("a", weed.endpoint().toString());
        Path b = host("b", weed.endpoint().toString());
        Path c = host("c", weed.endpoint().toString());
        Engine hostA = daemon(a);
        Engine hostB = daemon(b);

        Ran first = kiln("warm", url(hostA), "demo", "--pull", "--json", "--token-file", token(hostA));
        assertThat(first.code()).as(first.out() + first.err()).isZero();
        JsonNode warmed = json.readTree(first.out());
        assertThat(warmed.get("result").asText()).as(first.out()).isEqualTo("warmed_pushed");
        assertThat(warmed.get("source").asText()).isEqualTo("warm");
        assertThat(warmed.path("warm").get("outcome").asText()).isEqualTo("warmed");
        assertThat(warmed.path("push").get("outcome").asText()).isEqualTo("pushed");
        String hash = warmed.get("hash").asText();
        assertThat(warmed.path("push").get("key").asText()).isEqualTo("seeds/demo/" + hash);

        Ran second = kiln("warm", url(hostB), "demo", "--pull", "--json", "--token-file", token(hostB));
        assertThat(second.code()).as(second.out() + second.err()).isZero();
        JsonNode pulled = json.readTree(second.out());
        assertThat(pulled.get("result").asText()).as(second.out()).isEqualTo("pulled");
        assertThat(pulled.get("source").asText()).isEqualTo("store");
        assertThat(pulled.get("warm").isNull()).as("nothing warmed").isTrue();
        assertThat(pulled.path("pull").get("sha256").asText()).isEqualTo(warmed.path("push").get("sha256").asText());
        assertThat(SeedCaches.of(b).history()).as("host b ran no warm").isEmpty();
        assertThat(SeedCaches.of(b).seededHash("demo")).hasValue(hash);
        assertThat(tree(SeedCaches.of(b).seedDir("demo"))).isEqualTo(tree(SeedCaches.of(a).seedDir("demo")));

        // The package index unreachable for this host: uv's HTTPS goes to a closed loopback port (the store is plain
        // HTTP on loopback, which the AWS client reaches without a proxy); the control below shows a warm then fails.
        Map<String, String> noIndex = noIndex();
        Ran dir = child(noIndex, "warm", c.toString(), "demo", "--pull", "--json");
        assertThat(dir.code()).as(dir.out() + dir.err()).isZero();
        assertThat(json.readTree(dir.out()).get("result").asText()).as(dir.out()).isEqualTo("pulled");
        assertThat(SeedCaches.of(c).history()).as("the directory's host ran no warm").isEmpty();
        assertThat(tree(SeedCaches.of(c).seedDir("demo"))).isEqualTo(tree(SeedCaches.of(a).seedDir("demo")));

        Path control = host("control", weed.endpoint().toString());
        Ran cut = child(noIndex, "warm", control.toString(), "demo", "--json");
        assertThat(cut.code()).as("with the index unreachable a warm fails: " + cut.out() + cut.err()).isNotZero();
        assertThat(json.readTree(cut.out()).get("outcome").asText()).as(cut.out()).isEqualTo("failed");
        assertThat(cut.out()).as("uv could not download").contains("Failed to");
        assertThat(SeedCaches.of(control).seededHash("demo")).isEmpty();

        Ran again = kiln("warm", url(hostA), "--all", "--pull", "--token-file", token(hostA));
        assertThat(again.code()).as(again.out() + again.err()).isZero();
        assertThat(again.out()).startsWith("demo: already the store's copy");
        for (Ran r : List.of(first, second, dir, again)) {
            assertThat(r.out() + r.err()).doesNotContain(SECRET).doesNotContain(ACCESS);
        }
        assertThat(metrics(hostA)).contains("kiln_store_pushes_total 1.0");
        assertThat(metrics(hostB)).contains("kiln_store_pulls_total 1.0").doesNotContain(SECRET);
    }

    /**
     * {@code kiln archive push URL SRC}: the daemon builds its workspace's SRC and pushes it with its own credentials;
     * {@code kiln archive pull URL SHA256}: another daemon writes it on its host, the same bytes by SHA-256; a
     * workspace directory pulls it to {@code -o OUT}. The daemons' {@code /metrics} count the archive's transfers.
     */
    @Test
    void archivePushPull_throughDaemons_landsInTheStore_pulledBackCheckedBySha256_counted() throws Exception {
        WeedServer weed = weed();
        Path a = host("a", weed.endpoint().toString());
        Path b = host("b", weed.endpoint().toString());
        Path c = host("c", weed.endpoint().toString());
        Files.createDirectories(a.resolve("src/pkg"));
        Files.writeString(a.resolve("src/pkg/mod.py"), "VALUE = 28\n");
        Files.writeString(a.resolve("src/README"), "a source tree that travels\n");
        Engine hostA = daemon(a);
        Engine hostB = daemon(b);

        Ran push = kiln("archive", "push", url(hostA), "src", "--json", "--token-file", token(hostA));
        assertThat(push.code()).as(push.out() + push.err()).isZero();
        JsonNode pushed = json.readTree(push.out());
        assertThat(pushed.get("outcome").asText()).isEqualTo("pushed");
        String sha = pushed.get("sha256").asText();
        Ran local = kiln("archive", a.resolve("src").toString(), "--json");
        assertThat(json.readTree(local.out()).get("sha256").asText()).as("the same deterministic archive").isEqualTo(sha);
        try (ObjectStore store = ObjectStore.builder(StoreConfig.of("s3://kiln-app/cli", weed.endpoint().toString(),
                "us-east-1")).environment(CREDS).build()) {
            assertThat(store.manifest(StoreKey.archive(sha))).as("the archive landed in the store")
                    .hasValueSatisfying(m -> assertThat(m.bytes()).isEqualTo(pushed.get("object_bytes").asLong()));
        }

        Ran pull = kiln("archive", "pull", url(hostB), sha, "--json", "--token-file", token(hostB));
        assertThat(pull.code()).as(pull.out() + pull.err()).isZero();
        JsonNode pulled = json.readTree(pull.out());
        assertThat(pulled.get("outcome").asText()).isEqualTo("pulled");
        Path landed = b.resolve("observer/archives/" + sha + ".tar.gz");
        assertThat(pulled.get("path").asText()).isEqualTo(landed.toString());
        assertThat(sha256(landed)).as("host b's copy, by SHA-256").isEqualTo(sha);

        Path out = tmp.resolve("job/src.tar.gz");
        Ran dir = child("archive", "pull", c.toString(), sha, "-o", out.toString(), "--json");
        assertThat(dir.code()).as(dir.out() + dir.err()).isZero();
        assertThat(sha256(out)).isEqualTo(sha);
        assertThat(sha256(c.resolve("observer/archives/" + sha + ".tar.gz"))).isEqualTo(sha);

        Ran here = kiln("archive", "pull", url(hostB), sha, "-o", out.toString(), "--token-file", token(hostB));
        assertThat(here.code()).as(here.out() + here.err()).isEqualTo(2);
        assertThat(here.err()).contains("-o writes a file on this host").contains("pull with a workspace DIR here");
        Ran outside = kiln("archive", "push", url(hostA), "../..", "--token-file", token(hostA));
        assertThat(outside.code()).as(outside.out() + outside.err()).isEqualTo(1);
        assertThat(outside.err()).contains("archive push ../..").contains("outside the workspace");
        for (Ran r : List.of(push, pull, dir, here, outside)) {
            assertThat(r.out() + r.err()).doesNotContain(SECRET).doesNotContain(ACCESS);
        }
        assertThat(metrics(hostA)).contains("kiln_store_pushes_total 1.0")
                .contains("kiln_store_sent_bytes_total " + (double) pushed.get("object_bytes").asLong());
        assertThat(metrics(hostB)).contains("kiln_store_pulls_total 1.0")
                .contains("kiln_store_received_bytes_total " + (double) Files.size(landed)).doesNotContain(SECRET);
    }

    /**
     * The store does not answer (nothing listens at its endpoint): each command names the store and what to do, exits
     * non-zero, and loses nothing on the host: the archive already pulled stays, and {@code warm --pull} still warms.
     */
    @Test
    void storeUnreachable_namesTheStoreAndWhatToDo_exitsNonZero_losesNothing() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        String endpoint = "http://127.0.0.1:" + port;
        Path a = host("a", endpoint);
        Files.createDirectories(a.resolve("src"));
        Files.writeString(a.resolve("src/mod.py"), "VALUE = 1\n");
        String sha = "5d41402abc4b2a76b9719d911017c5925d41402abc4b2a76b9719d911017c592";
        Path kept = Files.createDirectories(a.resolve("observer/archives")).resolve(sha + ".tar.gz");
        Files.writeString(kept, "an archive pulled before\n");
        Engine hostA = daemon(a);
        String where = "s3://kiln-app/cli at " + endpoint;

        Ran push = kiln("archive", "push", url(hostA), "src", "--token-file", token(hostA));
        assertThat(push.code()).as(push.out() + push.err()).isEqualTo(1);
        assertThat(push.err()).contains("kiln: archive push src").contains(where).contains("Is the store up and reachable?");
        Ran pull = kiln("archive", "pull", url(hostA), sha, "--token-file", token(hostA));
        assertThat(pull.code()).as(pull.out() + pull.err()).isEqualTo(1);
        assertThat(pull.err()).contains(where).contains("Check the endpoint");
        assertThat(Files.readString(kept)).as("the file already there is kept").isEqualTo("an archive pulled before\n");

        Ran warm = kiln("warm", url(hostA), "demo", "--pull", "--json", "--token-file", token(hostA));
        assertThat(warm.code()).as(warm.out() + warm.err()).isEqualTo(1);
        JsonNode w = json.readTree(warm.out());
        assertThat(w.get("result").asText()).isEqualTo("warmed");
        assertThat(w.get("ok").asBoolean()).isFalse();
        assertThat(w.get("store_problem").asText()).contains(where).contains("Is the store up and reachable?");
        assertThat(SeedCaches.of(a).seededHash("demo")).as("the seed is current here all the same")
                .hasValue(w.get("hash").asText());
        assertThat(metrics(hostA)).contains("kiln_store_failures_total 2.0");
        for (Ran r : List.of(push, pull, warm)) {
            assertThat(r.out() + r.err()).doesNotContain(SECRET).doesNotContain(ACCESS);
        }
        assertThat(new String(Files.readAllBytes(kept), StandardCharsets.UTF_8)).isEqualTo("an archive pulled before\n");
    }
}
