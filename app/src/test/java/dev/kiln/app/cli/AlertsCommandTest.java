package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.alert.AlertRules;
import dev.kiln.testkit.ProcessTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kiln alerts export} writes a rules file the real {@code promtool check rules} accepts; a malformed
 * {@code alerts.json} (read from {@code $XDG_CONFIG_HOME/kiln}) is named with its line and the defaults stay.
 */
@ProcessTest
class AlertsCommandTest {
    @TempDir
    Path dir;

    @Test
    void export_defaults_promtoolAcceptsEveryRule() throws Exception {
        Path rules = dir.resolve("kiln-rules.yml");
        CliRun r = CliRun.kiln("alerts", "export", "--out", rules.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        Result check = run(List.of("promtool", "check", "rules", rules.toString()), List.of());
        assertThat(check.exit()).as(check.out()).isZero();
        assertThat(check.out()).contains("SUCCESS: " + AlertRules.defaults().size() + " rules found");
        assertThat(Files.readString(rules)).contains("alert: KilnContractFailures",
                "expr: 'kiln_projection_contract_failures > 0'", "expr: 'kiln_health_reason{code=\"seed_failed\"} > 0'");
    }

    @Test
    void lsAndExport_ownFileThenAMalformedOne_namesFileAndLine_keepsDefaults_leavesTheFile() throws Exception {
        Path config = dir.resolve("config");
        Path file = config.resolve("kiln/alerts.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, """
                {"rules": [
                  {"name": "KilnManyFailures", "metric": "kiln_projection_contract_failures", "op": ">=", "threshold": 10,
                   "for": "2m", "severity": "critical", "summary": "Ten contracts or more fail"}
                ]}
                """);
        List<String> env = List.of("XDG_CONFIG_HOME=" + config);
        Path out = dir.resolve("own.yml");
        assertThat(kiln(env, "alerts", "export", "--out", out.toString()).exit()).isZero();
        Result check = run(List.of("promtool", "check", "rules", out.toString()), List.of());
        assertThat(check.exit()).as(check.out()).isZero();
        assertThat(check.out()).as("the file's one rule, not the defaults").contains("SUCCESS: 1 rules found");
        assertThat(Files.readString(out)).contains("alert: KilnManyFailures", "for: 120s");

        String broken = """
                {"rules": [
                  {"name": "KilnManyFailures", "metric": "kiln_projection_contract_failures", "op": ">=", "threshold": "ten"}
                ]}
                """;
        Files.writeString(file, broken);
        Result bad = kiln(env, "alerts", "ls");
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(bad.out()).contains("KilnContractFailures").doesNotContain("KilnManyFailures");
        assertThat(bad.out()).contains(file + ":2: rule 1: \"threshold\" must be a number")
                .contains("default alert rules are used");
        assertThat(Files.readString(file)).as("nothing overwritten").isEqualTo(broken);
    }

    record Result(int exit, String out) {
    }

    private Result kiln(List<String> env, String... args) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                "dev.kiln.app.Main"));
        cmd.addAll(List.of(args));
        return run(cmd, env);
    }

    private static Result run(List<String> cmd, List<String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        for (String kv : env) {
            pb.environment().put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), out);
    }
}
