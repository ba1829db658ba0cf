package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.app.Main;
import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.testkit.ProcessTest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kiln warm} and {@code kiln seed} on the demo workspace, with the real uv. */
@ProcessTest
class SeedCommandsTest {
    @TempDir
    Path tmp;

    Path ws;
    final ObjectMapper json = new ObjectMapper();

    record Ran(int code, String out, String err) {
        List<JsonNode> lines() throws Exception {
            List<JsonNode> nodes = new ArrayList<>();
            for (String l : out.strip().split("\n")) {
                nodes.add(new ObjectMapper().readTree(l));
            }
            return nodes;
        }
    }

    @BeforeEach
    void demo() {
        ws = tmp.resolve("ws");
        new DemoWorkspace().write(ws, 5, 7, false);
    }

    static synchronized Ran kiln(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            int code = Main.run(args);
            return new Ran(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    @Test
    void warm_demoTargetTwice_warmsThenReportsUnchangedAsJson() throws Exception {
        Ran first = kiln("warm", ws.toString(), "demo", "--json");
        Ran second = kiln("warm", ws.toString(), "--all", "--json");

        assertThat(first.code()).as(first.out() + first.err()).isZero();
        JsonNode w = first.lines().get(0);
        assertThat(w.get("target").asText()).isEqualTo("demo");
        assertThat(w.get("outcome").asText()).isEqualTo("warmed");
        assertThat(w.get("hash").asText()).hasSize(64);
        assertThat(w.get("bytes").asLong()).isPositive();
        assertThat(w.has("seconds")).isTrue();
        assertThat(w.get("message").asText()).contains("3 wheels");
        assertThat(second.code()).isZero();
        assertThat(second.lines()).singleElement().satisfies(n -> {
            assertThat(n.get("outcome").asText()).isEqualTo("unchanged");
            assertThat(n.get("hash").asText()).isEqualTo(w.get("hash").asText());
        });
    }

    @Test
    void warm_dryRun_gitRefThatIsAnOption_failsAndWritesNothing() throws Exception {
        Path repo = Files.createDirectories(tmp.resolve("repo"));
        Path out = tmp.resolve("pwned");
        Path target = Files.createDirectories(ws.resolve("targets/evil"));
        Files.writeString(target.resolve("target.json"), "{\"source\": {\"git\": \"" + repo + "\", \"ref\": \"--output="
                + out + "\"}}");
        Map<String, String> before = tree(tmp);

        Ran r = kiln("warm", ws.toString(), "evil", "--dry-run");

        assertThat(r.code()).as(r.out() + r.err()).isNotZero();
        assertThat(r.out() + r.err()).contains("source.ref '--output=");
        assertThat(tree(tmp)).isEqualTo(before);
    }

    @Test
    void warm_dryRun_printsTheCommandAndWritesNothing() throws Exception {
        Map<String, String> before = tree(tmp);

        Ran r = kiln("warm", ws.toString(), "demo", "--dry-run", "--json");

        assertThat(r.code()).as(r.err()).isZero();
        JsonNode plan = r.lines().get(0);
        assertThat(plan.get("warm_needed").asBoolean()).isTrue();
        assertThat(plan.get("command").toString()).contains("\"sync\",\"--frozen\",\"--no-install-project\",\"--no-build\",\"--all-extras\"");
        assertThat(tree(tmp)).isEqualTo(before);
    }

    @Test
    void seedCopyAndLs_afterAWarm_copyTheSeedAndListItCurrent() throws Exception {
        assertThat(kiln("warm", ws.toString(), "demo").code()).isZero();
        Path job = tmp.resolve("job-cache");

        Ran copy = kiln("seed", "copy", ws.toString(), "demo", job.toString(), "--json");
        Ran ls = kiln("seed", "ls", ws.toString(), "--json");

        assertThat(copy.code()).isZero();
        assertThat(copy.lines().get(0).get("copied").asBoolean()).isTrue();
        assertThat(copy.lines().get(0).get("copy_mode").asText()).isEqualTo("kernel");
        assertThat(job.resolve("CACHEDIR.TAG")).exists();
        assertThat(ls.lines()).singleElement().satisfies(n -> {
            assertThat(n.get("target").asText()).isEqualTo("demo");
            assertThat(n.get("state").asText()).isEqualTo("current");
            assertThat(n.get("wheels").asLong()).isEqualTo(3);
        });
    }

    @Test
    void seedCopy_scratchIsALinkIntoTheSeed_refusesWithExitTwoAndLeavesTheSeedAlone() throws Exception {
        assertThat(kiln("warm", ws.toString(), "demo").code()).isZero();
        Path seed = dev.kiln.core.seed.SeedCaches.of(ws).seedDir("demo");
        Path scratch = Files.createSymbolicLink(tmp.resolve("scratch"), seed);
        Map<String, String> before = tree(seed);

        Ran r = kiln("seed", "copy", ws.toString(), "demo", scratch.resolve("job").toString());

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("overlap; copy refused");
        assertThat(tree(seed)).isEqualTo(before);
    }

    @Test
    void seedCopy_noSeedYet_warnsAndStillExitsZero() {
        Ran r = kiln("seed", "copy", ws.toString(), "demo", tmp.resolve("job").toString());

        assertThat(r.code()).isZero();
        assertThat(r.err()).contains("kiln: seed demo not fully copied: no seed at").contains("warm the target first");
    }

    @Test
    void warm_missingTarget_exitsOneWithAFailedObject() throws Exception {
        Ran r = kiln("warm", ws.toString(), "ghost", "--json");

        assertThat(r.code()).isEqualTo(1);
        assertThat(r.lines().get(0).get("outcome").asText()).isEqualTo("failed");
        assertThat(r.lines().get(0).get("message").asText()).startsWith("No target 'ghost'");
    }

    @Test
    void warm_noTargetNamed_saysWhichTargetsExist() {
        Ran r = kiln("warm", ws.toString());

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("name the targets to warm, or pass --all. Targets here: demo");
    }

    @Test
    void warm_notAWorkspace_saysHowToMakeOne() throws Exception {
        Path empty = Files.createDirectories(tmp.resolve("empty"));

        Ran r = kiln("warm", empty.toString(), "--all");

        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("is not a Kiln workspace");
    }

    private static Map<String, String> tree(Path root) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                out.put(root.relativize(p).toString(), Files.isRegularFile(p) ? new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1) : "dir");
            }
        }
        return out;
    }
}
