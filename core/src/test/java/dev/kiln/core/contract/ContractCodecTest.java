package dev.kiln.core.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContractCodecTest {
    private static final String FULL = """
            {
              "x_first": [1, 2.50000000000000000001, {"deep": null}],
              "leaf_id": "payments/refunds/retry",
              "title": "Retry refunds",
              "status": "running",
              "enclosure": ["src/payments/retry", "src/payments/retry/part1"],
              "engine": {"pid": 4242, "command": "python -m worker", "started_at": "2026-01-05T11:00:00Z", "x_host": "h1"},
              "deadline": "2026-03-01T00:00:00Z",
              "updated_at": "2026-01-04T10:00:00Z",
              "x_owner": {"team": "payments", "oncall": "pager-3"}
            }
            """;

    @TempDir
    Path dir;

    @Test
    void read_fullContract_readsEveryKnownField() throws Exception {
        Contract c = ContractCodec.read(FULL.getBytes(StandardCharsets.UTF_8));

        assertThat(c.leafId()).isEqualTo("payments/refunds/retry");
        assertThat(c.title()).isEqualTo("Retry refunds");
        assertThat(c.status()).isEqualTo("running");
        assertThat(c.enclosure()).containsExactly("src/payments/retry", "src/payments/retry/part1");
        assertThat(c.engine().pid()).isEqualTo(4242);
        assertThat(c.engine().command()).isEqualTo("python -m worker");
        assertThat(c.engine().startedAt()).isEqualTo(Instant.parse("2026-01-05T11:00:00Z"));
        assertThat(c.deadline()).isEqualTo(Instant.parse("2026-03-01T00:00:00Z"));
        assertThat(c.updatedAt()).isEqualTo(Instant.parse("2026-01-04T10:00:00Z"));
        assertThat(c.unknown()).containsOnlyKeys("x_first", "x_owner");
        assertThat(c.engine().unknown()).containsOnlyKeys("x_host");
    }

    @Test
    void write_afterRead_keepsTheMeaningOfEveryField() throws Exception {
        byte[] written = ContractCodec.write(ContractCodec.read(FULL.getBytes(StandardCharsets.UTF_8)));

        ObjectMapper exact = new ObjectMapper().enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .setNodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));
        JsonNode before = exact.readTree(FULL);
        JsonNode after = exact.readTree(written);
        assertThat(after).isEqualTo(before);
        assertThat(new String(written, StandardCharsets.UTF_8)).contains("2.50000000000000000001").endsWith("}\n");
    }

    @Test
    void read_wrongTypeOfKnownField_failsNamingTheField() {
        assertThatThrownBy(() -> ContractCodec.read("{\"leaf_id\":\"a/b\",\"deadline\":\"next week\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOfSatisfying(ContractReadException.class, e -> assertThat(e.kind()).isEqualTo(ContractReadException.Kind.INVALID))
                .hasMessageContaining("deadline").hasMessageContaining("found a string (9 characters)")
                .hasMessageNotContaining("next week"); // content is never quoted (issue 19)
        assertThatThrownBy(() -> ContractCodec.read("{\"enclosure\":[\"a\", 3]}".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("enclosure[1]");
        assertThatThrownBy(() -> ContractCodec.read("{\"engine\":{\"pid\":\"x\"}}".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("engine.pid");
    }

    @Test
    void read_malformedJson_failsWithLineAndColumn() {
        assertThatThrownBy(() -> ContractCodec.read("{\n  \"leaf_id\": \"a\",\n  \"status\": \n".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOfSatisfying(ContractReadException.class, e -> assertThat(e.kind()).isEqualTo(ContractReadException.Kind.MALFORMED))
                .hasMessageContaining("line");
        assertThatThrownBy(() -> ContractCodec.read("[1,2]".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("JSON object");
        assertThatThrownBy(() -> ContractCodec.read(new byte[0])).hasMessageContaining("empty");
    }

    @Test
    void read_duplicateKey_isRefusedBecauseARewriteWouldDropOne() {
        assertThatThrownBy(() -> ContractCodec.read("{\"title\":\"a\",\"title\":\"b\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOfSatisfying(ContractReadException.class, e -> assertThat(e.kind()).isEqualTo(ContractReadException.Kind.MALFORMED))
                .hasMessage("not valid JSON at line 1, column 21: a key appears twice in one object (a rewrite would drop one)");
    }

    @Test
    void read_latin1Bytes_failsAsNotUtf8() {
        byte[] latin1 = "{\"title\":\"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);

        assertThatThrownBy(() -> ContractCodec.read(latin1))
                .isInstanceOfSatisfying(ContractReadException.class, e -> assertThat(e.kind()).isEqualTo(ContractReadException.Kind.NOT_UTF8));
    }

    @Test
    void load_fileOverTheLimit_failsWithoutReadingIt() throws Exception {
        Path file = dir.resolve("contract.json");
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(64L << 20); // sparse: 64 MiB that would hurt to read
        }
        ContractStore store = new ContractStore(dir);

        assertThatThrownBy(() -> store.load(file))
                .isInstanceOfSatisfying(ContractReadException.class, e -> assertThat(e.kind()).isEqualTo(ContractReadException.Kind.TOO_LARGE))
                .hasMessageContaining("limit");
    }

    @Test
    void load_fileExactlyAtTheLimit_isRead() throws Exception {
        String json = "{\"title\":\"" + "x".repeat(100) + "\"}";
        Path file = dir.resolve("contract.json");
        Files.writeString(file, json);

        assertThat(new ContractStore(dir, json.length()).load(file).title()).hasSize(100);
        assertThatThrownBy(() -> new ContractStore(dir, json.length() - 1).load(file)).isInstanceOf(ContractReadException.class);
    }

    @Test
    void write_stemShapedContract_normalizesTheIdToItsLocation() throws Exception {
        Path tasks = dir.resolve("tasks");
        Path leaf = tasks.resolve("payments/refunds/retry");
        Files.createDirectories(leaf);
        ContractStore store = new ContractStore(tasks);
        Contract stem = new Contract("retry", "t", "pending", List.of("src/x"), null, null, null, java.util.Map.of());

        Contract written = store.write(leaf, stem);

        assertThat(written.leafId()).isEqualTo("payments/refunds/retry");
        assertThat(store.load(leaf.resolve("contract.json")).leafId()).isEqualTo("payments/refunds/retry");
    }

    @Test
    void load_stemShapedId_isReturnedAsDeclared() throws Exception {
        Path leaf = dir.resolve("tasks/a/retry");
        Files.createDirectories(leaf);
        Files.writeString(leaf.resolve("contract.json"), "{\"leaf_id\":\"retry\"}");

        assertThat(new ContractStore(dir.resolve("tasks")).load(leaf.resolve("contract.json")).leafId()).isEqualTo("retry");
    }
}
