package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.app.bench.SyntheticSource;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ArchiveCommandTest {
    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int kiln(String... args) {
        CommandLine cl = KilnCommand.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Test
    void archive_jsonWithOutput_reportsTheAddressOfTheBytesWritten() throws Exception {
        Path src = tmp.resolve("checkout");
        SyntheticSource.write(src, 20, 2);
        Files.createDirectories(src.resolve("toolkit/__pycache__"));
        Files.writeString(src.resolve("toolkit/__pycache__/x.pyc"), "junk");
        Path file = tmp.resolve("out/checkout.tar.gz");

        int code = kiln("archive", src.toString(), "--member", "toolkit", "-m", "pyproject.toml", "--exclude", "README*",
                "-o", file.toString(), "--json");

        assertThat(code).as("exit code; stderr: %s", err).isZero();
        JsonNode r = new ObjectMapper().readTree(out.toString());
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        assertThat(r.get("sha256").asText()).isEqualTo(sha);
        assertThat(r.get("bytes").asLong()).isEqualTo(Files.size(file));
        assertThat(r.get("files").asInt()).isEqualTo(18); // 17 modules + pyproject.toml; no bytecode
        assertThat(r.get("entries").asInt()).isGreaterThan(r.get("files").asInt());
        assertThat(r.get("build_ms").asDouble()).isPositive();
        assertThat(r.get("members")).extracting(JsonNode::asText).containsExactly("pyproject.toml", "toolkit");
    }

    @Test
    void archive_twiceInTwoRuns_sameSha256() throws Exception {
        Path src = tmp.resolve("checkout");
        SyntheticSource.write(src, 12, 9);

        assertThat(kiln("archive", src.toString())).isZero();
        String first = out.toString().lines().filter(l -> l.startsWith("sha256")).findFirst().orElseThrow();
        out.getBuffer().setLength(0);
        assertThat(kiln("archive", src.toString())).isZero();

        assertThat(out.toString()).contains(first).contains("entries").contains("build");
    }

    @Test
    void archive_missingMember_exitTwoNamingIt() throws Exception {
        Path src = tmp.resolve("checkout");
        SyntheticSource.write(src, 8, 1);

        int code = kiln("archive", src.toString(), "-m", "setup.py");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("kiln: Member 'setup.py' does not exist in " + src.toRealPath());
    }

    @Test
    void archive_missingSource_exitTwoSayingSo() {
        int code = kiln("archive", tmp.resolve("nowhere").toString());

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("does not exist");
    }

    @Test
    void archive_noSourceNorSubCommand_exitTwoNamingBoth() {
        int code = kiln("archive");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required parameter: 'SRC'").contains("push, pull");
    }

    @Test
    void benchArchive_json_reportsEveryFigureAndStableBytes() throws Exception {
        int code = kiln("bench", "archive", "--json", "--runs", "1", "--hits", "3", "--warmup", "1");

        assertThat(code).as("exit code; stderr: %s", err).isZero();
        JsonNode r = new ObjectMapper().readTree(out.toString());
        for (String k : new String[] {"cold_build_ms", "gnu_tar_gzip_ms", "cold_vs_gnu_ratio", "validated_hit_ms",
            "snapshot_hit_us", "bytes", "gnu_bytes", "first_build_ms"}) {
            assertThat(r.get(k)).as(k).isNotNull();
            assertThat(r.get(k).asDouble()).as(k).isPositive();
        }
        assertThat(r.get("files").asInt()).isEqualTo(SyntheticSource.DEFAULT_FILES);
        assertThat(r.get("sha256_stable").asBoolean()).isTrue();
        assertThat(r.get("validated_hits_were_hits").asBoolean()).isTrue();
        // Same members, same normalization, same level: the two archives are within a few percent in size.
        assertThat(r.get("bytes").asDouble() / r.get("gnu_bytes").asDouble()).isBetween(0.95, 1.05);
        assertThat(r.get("targets").get("cold_vs_gnu_ratio_max").asDouble()).isEqualTo(1.0);
    }
}
