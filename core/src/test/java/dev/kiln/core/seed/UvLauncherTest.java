package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.ProcessTest;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher uv runs through: what of the caller's environment reaches the child, and how a tree is killed. */
@ProcessTest
class UvLauncherTest {
    @TempDir
    Path tmp;

    static Map<String, String> callerWithSecrets() {
        Map<String, String> caller = new HashMap<>(System.getenv());
        caller.put("KILN_CANARY_SECRET", "canary-7f3a");
        caller.put("AWS_SECRET_ACCESS_KEY", "aws-canary");
        caller.put("UV_INDEX_PRIVATE_PASSWORD", "index-canary");
        caller.put("UV_PUBLISH_TOKEN", "publish-canary");
        caller.put("UV_CACHE_DIR", "/callers/own/cache");
        caller.put("UV_CONCURRENT_DOWNLOADS", "3");
        caller.put("LC_ALL", "C.UTF-8");
        caller.put("HTTPS_PROXY", "http://proxy.invalid:3128");
        return caller;
    }

    @Test
    void run_realChildPrintingItsEnvironment_seesOnlyTheAllowlist() {
        Map<String, String> env = UvLauncher.environment(callerWithSecrets(), Map.of("UV_CACHE_DIR", tmp.toString(),
                "UV_LINK_MODE", "copy"));

        UvLauncher.Run run = UvLauncher.run(List.of("/usr/bin/env"), tmp, env, Duration.ofSeconds(30),
                Cancellation.create(), Clock.systemUTC(), pid -> { }, (l, e) -> { }, true);

        assertThat(run.succeeded()).isTrue();
        String printed = String.join("\n", run.stdout());
        assertThat(printed).doesNotContain("canary");
        assertThat(run.stdout()).contains("UV_CACHE_DIR=" + tmp, "UV_LINK_MODE=copy", "UV_CONCURRENT_DOWNLOADS=3",
                "LC_ALL=C.UTF-8", "HTTPS_PROXY=http://proxy.invalid:3128", "PATH=" + System.getenv("PATH"))
                .doesNotContain("UV_CACHE_DIR=/callers/own/cache");
        assertThat(run.stdout()).allSatisfy(line -> assertThat(line.substring(0, line.indexOf('=')))
                .matches("PATH|HOME|LANG|LANGUAGE|TZ|LC_.*|(?i)(http|https|no)_proxy|SSL_CERT_FILE|SSL_CERT_DIR|REQUESTS_CA_BUNDLE|UV_.*"));
    }

    @Test
    void allowed_credentialShapedUvVariables_areDropped() {
        assertThat(UvLauncher.allowed("UV_INDEX_CORP_PASSWORD")).isFalse();
        assertThat(UvLauncher.allowed("UV_INDEX_CORP_USERNAME")).isFalse();
        assertThat(UvLauncher.allowed("UV_PUBLISH_URL")).isFalse();
        assertThat(UvLauncher.allowed("UV_KEYRING_PROVIDER")).isFalse();
        assertThat(UvLauncher.allowed("UV_NO_CACHE")).isFalse();
        assertThat(UvLauncher.allowed("UV_HTTP_TIMEOUT")).isTrue();
        assertThat(UvLauncher.allowed("GITHUB_TOKEN")).isFalse();
        assertThat(UvLauncher.allowed("PYTHONPATH")).isFalse();
    }

    @Test
    void run_cancelled_killsTheWholeProcessTree() throws Exception {
        Cancellation cancel = Cancellation.create();
        long[] pid = new long[1];
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread canceller = new Thread(() -> {
            while (seen.isEmpty()) {
                Thread.onSpinWait();
            }
            cancel.cancel();
        });
        canceller.start();

        // A shell whose child sleeps: killing only the shell would orphan the sleeper.
        UvLauncher.Run run = UvLauncher.run(List.of("/bin/sh", "-c", "sleep 300 & echo $!; wait"), tmp,
                Map.of("PATH", System.getenv("PATH")), Duration.ofMinutes(5), cancel, Clock.systemUTC(),
                p -> pid[0] = p, (l, e) -> seen.add(l), false);
        canceller.join();

        assertThat(run.end()).isEqualTo(UvLauncher.End.CANCELLED);
        assertThat(SeedFixtures.gone(pid[0])).as("the shell").isTrue();
        long sleeper = Long.parseLong(seen.get(0).strip());
        assertThat(SeedFixtures.gone(sleeper)).as("the grandchild").isTrue();
    }
}
