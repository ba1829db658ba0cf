package dev.kiln.core.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.demo.DemoSummary;
import dev.kiln.core.demo.DemoWorkspace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeafIdHealTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path root;

    private Path tasks() {
        return root.resolve("tasks");
    }

    private Path write(String leaf, String json) throws IOException {
        Path f = tasks().resolve(leaf).resolve("contract.json");
        Files.createDirectories(f.getParent());
        Files.writeString(f, json);
        return f;
    }

    @Test
    void sweep_stemShapedId_isRewrittenKeepingUnknownFieldsOrderAndMode() throws Exception {
        Path f = write("payments/refunds/retry", """
                {"x_first": {"a": [1, 2.000000000000000000001]}, "leaf_id": "retry", "title": "Retry", "status": "running",
                 "enclosure": ["src/p"], "engine": null, "deadline": "2026-03-01T00:00:00Z", "x_owner": {"team": "payments"}}
                """);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r-----"));
        JsonNode before = JSON.readTree(f.toFile());

        HealReport r = LeafIdHeal.sweep(tasks(), false);

        assertThat(r.changes()).containsExactly(new HealReport.Change("payments/refunds/retry/contract.json", "retry", "payments/refunds/retry"));
        JsonNode after = JSON.readTree(f.toFile());
        assertThat(after.get("leaf_id").asText()).isEqualTo("payments/refunds/retry");
        ((com.fasterxml.jackson.databind.node.ObjectNode) before).put("leaf_id", "payments/refunds/retry");
        assertThat(after).isEqualTo(before);
        assertThat(Files.readString(f)).contains("2.000000000000000000001");
        assertThat(after.fieldNames()).toIterable().containsExactly("x_first", "leaf_id", "title", "status", "enclosure", "engine", "deadline", "x_owner");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).isEqualTo("rw-r-----");
    }

    @Test
    void sweep_secondRun_changesNothing() throws Exception {
        DemoSummary demo = new DemoWorkspace().write(root, 200, 7, false);
        assertThat(demo.legacyIds()).isNotEmpty();

        HealReport first = LeafIdHeal.sweep(tasks(), false);
        Map<String, String> afterFirst = digest(root);
        HealReport second = LeafIdHeal.sweep(tasks(), false);

        assertThat(first.changes()).extracting(c -> "tasks/" + c.file()).containsExactlyInAnyOrderElementsOf(demo.legacyIds());
        assertThat(second.changes()).isEmpty();
        assertThat(second.clean()).isTrue();
        assertThat(digest(root)).isEqualTo(afterFirst);
        assertThat(first.problems()).extracting(HealReport.Problem::file).containsExactly(demo.malformed().substring("tasks/".length()));
    }

    @Test
    void sweep_fullPathIdThatDisagreesWithLocation_isReportedMisplacedAndLeftAlone() throws Exception {
        Path f = write("payments/refunds/retry", "{\"leaf_id\": \"payments/ledger/retry\", \"title\": \"x\"}\n");
        Path g = write("search/index", "{\"leaf_id\": \"backfill\"}\n");
        String fBefore = Files.readString(f);
        String gBefore = Files.readString(g);

        HealReport r = LeafIdHeal.sweep(tasks(), false);

        assertThat(r.misplaced()).containsExactly(
                new HealReport.Misplaced("payments/refunds/retry/contract.json", "payments/ledger/retry", "payments/refunds/retry"),
                new HealReport.Misplaced("search/index/contract.json", "backfill", "search/index"));
        assertThat(r.changes()).isEmpty();
        assertThat(Files.readString(f)).isEqualTo(fBefore);
        assertThat(Files.readString(g)).isEqualTo(gBefore);
    }

    @Test
    void sweep_dryRun_listsEveryPlannedChangeAndLeavesEveryByteUnchanged() throws Exception {
        DemoSummary demo = new DemoWorkspace().write(root, 200, 11, false);
        Map<String, String> before = digest(root);

        HealReport dry = LeafIdHeal.sweep(tasks(), true);

        assertThat(digest(root)).isEqualTo(before);
        assertThat(dry.dryRun()).isTrue();
        assertThat(dry.changes()).hasSize(demo.legacyIds().size());
        HealReport real = LeafIdHeal.sweep(tasks(), false);
        assertThat(real.changes()).isEqualTo(dry.changes());
    }

    @Test
    void sweep_missingTasksDir_isAnEmptySweep() {
        HealReport r = LeafIdHeal.sweep(root.resolve("nope"), false);

        assertThat(r.scanned()).isZero();
        assertThat(r.changes()).isEmpty();
    }

    /** Path → content hash + mode + mtime of every entry under {@code dir}, symlinks not followed. */
    static Map<String, String> digest(Path dir) throws Exception {
        Map<String, String> m = new TreeMap<>();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String meta = PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS))
                        + " " + Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis();
                String content = Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                        ? HexFormat.of().formatHex(sha.digest(Files.readAllBytes(p))) : "dir";
                m.put(dir.relativize(p).toString(), content + " " + meta);
            }
        }
        return m;
    }
}
