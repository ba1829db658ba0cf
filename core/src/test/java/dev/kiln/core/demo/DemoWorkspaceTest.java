package dev.kiln.core.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.workspace.WorkspaceException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoWorkspaceTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void write_sameSeed_byteIdenticalTree() throws IOException {
        new DemoWorkspace().write(tmp.resolve("a"), 120, 42, false);
        new DemoWorkspace().write(tmp.resolve("b"), 120, 42, false);

        assertThat(tree(tmp.resolve("a"))).isEqualTo(tree(tmp.resolve("b")));
    }

    @Test
    void write_differentSeed_differentTree() throws IOException {
        new DemoWorkspace().write(tmp.resolve("a"), 120, 1, false);
        new DemoWorkspace().write(tmp.resolve("b"), 120, 2, false);

        assertThat(tree(tmp.resolve("a"))).isNotEqualTo(tree(tmp.resolve("b")));
    }

    @Test
    void write_defaultCount_writesThatManyContractsNestedTwoToFourLevels() throws IOException {
        DemoSummary s = new DemoWorkspace().write(tmp, DemoWorkspace.DEFAULT_CONTRACTS, 7, false);

        Map<String, byte[]> files = tree(tmp);
        long contracts = files.keySet().stream().filter(p -> p.endsWith("/contract.json")).count();
        assertThat(contracts).isEqualTo(500).isEqualTo(s.contracts());
        assertThat(files.keySet().stream().filter(p -> p.endsWith("/contract.json"))
                .mapToInt(p -> p.split("/").length - 2)) // minus "tasks" and "contract.json"
                .allSatisfy(depth -> assertThat(depth).isBetween(2, 4));
        assertThat(files).containsKeys("kiln.json", "servers.json", "targets/demo/target.json",
                "targets/demo/pyproject.toml", "targets/demo/uv.lock");
        assertThat(tmp.resolve("observer")).isDirectory();
    }

    @Test
    void write_summaryNamesThePlantedFaults() throws IOException {
        DemoSummary s = new DemoWorkspace().write(tmp, 500, 7, false);

        assertThat(s.malformed()).isNotNull();
        assertThatThrownBy(() -> JSON.readTree(tmp.resolve(s.malformed()).toFile())).isInstanceOf(IOException.class);

        assertThat(s.legacyIds()).hasSizeBetween(2, 5);
        for (String legacy : s.legacyIds()) {
            JsonNode c = JSON.readTree(tmp.resolve(legacy).toFile());
            String dir = Path.of(legacy).getParent().getFileName().toString();
            assertThat(c.get("leaf_id").asText()).as(legacy).isEqualTo(dir).doesNotContain("/");
        }

        JsonNode engine = JSON.readTree(tmp.resolve(s.enginePid()).toFile());
        assertThat(engine.path("engine").path("pid").asInt()).isPositive();

        assertThat(s.pastDeadline()).isNotEmpty();
        for (String overdue : s.pastDeadline()) {
            JsonNode c = JSON.readTree(tmp.resolve(overdue).toFile());
            assertThat(java.time.Instant.parse(c.get("deadline").asText())).isBefore(java.time.Instant.now());
        }
    }

    @Test
    void write_everyOtherContractIsCanonical() throws IOException {
        DemoSummary s = new DemoWorkspace().write(tmp, 200, 3, false);

        try (Stream<Path> files = Files.walk(tmp.resolve("tasks"))) {
            for (Path f : files.filter(p -> p.endsWith("contract.json")).toList()) {
                String rel = tmp.relativize(f).toString();
                if (rel.equals(s.malformed()) || s.legacyIds().contains(rel)) {
                    continue;
                }
                String canonical = tmp.resolve("tasks").relativize(f.getParent()).toString();
                assertThat(JSON.readTree(f.toFile()).get("leaf_id").asText()).as(rel).isEqualTo(canonical);
            }
        }
    }

    @Test
    void write_foreignNonEmptyDirectory_refusedAndUntouched() throws IOException {
        Files.writeString(tmp.resolve("notes.txt"), "mine");

        assertThatThrownBy(() -> new DemoWorkspace().write(tmp, 10, 1, false))
                .isInstanceOf(WorkspaceException.class)
                .hasMessageContaining("not a Kiln workspace")
                .hasMessageContaining("--force");
        assertThat(tree(tmp)).containsOnlyKeys("notes.txt");
    }

    @Test
    void write_foreignDirectoryWithForce_writesAndKeepsTheirFiles() throws IOException {
        Files.writeString(tmp.resolve("notes.txt"), "mine");

        new DemoWorkspace().write(tmp, 10, 1, true);

        assertThat(tmp.resolve("notes.txt")).hasContent("mine");
        assertThat(tmp.resolve("kiln.json")).exists();
    }

    @Test
    void write_existingWorkspace_isAllowed() throws IOException {
        new DemoWorkspace().write(tmp, 10, 1, false);
        Map<String, byte[]> before = tree(tmp);

        new DemoWorkspace().write(tmp, 10, 1, false);

        assertThat(tree(tmp)).isEqualTo(before);
    }

    @Test
    void write_pathIsAFile_refused() throws IOException {
        Path file = Files.writeString(tmp.resolve("f"), "x");

        assertThatThrownBy(() -> new DemoWorkspace().write(file, 10, 1, true)).hasMessageContaining("not a directory");
    }

    /** Relative path → bytes, for every regular file; byte arrays compared by content via a String key. */
    private static Map<String, byte[]> tree(Path root) throws IOException {
        Map<String, byte[]> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                out.put(root.relativize(p).toString(), Files.readAllBytes(p));
            }
        }
        return new ContentMap(out);
    }

    /** A map whose equality compares byte arrays by content, so tree comparisons read naturally. */
    private static final class ContentMap extends TreeMap<String, byte[]> {
        private static final long serialVersionUID = 1L;

        ContentMap(Map<String, byte[]> m) {
            super(m);
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Map<?, ?> other) || other.size() != size()) {
                return false;
            }
            for (Map.Entry<String, byte[]> e : entrySet()) {
                if (!(other.get(e.getKey()) instanceof byte[] b) || !java.util.Arrays.equals(b, e.getValue())) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public int hashCode() {
            return keySet().hashCode();
        }
    }
}
