package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A password in {@code UV_INDEX_URL} reaches uv (a private index needs it) but nothing Kiln keeps. Today's uv
 * strips credentials from the URLs it prints, so a stand-in uv that echoes the URL the way older releases did
 * provokes the leak the real one can no longer show.
 */
@ProcessTest
class SeedSecretsTest {
    private static final String PASSWORD = "s3cret-canary-pw";

    @TempDir
    Path tmp;

    @Test
    void warm_uvEchoesAnIndexUrlWithAPassword_journalResultAndEventsHoldNoPassword() throws Exception {
        Path ws = SeedFixtures.workspace(tmp.resolve("ws"));
        SeedFixtures.target(ws, "app", "small");
        Path uv = Files.createDirectories(tmp.resolve("bin")).resolve("uv");
        Files.writeString(uv, "#!/bin/sh\n"
                + "if [ \"$1\" = --version ]; then echo 'uv 0.4.0'; exit 0; fi\n"
                + "echo \"Resolving from $UV_INDEX_URL\"\n"
                + "echo \"error: Failed to fetch: $UV_INDEX_URL/idna/\" >&2\n"
                + "exit 2\n");
        Files.setPosixFilePermissions(uv, PosixFilePermissions.fromString("rwxr-xr-x"));
        SeedFixtures.useUv(ws, uv);
        List<KilnEvent> events = new CopyOnWriteArrayList<>();
        SeedCaches seeds = SeedCaches.builder(ws).events(events::add)
                .environment(Map.of("PATH", System.getenv("PATH"), "UV_INDEX_URL", "https://alice:" + PASSWORD + "@idx.example/simple"))
                .build();

        WarmResult r = seeds.warm("app", Cancellation.create());

        assertThat(r.outcome()).isEqualTo(WarmOutcome.FAILED);
        assertThat(String.join("\n", r.stderrTail())).contains("https://alice:***@idx.example/simple/idna/").doesNotContain(PASSWORD);
        assertThat(r.message()).doesNotContain(PASSWORD);
        assertThat(events).isNotEmpty().allSatisfy(e -> assertThat(e.toString()).doesNotContain(PASSWORD));
        assertThat(events).anySatisfy(e -> assertThat(e).isInstanceOf(SeedEvent.WarmOutput.class));
        assertThat(Files.readString(ws.resolve("observer").resolve(SeedCaches.JOURNAL_FILE))).isNotEmpty().doesNotContain(PASSWORD);
    }

    /**
     * Issue 27: a server seed's warm runs the package manager with the allow-listed part of Kiln's environment only.
     * Stand-in {@code node} and {@code npm} record the environment each run of the warm really got: neither the
     * server's {@code env} (its API token) nor a secret of Kiln's own environment is there, the seed's cache is.
     */
    @Test
    void serverWarm_configEnvAndHostHoldSecrets_noneReachesThePackageManager() throws Exception {
        Path bin = tmp.resolve("bin");
        Path seen = tmp.resolve("seen-env");
        SeedFixtures.fakeNodeAndNpm(bin, seen);
        ServerSeeds seeds = ServerSeeds.of(SeedCaches.of(tmp), Map.of("PATH", bin + ":/usr/bin:/bin", "HOME", tmp.toString(),
                "GITHUB_TOKEN", "ghp-" + PASSWORD, "AWS_SECRET_ACCESS_KEY", "aws-" + PASSWORD,
                "NPM_CONFIG__AUTH", "npm-" + PASSWORD), java.time.Clock.systemUTC());
        dev.kiln.core.startup.ServerConfig server = dev.kiln.core.startup.ServerConfig.stdio("memory", tmp, "npx",
                List.of("-y", "@modelcontextprotocol/server-memory@2026.8.31"), Map.of("API_TOKEN", "api-" + PASSWORD));

        ServerSeeds.Seed seed = seeds.warm(seeds.plan(server), Cancellation.create(), false);

        String env = Files.readString(seen);
        assertThat(env).as(seed.message()).contains("--- npm exec").contains("--- npm install")
                .contains("NPM_CONFIG_CACHE=" + SeedCaches.of(tmp).seedsDir());
        assertThat(env).doesNotContain(PASSWORD).doesNotContain("API_TOKEN").doesNotContain("GITHUB_TOKEN");
        assertThat(seed.message()).doesNotContain(PASSWORD);
        assertThat(Files.readString(SeedCaches.of(tmp).journalFile())).doesNotContain(PASSWORD);
    }

    @Test
    void credentials_userInfoAndBareTokens_redactedOtherTextKept() {
        assertThat(Redact.credentials("see https://bob:pa:ss@h.example/simple and http://tok@h2/x"))
                .isEqualTo("see https://bob:***@h.example/simple and http://***@h2/x");
        assertThat(Redact.credentials("mail me at bob@example.org")).isEqualTo("mail me at bob@example.org");
        assertThat(Redact.credentials("no url here")).isEqualTo("no url here");
    }
}
